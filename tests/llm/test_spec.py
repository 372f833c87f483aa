"""Model specs and settings: every valid form, and errors that say what is wrong."""

from pathlib import Path

import pytest

from jurist.llm._spec import ModelSpec, ModelSpecError, parse_spec
from jurist.settings import DEFAULT_MODEL, Settings


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("local", ModelSpec("local", "qwen2.5-1.5b")),
        ("local:qwen2.5-1.5b", ModelSpec("local", "qwen2.5-1.5b")),
        ("local:qwen2.5-0.5b", ModelSpec("local", "qwen2.5-0.5b")),
        ("local:smollm2-135m", ModelSpec("local", "smollm2-135m")),
        ("local:/models/judge.gguf", ModelSpec("local", "judge", path="/models/judge.gguf")),
        ("openai:gpt-4o-mini", ModelSpec("openai", "gpt-4o-mini")),
        ("anthropic:claude-sonnet-4-0", ModelSpec("anthropic", "claude-sonnet-4-0")),
        (
            "openai-compatible:qwen2.5:7b@http://127.0.0.1:11434/v1/",
            ModelSpec("openai-compatible", "qwen2.5:7b", base_url="http://127.0.0.1:11434/v1"),
        ),
        (
            "openai-compatible:org@model@https://user@host/v1",
            ModelSpec("openai-compatible", "org@model", base_url="https://user@host/v1"),
        ),
    ],
)
def test_valid_specs(spec: str, expected: ModelSpec):
    assert parse_spec(spec) == expected


def test_a_local_path_expands_the_home_directory():
    parsed = parse_spec("local:~/judge.gguf")
    assert parsed.path == str(Path.home() / "judge.gguf")


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("", "it is empty"),
        ("gpt-4o", "no provider prefix"),
        ("bedrock:claude-3-5-haiku", "unknown provider 'bedrock'"),
        ("openai:", "no model after 'openai'"),
        ("local:llama-70b", "unknown local model 'llama-70b'"),
        ("openai-compatible:llama3", "needs MODEL@BASE_URL"),
        ("openai-compatible:@http://127.0.0.1:8000/v1", "needs MODEL@BASE_URL"),
        ("openai-compatible:m@http://http://127.0.0.1:8000/v1", "is not an http(s) base URL"),
        ("openai-compatible:m@http://127.0.0.1:port/v1", "has a bad port"),
    ],
)
def test_bad_specs_name_the_problem_and_list_the_valid_forms(spec: str, problem: str):
    with pytest.raises(ModelSpecError) as caught:
        parse_spec(spec)
    message = str(caught.value)
    assert problem in message
    assert "openai-compatible:MODEL@http://host:port/v1" in message
    assert "local:smollm2-135m" in message


def test_canonical_names_round_trip():
    for spec in (
        "local:qwen2.5-0.5b",
        "openai:gpt-4.1",
        "anthropic:claude-3-5-haiku-latest",
        "openai-compatible:llama3@http://127.0.0.1:8080/v1",
    ):
        assert parse_spec(parse_spec(spec).canonical).canonical == spec


def test_settings_read_jurist_and_spec_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.chdir(tmp_path)  # no stray .env file
    assert Settings().model == DEFAULT_MODEL
    monkeypatch.setenv("JUDGE_MODEL", "openai:gpt-4o-mini")
    monkeypatch.setenv("JUDGE_TEMPERATURE", "0.2")
    settings = Settings()
    assert (settings.model, settings.temperature) == ("openai:gpt-4o-mini", 0.2)
    monkeypatch.setenv("JURIST_MODEL", "anthropic:claude-sonnet-4-0")
    assert Settings().model == "anthropic:claude-sonnet-4-0"


def test_settings_never_take_home_from_the_home_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("MODEL", "not-a-spec")
    monkeypatch.delenv("JURIST_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    settings = Settings()
    assert settings.home == tmp_path / "user" / ".cache" / "jurist"
    assert settings.model == DEFAULT_MODEL
    monkeypatch.setenv("JURIST_HOME", str(tmp_path / "jh"))
    assert Settings().cache_file == tmp_path / "jh" / "cache" / "responses.sqlite3"


def test_bad_settings_name_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURIST_TEMPERATURE", "hot")
    with pytest.raises(ValueError, match="JURIST_TEMPERATURE"):
        Settings()
