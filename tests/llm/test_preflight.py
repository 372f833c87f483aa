"""`check_provider`: a configuration no call can succeed with is refused before any work,
naming the setting to change."""

import socket
from collections.abc import Iterator

import pytest

from jurist.llm import ProviderConfigError, check_provider
from jurist.settings import Settings


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A 127.0.0.1 port that is bound (so no one else takes it) but never listens: a
    connection to it is refused at once."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


@pytest.fixture
def listening_port() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def settings(**env: str) -> Settings:
    return Settings(_env_file=None, **env)  # type: ignore[call-arg]


def refused(spec: str | None, config: Settings, **options) -> ProviderConfigError:
    with pytest.raises(ProviderConfigError) as caught:
        check_provider(spec, settings=config, **options)
    return caught.value


def test_an_unknown_provider_names_where_the_spec_came_from():
    error = refused(None, settings(JURIST_MODEL="gemini:pro"))
    assert error.setting == "JURIST_MODEL"
    assert str(error).startswith("JURIST_MODEL: unknown provider 'gemini' in 'gemini:pro'")
    assert "\n" not in str(error)
    assert refused("gemini:pro", settings(), spec_from="--model").setting == "--model"


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("openai:gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic:claude-3-5-haiku", "ANTHROPIC_API_KEY")],
)
def test_a_missing_api_key_names_its_variable(spec, variable):
    error = refused(spec, settings(OPENAI_API_KEY="", ANTHROPIC_API_KEY=""))
    assert error.setting == variable
    assert f"the model {spec} needs it" in error.problem


def test_a_key_that_is_set_passes_and_the_public_endpoint_is_not_probed():
    # No OPENAI_BASE_URL: nothing is dialled (the test has no network to dial).
    parsed = check_provider("openai:gpt-4o-mini", settings=settings(OPENAI_API_KEY="sk-test"))
    assert parsed.provider == "openai"


def test_an_unreachable_base_url_is_refused_at_once(silent_port):
    url = f"http://127.0.0.1:{silent_port}/v1"
    error = refused(f"openai-compatible:m@{url}", settings(), spec_from="--model")
    assert error.setting == "--model"
    assert error.problem == f"{url} is unreachable: connection refused"

    with_key = settings(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=url)
    assert refused("openai:gpt-4o-mini", with_key).setting == "OPENAI_BASE_URL"
    with_key = settings(ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=url)
    assert refused("anthropic:claude-3-5-haiku", with_key).setting == "ANTHROPIC_BASE_URL"


def test_a_base_url_that_answers_passes(listening_port):
    spec = f"openai-compatible:m@http://127.0.0.1:{listening_port}/v1"
    assert check_provider(spec, settings=settings()).base_url.endswith("/v1")


def test_a_proxy_does_not_hide_an_unreachable_loopback_url(silent_port, monkeypatch):
    # A proxy elsewhere cannot reach this machine's loopback: the URL is still dialled.
    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    url = f"http://127.0.0.1:{silent_port}/v1"
    assert "unreachable" in refused(f"openai-compatible:m@{url}", settings()).problem


def test_a_missing_model_file_is_refused(tmp_path):
    missing = tmp_path / "absent.gguf"
    error = refused(f"local:{missing}", settings())
    assert error.problem == f"no such model file: {missing}"
