"""The one row reader: JSON Lines, JSON arrays, CSV and Parquet, each row on its line, and
every refusal naming the file, the line and the field."""

import json
from pathlib import Path

import pytest

from jurist.data import DatasetError, Row, format_of, load_dataset, read_rows


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_rows_keep_their_lines_and_a_bad_line_is_a_row_with_its_problem(tmp_path):
    path = write(tmp_path / "d.jsonl", '{"a": 1}\n\n{oops\n[1]\n{"b": 2}\n')
    rows = read_rows(path)
    assert rows.format == "jsonl"
    assert rows.columns == ("a", "b")
    assert [(r.line, dict(r.values)) for r in rows.rows] == [
        (1, {"a": 1}),
        (3, {}),
        (4, {}),
        (5, {"b": 2}),
    ]
    assert str(rows.rows[1].problem).startswith("not valid JSON: ")
    assert rows.rows[2].problem == "expected a JSON object, got an array"


def test_a_row_with_a_problem_is_refused_by_check_naming_file_and_line(tmp_path):
    path = write(tmp_path / "d.jsonl", '{"a": 1}\n"text"\n')
    good, bad = read_rows(path).rows
    assert good.check(str(path)) == {"a": 1}
    with pytest.raises(DatasetError) as caught:
        bad.check(str(path))
    assert str(caught.value) == f"{path}:2: expected a JSON object, got a string"
    assert (caught.value.line, caught.value.location) == (2, f"{path}:2")


@pytest.mark.parametrize(
    ("value", "field", "problem"),
    [
        ("NaN", "answer", "NaN is not a JSON number"),
        ('{"x": [1e999]}', "answer.x[0]", "the number 1e999 is too large"),
        ('"\\udc00"', "answer", "the string holds a lone surrogate"),
        ("[" * 100 + "]" * 100, "answer[0][0][0]…", "nested deeper than 64 levels"),
    ],
)
def test_a_value_no_record_could_hold_refuses_the_file_naming_line_and_field(
    tmp_path, value, field, problem
):
    path = write(tmp_path / "d.jsonl", '{"answer": 1}\n{"answer": ' + value + "}\n")
    with pytest.raises(DatasetError) as caught:
        read_rows(path)
    assert (caught.value.line, caught.value.field) == (2, field)
    assert str(caught.value).startswith(f"{path}:2: {field}: {problem}")


def test_a_json_array_gives_each_element_the_line_it_opens_on(tmp_path):
    path = write(
        tmp_path / "d.json",
        '[\n  {"id": "a", "output": "x, [y]"},\n\n  {"id": "b",\n   "output": "z"},\n  7\n]\n',
    )
    rows = read_rows(path)
    assert rows.format == "json"
    assert [(r.line, r.problem) for r in rows.rows] == [
        (2, None),
        (4, None),
        (6, "expected a JSON object, got a number"),
    ]
    assert [i.id for i in load_dataset(path).items] == ["a", "b", "6"]


def test_a_json_array_refuses_naming_the_line_and_field(tmp_path):
    path = write(tmp_path / "d.json", '[{"output": "a"},\n {"output": [NaN]}]')
    with pytest.raises(DatasetError) as caught:
        read_rows(path)
    assert str(caught.value) == (
        f"{path}:2: output[0]: NaN is not a JSON number (JSON has no NaN or infinities)"
    )
    write(path, '[{"output": "a"},\n {"output": }]')
    with pytest.raises(DatasetError, match=r"d\.json:2: not valid JSON: .*\(column 13\)"):
        read_rows(path)
    write(path, json.dumps({"output": "a"}))
    with pytest.raises(DatasetError, match="expected a JSON array of objects, got an object"):
        read_rows(path)


def test_csv_rows_start_on_their_line_and_a_long_record_is_a_problem(tmp_path):
    path = write(tmp_path / "d.csv", ' id , output\na,"two\nlines"\n\nb\nc,x,extra\n')
    rows = read_rows(path)
    assert rows.columns == ("id", "output")
    assert [(r.line, dict(r.values), r.problem) for r in rows.rows] == [
        (2, {"id": "a", "output": "two\nlines"}, None),
        (5, {"id": "b"}, None),
        (6, {}, "3 fields, but the header has 2"),
    ]


def test_csv_that_is_not_csv_names_its_line(tmp_path):
    # A cell beyond the csv module's field size limit is a csv.Error.
    path = write(tmp_path / "d.csv", "id,output\na,x\nb," + "y" * 200_000 + "\n")
    with pytest.raises(DatasetError) as caught:
        read_rows(path)
    assert caught.value.line == 3
    assert str(caught.value).startswith(f"{path}:3: not valid CSV: field larger than")


def test_parquet_rows_are_numbered_from_one(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"id": ["x", "y"], "n": [1, 2]}), path)
    rows = read_rows(path)
    assert rows.rows == (Row(1, {"id": "x", "n": 1}), Row(2, {"id": "y", "n": 2}))
    assert rows.columns == ("id", "n")


def test_the_format_comes_from_the_suffix_or_a_default(tmp_path):
    assert format_of(Path("a.NDJSON")) == "jsonl"
    assert format_of(Path("cases.txt"), "jsonl") == "jsonl"
    with pytest.raises(DatasetError, match=r"unknown dataset format '\.txt'"):
        format_of(Path("cases.txt"))


def test_a_row_read_twice_gives_the_same_sha256_and_resolved_path(tmp_path):
    path = write(tmp_path / "d.jsonl", '{"a": 1}\n')
    first, second = read_rows(path), read_rows(path)
    assert first.sha256 == second.sha256
    assert first.path == path.resolve()
