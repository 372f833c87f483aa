"""The SummEval calibration set that ships inside jurist: 100 rated summaries, read only when
its bytes are the ones shipped."""

import hashlib
import shutil
from pathlib import Path

import pytest

import jurist.data._shipped as shipped
from jurist.data import (
    SUMMEVAL_100_SHA256,
    DatasetError,
    DatasetKind,
    summeval_100,
    summeval_100_path,
)


def test_summeval_100_is_100_summaries_with_four_expert_scores():
    dataset = summeval_100()
    assert dataset.kind is DatasetKind.RATINGS
    assert len(dataset) == 100
    assert dataset.dimensions == ("coherence", "consistency", "fluency", "relevance")
    assert len({item.doc_id for item in dataset.ratings}) == 25
    for item in dataset.ratings:
        assert set(item.human_scores) == {"coherence", "consistency", "fluency", "relevance"}
        assert item.scale == (1.0, 5.0)
        assert item.source
        assert item.output
    assert dataset.path == summeval_100_path()


def test_the_shipped_file_is_the_recorded_bytes():
    path = summeval_100_path()
    assert path.is_file()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SUMMEVAL_100_SHA256
    assert summeval_100().sha256 == SUMMEVAL_100_SHA256


def _installed_at(monkeypatch: pytest.MonkeyPatch, directory: Path) -> Path:
    monkeypatch.setattr(shipped, "_DATASETS", directory)
    return directory / summeval_100_path().name


def test_a_changed_file_is_refused_naming_its_sha256(tmp_path, monkeypatch):
    original = summeval_100_path()
    copy = _installed_at(monkeypatch, tmp_path)
    shutil.copyfile(original, copy)
    assert len(summeval_100()) == 100  # the copy, unchanged, reads
    raw = copy.read_bytes()
    copy.write_bytes(raw.replace(b'"fluency": 3.0', b'"fluency": 4.0', 1))
    with pytest.raises(DatasetError, match="is not the shipped file's") as caught:
        summeval_100()
    assert caught.value.source == str(copy)
    assert hashlib.sha256(copy.read_bytes()).hexdigest() in str(caught.value)


def test_a_missing_file_is_refused_naming_it(tmp_path, monkeypatch):
    missing = _installed_at(monkeypatch, tmp_path)
    with pytest.raises(DatasetError, match="cannot be read") as caught:
        summeval_100()
    assert caught.value.source == str(missing)
