"""Labelled datasets: the three kinds, JSONL and CSV, and errors that name line and field."""

import hashlib
import json
from pathlib import Path

import pytest

from jurist.data import DatasetError, DatasetKind, load_labelled, summeval_100_path

SUMMEVAL = summeval_100_path()


def _jsonl(path: Path, *records: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _rating(item_id: str, **changes: object) -> dict[str, object]:
    record: dict[str, object] = {
        "id": item_id,
        "source": f"source of {item_id}",
        "output": f"summary {item_id}",
        "human_scores": {"coherence": 3.0, "fluency": 4.5},
        "scale": [1, 5],
    }
    record.update(changes)
    return record


def test_summeval_100_loads_100_items_from_25_documents():
    dataset = load_labelled(SUMMEVAL)
    assert dataset.kind is DatasetKind.RATINGS
    assert len(dataset) == 100
    assert len({item.doc_id for item in dataset.ratings}) == 25
    assert dataset.dimensions == ("coherence", "consistency", "fluency", "relevance")
    assert dataset.sha256 == hashlib.sha256(SUMMEVAL.read_bytes()).hexdigest()
    first = dataset.ratings[0]
    assert first.scale == (1.0, 5.0)
    assert "annotation" in first.metadata


def test_ratings_keep_extra_fields_as_metadata_and_default_doc_id_to_the_source_hash(tmp_path):
    path = _jsonl(
        tmp_path / "r.jsonl",
        _rating("a", doc_id="D1", system="M8"),
        _rating("b", metadata={"batch": 2}, system="M9"),
    )
    dataset = load_labelled(path)
    first, second = dataset.ratings
    assert (first.doc_id, first.metadata) == ("D1", {"system": "M8"})
    assert second.doc_id == hashlib.sha256(b"source of b").hexdigest()
    assert second.metadata == {"batch": 2, "system": "M9"}
    assert second.human_scores == {"coherence": 3.0, "fluency": 4.5}


def test_binary_labels_in_every_accepted_spelling(tmp_path):
    labels = [True, False, 1, 0, "yes", "No", "TRUE"]
    path = _jsonl(
        tmp_path / "b.jsonl",
        *(
            {"id": i, "context": "c", "output": "o", "label": label}
            for i, label in enumerate(labels)
        ),
    )
    dataset = load_labelled(path)
    assert dataset.kind is DatasetKind.BINARY
    assert [item.label for item in dataset.binary] == [True, False, True, False, True, False, True]
    assert [item.id for item in dataset.binary][:2] == ["0", "1"]


def test_pairwise_labels_are_normalised(tmp_path):
    path = _jsonl(
        tmp_path / "p.jsonl",
        *(
            {"id": str(i), "instruction": "i", "output_a": "x", "output_b": "y", "label": label}
            for i, label in enumerate(["A", "b", "Tie"])
        ),
    )
    dataset = load_labelled(path)
    assert dataset.kind is DatasetKind.PAIRWISE
    assert [item.label for item in dataset.pairwise] == ["A", "B", "tie"]
    with pytest.raises(DatasetError, match="is a pairwise dataset, not ratings"):
        _ = dataset.ratings


def test_a_score_outside_the_scale_names_file_line_and_field(tmp_path):
    path = _jsonl(
        tmp_path / "summeval.jsonl",
        _rating("a"),
        _rating("b", human_scores={"coherence": 7.0}),
    )
    with pytest.raises(DatasetError) as caught:
        load_labelled(path)
    assert str(caught.value) == (
        f"{path}:2: human_scores.coherence: 7.0 is outside the scale [1, 5]"
    )
    assert caught.value.location == f"{path}:2"


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (_rating("a", scale=[5, 1]), "scale: expected [lo, hi] with lo < hi, got [5, 1]"),
        (_rating("a", scale=[1]), "scale: expected [lo, hi], got [1]"),
        (
            _rating("a", human_scores={"coherence": "high"}),
            "human_scores.coherence: expected a number",
        ),
        (_rating("a", human_scores={}), "human_scores: expected a non-empty object"),
        (_rating("a", output=None), "output: missing"),
        (_rating("a", source=3), "source: expected a string, got int"),
        (_rating("", output="x"), "id: is empty"),
        (
            {"id": "a", "context": "c", "output": "o", "label": "maybe"},
            "label: expected true/false",
        ),
        (
            {"id": "a", "instruction": "i", "output_a": "x", "output_b": "y", "label": "C"},
            'label: expected A, B or tie, got "C"',
        ),
    ],
)
def test_bad_fields_are_named(tmp_path, record, problem):
    path = _jsonl(tmp_path / "bad.jsonl", record)
    with pytest.raises(DatasetError, match=f"^{path}:1: ") as caught:
        load_labelled(path)
    assert problem in str(caught.value)


def test_duplicate_ids_name_both_lines(tmp_path):
    path = _jsonl(tmp_path / "d.jsonl", _rating("a"), _rating("b"), _rating("a"))
    with pytest.raises(DatasetError) as caught:
        load_labelled(path)
    assert str(caught.value) == f"{path}:3: id: 'a' is already used on line 1"


def test_an_empty_file_is_an_error(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(DatasetError, match="holds no rows"):
        load_labelled(path)


def test_invalid_json_and_non_objects_name_the_line(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps(_rating("a")) + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"broken\.jsonl:3: not valid JSON"):
        load_labelled(path)
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(
        DatasetError, match=r"broken\.jsonl:1: expected a JSON object, got an array"
    ):
        load_labelled(path)


def test_an_unknown_kind_and_an_unrecognisable_record_are_errors(tmp_path):
    path = _jsonl(tmp_path / "x.jsonl", {"id": "a", "text": "t"})
    with pytest.raises(DatasetError, match="cannot tell the dataset kind"):
        load_labelled(path)
    with pytest.raises(ValueError, match="kind: 'scores' is not one of"):
        load_labelled(path, kind="scores")


def test_a_given_kind_checks_every_record_for_its_fields(tmp_path):
    path = _jsonl(tmp_path / "r.jsonl", _rating("a"))
    with pytest.raises(DatasetError, match=r":1: context: missing \(a binary record needs"):
        load_labelled(path, kind="binary")


def test_a_missing_file_is_a_dataset_error(tmp_path):
    with pytest.raises(DatasetError, match="cannot be read"):
        load_labelled(tmp_path / "nope.jsonl")


def test_csv_reads_nested_fields_as_json_text(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "id,source,output,human_scores,scale,doc_id,system\n"
        'a,"src, with comma",,"{""coherence"": 2}","[1, 5]",D1,M1\n'
        'b,src,out,"{""coherence"": 4.5}","[1, 5]",,M2\n',
        encoding="utf-8",
    )
    dataset = load_labelled(path)
    first, second = dataset.ratings
    assert (first.source, first.output, first.doc_id) == ("src, with comma", "", "D1")
    assert first.metadata == {"system": "M1"}
    assert second.doc_id == hashlib.sha256(b"src").hexdigest()
    assert second.human_scores == {"coherence": 4.5}


def test_csv_errors_name_the_line_counting_the_header(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("id,context,output,label\na,c,o,yes\nb,c,o,perhaps\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"b\.csv:3: label: expected"):
        load_labelled(path)
    path.write_text('id,source,output,human_scores,scale\na,s,o,{bad},"[1, 5]"\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r":2: human_scores: not valid JSON text"):
        load_labelled(path)
