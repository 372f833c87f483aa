"""get_model's limit on calls in flight: one per provider endpoint, adaptive up to
JURIST_MAX_CONCURRENCY unless JURIST_CONCURRENCY fixes it; none around the embedded model,
which runs one generation at a time."""

from pathlib import Path

import pytest

from jurist.llm import ConcurrencyLimited, EmbeddedModel, Model, ModelWrapper, get_model
from jurist.settings import Settings

SERVER = "openai-compatible:{model}@http://127.0.0.1:9/v1"


def limiter(model: Model) -> ConcurrencyLimited | None:
    while isinstance(model, ModelWrapper):
        if isinstance(model, ConcurrencyLimited):
            return model
        model = model.inner
    return None


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for variable in ("JURIST_CONCURRENCY", "JURIST_MAX_CONCURRENCY", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def test_a_remote_model_adapts_from_32_up_to_a_ceiling_of_256_by_default(home: Path):
    found = limiter(get_model(SERVER.format(model="a"), settings=Settings(JURIST_HOME=str(home))))
    assert found is not None
    assert found.adaptive
    assert (found.limit, found.max_concurrency) == (32, 256)
    assert found.limits.name == "openai-compatible@http://127.0.0.1:9/v1"


def test_models_calling_one_endpoint_share_its_limit(home: Path):
    settings = Settings(JURIST_HOME=str(home))
    first = limiter(get_model(SERVER.format(model="a"), settings=settings))
    second = limiter(get_model(SERVER.format(model="b"), settings=settings, cache=False))
    other = limiter(get_model("openai-compatible:a@http://127.0.0.1:10/v1", settings=settings))
    assert first is not None
    assert second is not None
    assert other is not None
    assert first.limits is second.limits
    assert other.limits is not first.limits


def test_jurist_max_concurrency_is_the_ceiling(home: Path):
    settings = Settings(JURIST_HOME=str(home), JURIST_MAX_CONCURRENCY="20")
    found = limiter(get_model(SERVER.format(model="c"), settings=settings))
    assert found is not None
    assert found.adaptive
    assert (found.limit, found.max_concurrency) == (20, 20)
    assert settings.concurrency_ceiling == 20


def test_a_fixed_jurist_concurrency_wins(home: Path):
    settings = Settings(JURIST_HOME=str(home), JURIST_CONCURRENCY="8")
    found = limiter(get_model(SERVER.format(model="d"), settings=settings))
    assert found is not None
    assert not found.adaptive
    assert found.limit == 8
    assert settings.concurrency_ceiling == 8


@pytest.mark.parametrize("variable", ["JURIST_CONCURRENCY", "JURIST_MAX_CONCURRENCY"])
def test_a_bad_concurrency_setting_is_refused_naming_it(home: Path, variable: str):
    with pytest.raises(ValueError, match=variable):
        Settings(JURIST_HOME=str(home), **{variable: "0"})


def test_the_embedded_model_stays_one_generation_at_a_time(home: Path):
    settings = Settings(
        JURIST_HOME=str(home), JURIST_CONCURRENCY="64", JURIST_MAX_CONCURRENCY="512"
    )
    model = get_model("local:smollm2-135m", settings=settings)
    # No pool of calls in flight: the embedded model queues its generations on one worker.
    assert limiter(model) is None
    inner = model
    while isinstance(inner, ModelWrapper):
        inner = inner.inner
    assert isinstance(inner, EmbeddedModel)
