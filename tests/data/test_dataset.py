"""Batch datasets: JSONL, CSV and Parquet rows become Contexts through a field map; every row
that cannot is an item with its problem, and a dataset that cannot be read is an error."""

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from jurist.data import DatasetError, FieldMap, dataset_from_rows, load_dataset


def write_jsonl(path: Path, *rows: object) -> Path:
    path.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in rows))
    return path


# --- the field map --------------------------------------------------------------------


def test_a_map_is_parsed_from_field_equals_column_entries():
    parsed = FieldMap.parse(" output = answer , context=docs,metadata.lang=language ")
    assert dict(parsed.columns) == {
        "output": "answer",
        "context": "docs",
        "metadata.lang": "language",
    }
    assert str(parsed) == "output=answer,context=docs,metadata.lang=language"
    assert FieldMap.parse("").columns == {}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("output", "'output' is not FIELD=COLUMN"),
        ("answer=output", "unknown field 'answer'; the fields: goal, output, context"),
        ("metadata.=x", "unknown field 'metadata.'"),
        ("output=", "output= names no column"),
        ("output=a,output=b", "output is mapped twice"),
    ],
)
def test_a_malformed_map_names_map_and_the_entry(text, problem):
    with pytest.raises(ValueError, match=r"^--map: ") as raised:
        FieldMap.parse(text)
    assert problem in str(raised.value)


def test_default_columns_are_the_first_the_dataset_has():
    data = dataset_from_rows(
        [{"question": "Q?", "response": "R", "passages": ["p1", "p2"], "reference": "G"}]
    )
    assert dict(data.columns) == {
        "goal": "question",
        "output": "response",
        "context": "passages",
        "reference": "reference",
    }
    ctx = data.items[0].context
    assert ctx is not None
    assert (ctx.goal, ctx.output, ctx.context, ctx.reference) == ("Q?", "R", ("p1", "p2"), "G")


def test_a_mapped_column_wins_over_the_defaults_and_fills_metadata():
    data = dataset_from_rows(
        [{"output": "ignored", "answer_b": "B", "lang": "en"}],
        "output=answer_b,metadata.lang=lang",
    )
    ctx = data.items[0].context
    assert ctx is not None
    assert ctx.output == "B"
    assert dict(ctx.metadata) == {"lang": "en"}


def test_a_mapped_column_no_row_has_is_a_map_error_listing_the_columns():
    with pytest.raises(ValueError, match="--map: output=answr: the dataset has no column 'answr'"):
        dataset_from_rows([{"answer": "a", "goal": "g"}], "output=answr")


def test_a_dataset_with_no_output_column_says_how_to_map_one():
    with pytest.raises(ValueError, match=r"--map output=COLUMN \(its columns: text, goal\)"):
        dataset_from_rows([{"text": "a", "goal": "g"}])


# --- rows and items -------------------------------------------------------------------


def test_a_row_missing_a_mapped_column_is_an_item_with_its_problem(tmp_path):
    path = write_jsonl(
        tmp_path / "d.jsonl",
        {"goal": "g", "output": "fine"},
        {"goal": "g"},
        {"output": "no goal"},
    )
    items = load_dataset(path).items
    assert [item.problem for item in items] == [
        None,
        "line 2: no column 'output' (output)",
        "line 3: no column 'goal' (goal)",
    ]
    assert items[1].context is None


def test_jsonl_ids_are_the_id_field_else_the_line_number(tmp_path):
    path = write_jsonl(
        tmp_path / "d.jsonl",
        {"id": "first", "output": "a"},
        "\n",  # a blank line still counts as a line
        {"output": "b"},
        {"id": 7, "output": "c"},
        {"id": None, "output": "d"},
    )
    assert [(i.id, i.line) for i in load_dataset(path).items] == [
        ("first", 1),
        ("3", 3),
        ("7", 4),
        ("5", 5),
    ]


