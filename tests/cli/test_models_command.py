"""`jurist models`: what is installed and ready, and preparing a model, as a user runs it."""

import json
import os
import subprocess
import sys
from pathlib import Path

from jurist.llm._catalog import CATALOG
from jurist.settings import Settings


def jurist(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JURIST_HOME": str(home), "JURIST_MODELS_DIR": str(home / "models")}
    command = [sys.executable, "-m", "jurist.cli", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


def test_models_lists_state_size_and_sha256(tmp_path: Path):
    result = jurist("models", "--json", home=tmp_path)
    assert result.returncode == 0, result.stderr
    listing = json.loads(result.stdout)
    assert listing["runtime_installed"] is True
    rows = {row["spec"]: row for row in listing["models"]}
    assert set(rows) == {model.spec for model in CATALOG.values()}
    default = rows["local:qwen2.5-1.5b"]
    assert default["installed"] is True
    assert default["ready"] is False  # nothing is assembled in a fresh home
    assert default["sha256"] == CATALOG["qwen2.5-1.5b"].sha256
    assert default["size_bytes"] == CATALOG["qwen2.5-1.5b"].size_bytes
    assert listing["response_cache"] == str(tmp_path / "cache" / "responses.sqlite3")
    assert listing["models_dir"] == str(tmp_path / "models")

    table = jurist("models", home=tmp_path)
    assert table.returncode == 0
    assert "local:smollm2-135m" in table.stdout
    assert "cc324af070c2" in table.stdout


def test_prepare_verifies_and_then_the_model_is_ready(tmp_path: Path):
    prepared = jurist("models", "prepare", "smollm2-135m", home=tmp_path)
    assert prepared.returncode == 0, prepared.stderr
    assert CATALOG["smollm2-135m"].sha256 in prepared.stdout
    listing = json.loads(jurist("models", "--json", home=tmp_path).stdout)
    ready = {row["spec"]: row["ready"] for row in listing["models"]}
    assert ready["local:smollm2-135m"] is True
    assert Settings(JURIST_HOME=str(tmp_path)).models_dir.exists()


def test_prepare_an_unknown_model_is_bad_input(tmp_path: Path):
    result = jurist("models", "prepare", "llama-70b", home=tmp_path)
    assert result.returncode == 2
    assert "NAME: unknown model 'llama-70b'" in result.stderr


def test_no_cache_turns_the_response_cache_off_for_the_run(tmp_path: Path):
    result = jurist("--no-cache", "models", "--json", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["response_cache"] is None
