"""get_model: the provider a spec names, inside the default middleware, or a clear refusal."""

from pathlib import Path

import pytest

from jurist.llm import (
    Cached,
    ConcurrencyLimited,
    EmbeddedModel,
    ErrorKind,
    Hooked,
    ModelError,
    ModelSpecError,
    ModelWrapper,
    Priced,
    RateLimited,
    Request,
    Retrying,
    Structured,
    TimeLimited,
    get_model,
    innermost,
)
from jurist.llm._anthropic import AnthropicModel
from jurist.llm._openai import OpenAIModel
from jurist.settings import Settings


def layers(model: object) -> list[type]:
    found = []
    while isinstance(model, ModelWrapper):
        found.append(type(model))
        model = model.inner
    return found


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.chdir(tmp_path)
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "JURIST_MODEL", "JUDGE_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    return Settings(JURIST_HOME=str(tmp_path))


def test_the_default_is_the_embedded_qwen_model(settings: Settings):
    model = get_model(settings=settings)
    assert model.name == "local:qwen2.5-1.5b"
    assert isinstance(innermost(model), EmbeddedModel)
    # The embedded model runs one generation at a time and times itself: no pool, no timer.
    assert layers(model) == [Cached, Structured, Retrying, Priced]
    assert model.capabilities.logprobs
    assert model.capabilities.local


def test_a_remote_provider_gets_the_full_stack(settings: Settings):
    keyed = Settings(
        JURIST_HOME=str(settings.home), OPENAI_API_KEY="sk-test", JURIST_REQUESTS_PER_MINUTE="60"
    )
    model = get_model("openai:gpt-4o-mini", settings=keyed)
    assert layers(model) == [
        Cached,
        Structured,
        Retrying,
        RateLimited,
        ConcurrencyLimited,
        TimeLimited,
        Priced,
    ]
    assert isinstance(innermost(model), OpenAIModel)
    assert model.name == "openai:gpt-4o-mini"


def test_models_are_built_once_per_spec_and_settings(settings: Settings):
    assert get_model("local:smollm2-135m", settings=settings) is get_model(
        "local:smollm2-135m", settings=settings
    )
    uncached = get_model("local:smollm2-135m", settings=settings, cache=False)
    assert Cached not in layers(uncached)


def test_the_spec_comes_from_the_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("JUDGE_MODEL", "openai-compatible:llama3@http://127.0.0.1:9/v1")
    model = get_model(settings=Settings(JURIST_HOME=str(settings.home)))
    assert model.name == "openai-compatible:llama3@http://127.0.0.1:9/v1"
    assert isinstance(innermost(model), OpenAIModel)


def test_hooks_wrap_the_shared_stack(settings: Settings):
    def redact(request: Request) -> Request:
        return request

    hooked = get_model("local:smollm2-135m", settings=settings, on_request=[redact])
    assert isinstance(hooked, Hooked)
    assert hooked.inner is get_model("local:smollm2-135m", settings=settings)


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("openai:gpt-4o", "OPENAI_API_KEY"), ("anthropic:claude-sonnet-4-0", "ANTHROPIC_API_KEY")],
)
def test_a_missing_key_is_unavailable_and_names_the_variable(
    settings: Settings, spec: str, variable: str
):
    with pytest.raises(ModelError) as caught:
        get_model(spec, settings=settings)
    assert caught.value.kind is ErrorKind.UNAVAILABLE
    assert variable in caught.value.cause


def test_anthropic_with_a_key(settings: Settings):
    keyed = Settings(JURIST_HOME=str(settings.home), ANTHROPIC_API_KEY="sk-ant-test")
    model = get_model("anthropic:claude-sonnet-4-0", settings=keyed)
    assert isinstance(innermost(model), AnthropicModel)
    assert not model.capabilities.logprobs


def test_without_the_runtime_the_message_says_how_to_install_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr("jurist.llm._embedded.runtime_installed", lambda: False)
    with pytest.raises(ModelError) as caught:
        get_model("local:qwen2.5-0.5b", settings=settings, cache=False)
    assert caught.value.kind is ErrorKind.UNAVAILABLE
    assert "pip install 'jurist[local]'" in caught.value.cause
    assert "JURIST_MODEL=openai:" in caught.value.cause


def test_a_bad_spec_is_a_value_error(settings: Settings):
    with pytest.raises(ModelSpecError, match="unknown provider 'gemini'"):
        get_model("gemini:pro", settings=settings)


def test_a_path_that_is_not_a_model(settings: Settings, tmp_path: Path):
    with pytest.raises(ModelError, match="no model file"):
        get_model(f"local:{tmp_path / 'absent.gguf'}", settings=settings)