def test_a_jsonl_line_that_is_not_an_object_is_an_item_with_its_problem(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", {"output": "a"}, "{broken\n", "[1, 2]\n")
    problems = [item.problem for item in load_dataset(path).items]
    assert problems[0] is None
    assert str(problems[1]).startswith("line 2: not valid JSON")
    assert problems[2] == "line 3: expected a JSON object, got an array"


def test_a_dataset_records_its_files_sha256_and_resolved_path(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", {"output": "a"})
    data = load_dataset(path)
    assert data.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert data.describe() == {
        "path": str(path.resolve()),
        "sha256": data.sha256,
        "format": "jsonl",
        "items": 1,
        "columns": {"output": "output"},
    }


def test_csv_rows_use_their_line_numbers_and_json_lists_for_context(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(
        "question,answer,context\n"
        'Q1,A1,"[""p1"", ""p2""]"\n'
        "\n"
        '"multi\nline",A2,plain passage\n'
        "Q3,A3,[not json\n"
    )
    items = load_dataset(path).items
    assert [(i.id, i.line) for i in items] == [("2", 2), ("4", 4), ("6", 6)]
    contexts = [i.context for i in items]
    assert all(contexts)
    assert [c.context for c in contexts if c] == [("p1", "p2"), ("plain passage",), ("[not json",)]
    assert [c.goal for c in contexts if c] == ["Q1", "multi\nline", "Q3"]


def test_a_short_csv_record_lacks_its_last_columns_and_a_long_one_is_a_problem(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("id,output,reference\na,x,r\nb,y\nc,z,r,extra\n")
    items = load_dataset(path, "reference=reference").items
    assert [i.problem for i in items] == [
        None,
        "line 3: no column 'reference' (reference)",
        "line 4: 4 fields, but the header has 3",
    ]


def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("output,output\na,b\n")
    with pytest.raises(DatasetError, match="the header names output more than once"):
        load_dataset(path)


def test_parquet_rows_keep_their_types(tmp_path):
    path = tmp_path / "d.parquet"
    table = pa.table(
        {
            "id": ["x", "y"],
            "answer": ["A", "B"],
            "documents": [["d1", "d2"], []],
            "score": [1, 2],
        }
    )
    pq.write_table(table, path)
    data = load_dataset(path, "metadata.score=score")
    assert data.format == "parquet"
    contexts = [i.context for i in data.items]
    assert [(c.output, c.context, dict(c.metadata)) for c in contexts if c] == [
        ("A", ("d1", "d2"), {"score": 1}),
        ("B", (), {"score": 2}),
    ]


def test_without_pyarrow_parquet_says_how_to_install_it(tmp_path, monkeypatch):
    import importlib

    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"output": ["a"]}), path)
    real = importlib.import_module

    def no_pyarrow(name: str, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr("jurist.data._rows.importlib.import_module", no_pyarrow)
    with pytest.raises(DatasetError, match=r"pip install 'jurist\[dataframes\]'"):
        load_dataset(path)


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("d.txt", "x", "unknown dataset format '.txt'; use one of .jsonl, .ndjson, .json, .csv"),
        ("d.jsonl", "\n\n", "holds no rows"),
        ("d.csv", "", "holds no rows (not even a header)"),
        ("d.jsonl", b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
        ("d.parquet", "not parquet", "not a readable Parquet file"),
    ],
)
def test_a_dataset_that_cannot_be_read_is_an_error_naming_the_file(
    tmp_path, name, content, problem
):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(DatasetError) as raised:
        load_dataset(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert problem in str(raised.value)


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(DatasetError, match="cannot be read: No such file"):
        load_dataset(tmp_path / "absent.jsonl")


def test_two_rows_with_one_id_are_refused_naming_both_lines():
    with pytest.raises(DatasetError, match=r"^rows:3: id: '2' is already used on line 2"):
        dataset_from_rows([{"output": "a"}, {"output": "b"}, {"id": 2, "output": "c"}])


def test_an_id_longer_than_the_store_keeps_is_refused():
    with pytest.raises(DatasetError, match=r"^rows:1: id: has 201 characters; at most 200"):
        dataset_from_rows([{"id": "x" * 201, "output": "a"}])


def test_values_that_are_not_text_become_text_where_a_context_needs_text():
    item = dataset_from_rows(
        [{"output": {"a": 1}, "goal": 42, "context": [5, {"p": "q"}], "reference": None}]
    ).items[0]
    assert item.context is not None
    assert item.context.output == {"a": 1}  # the output may be any JSON value
    assert item.context.goal == "42"
    assert item.context.context == ("5", '{"p": "q"}')
    assert item.context.reference is None
