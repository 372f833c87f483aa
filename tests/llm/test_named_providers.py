"""`ollama:`, `vllm:` and `azure:` specs: the OpenAI provider at the server or deployment the
name stands for, each against a real OpenAI-compatible HTTP server on 127.0.0.1."""

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fault_server import FaultServer, ok, rate_limited
from jurist.llm import (
    ErrorKind,
    ModelError,
    ModelSpec,
    ModelSpecError,
    ProviderConfigError,
    Request,
    check_provider,
    get_model,
    innermost,
    parse_spec,
)
from jurist.llm._openai import OpenAIModel
from jurist.settings import Settings

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"enum": ["pass", "fail"]}},
    "required": ["verdict"],
}

_VARIABLES = (
    "OLLAMA_HOST",
    "JURIST_OLLAMA_BASE_URL",
    "JURIST_VLLM_BASE_URL",
    "VLLM_API_KEY",
    "JURIST_VLLM_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_API_KEY",
    "OPENAI_API_VERSION",
    "OPENAI_API_KEY",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for variable in _VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A 127.0.0.1 port that is bound but never listens: a connection is refused at once."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


def settings(home: Path, **values: str) -> Settings:
    return Settings(JURIST_HOME=str(home), JURIST_CACHE="0", **values)


def ask(**options: Any) -> Request:
    options.setdefault("timeout_s", 5.0)
    return Request.of("Is the sky blue?", system="You are a judge.", **options)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("ollama:llama3", ModelSpec("ollama", "llama3")),
        ("ollama:llama3.1:8b-instruct-q4_K_M", ModelSpec("ollama", "llama3.1:8b-instruct-q4_K_M")),
        ("vllm:Qwen/Qwen2.5-7B-Instruct", ModelSpec("vllm", "Qwen/Qwen2.5-7B-Instruct")),
        ("azure:my-gpt4o", ModelSpec("azure", "my-gpt4o")),
        ("litellm:anthropic/claude-3-5-haiku", ModelSpec("litellm", "anthropic/claude-3-5-haiku")),
    ],
)
def test_named_specs_parse_and_round_trip(spec: str, expected: ModelSpec) -> None:
    assert parse_spec(spec) == expected
    assert parse_spec(expected.canonical) == expected


@pytest.mark.parametrize("spec", ["ollama:", "vllm:", "azure:", "litellm:"])
def test_a_named_provider_needs_a_model(spec: str) -> None:
    with pytest.raises(ModelSpecError, match="no model after") as caught:
        parse_spec(spec)
    assert "ollama:MODEL" in str(caught.value)
    assert "litellm:MODEL" in str(caught.value)


# -- ollama: and vllm: -----------------------------------------------------------------------


def test_the_default_addresses_are_the_servers_own(home: Path) -> None:
    ollama = innermost(get_model("ollama:llama3", settings=settings(home)))
    vllm = innermost(get_model("vllm:qwen", settings=settings(home)))
    assert isinstance(ollama, OpenAIModel)
    assert isinstance(vllm, OpenAIModel)
    assert ollama.base_url == "http://127.0.0.1:11434/v1"
    assert vllm.base_url == "http://127.0.0.1:8000/v1"
    assert ollama.name == "ollama:llama3"


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:11434/v1"),
        ("127.0.0.1:11500", "http://127.0.0.1:11500/v1"),
        ("https://ollama.internal:443", "https://ollama.internal:443/v1"),
        ("http://gpu-box", "http://gpu-box:11434/v1"),
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(home: Path, host: str, url: str) -> None:
    model = innermost(get_model("ollama:llama3", settings=settings(home, OLLAMA_HOST=host)))
    assert isinstance(model, OpenAIModel)
    assert model.base_url == url


def test_the_jurist_setting_wins_over_ollama_host(home: Path) -> None:
    chosen = settings(
        home, OLLAMA_HOST="10.0.0.9:11434", JURIST_OLLAMA_BASE_URL="http://127.0.0.1:9/v1/"
    )
    model = innermost(get_model("ollama:llama3", settings=chosen))
    assert isinstance(model, OpenAIModel)
    assert model.base_url == "http://127.0.0.1:9/v1"


async def test_ollama_calls_its_server_with_no_openai_key(
    fault_server: FaultServer, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    fault_server.script(ok(json={"verdict": "pass"}, usage=(20, 5)))
    model = get_model(
        "ollama:llama3", settings=settings(home, JURIST_OLLAMA_BASE_URL=fault_server.openai_url)
    )

    response = await model.complete(ask(json_schema=SCHEMA))

    assert response.json == {"verdict": "pass"}
    assert response.usage.model == "ollama:llama3"
    assert response.usage.cost_usd is None  # nobody priced a local server's model
    received = fault_server.requests[0]
    assert received.path == "/v1/chat/completions"
    assert received.body["model"] == "llama3"
    assert received.body["response_format"]["type"] == "json_schema"
    assert "sk-openai-secret" not in received.headers.get("authorization", "")


async def test_vllm_calls_its_server_with_its_key_and_retries_a_rate_limit(
    fault_server: FaultServer, home: Path
) -> None:
    fault_server.script(rate_limited("0"), ok("yes"))
    chosen = settings(home, JURIST_VLLM_BASE_URL=fault_server.openai_url, VLLM_API_KEY="vk-1")
    model = get_model("vllm:Qwen/Qwen2.5-7B-Instruct", settings=chosen)

    response = await model.complete(ask())

    assert response.text == "yes"
    assert len(fault_server.requests) == 2  # the 429, then the answer
    assert fault_server.requests[1].body["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert fault_server.requests[1].headers["authorization"] == "Bearer vk-1"


def test_preflight_probes_the_server_address(home: Path, silent_port: int) -> None:
    chosen = settings(home, JURIST_VLLM_BASE_URL=f"http://127.0.0.1:{silent_port}/v1")
    with pytest.raises(ProviderConfigError) as caught:
        check_provider("vllm:qwen", settings=chosen, timeout_s=0.5)
    assert caught.value.setting == "JURIST_VLLM_BASE_URL"


def test_preflight_names_ollama_host_when_it_gave_the_address(home: Path, silent_port: int) -> None:
    chosen = settings(home, OLLAMA_HOST=f"127.0.0.1:{silent_port}")
    with pytest.raises(ProviderConfigError) as caught:
        check_provider("ollama:llama3", settings=chosen, timeout_s=0.5)
    assert caught.value.setting == "OLLAMA_HOST"
    assert f"http://127.0.0.1:{silent_port}/v1 is unreachable" in str(caught.value)


# -- azure: ------------------------------------------------------------------------------------


def azure_settings(home: Path, server: FaultServer, **values: str) -> Settings:
    variables = {
        "AZURE_OPENAI_ENDPOINT": server.url,
        "AZURE_OPENAI_API_KEY": "az-key",
        "OPENAI_API_VERSION": "2024-10-21",
        **values,
    }
    return settings(home, **variables)


async def test_azure_calls_the_deployment_with_the_api_version_and_key(
    fault_server: FaultServer, home: Path
) -> None:
    fault_server.script(
        ok(
            "yes",
            logprobs=[("yes", -0.01, [("yes", -0.01), ("no", -4.6)])],
            usage=(40, 1),
        )
    )
    model = get_model("azure:judge-gpt4o", settings=azure_settings(home, fault_server))

    response = await model.complete(ask(logprobs=True, top_logprobs=2))

    assert response.text == "yes"
    assert response.logprobs is not None
    assert [t.token for t in response.logprobs[0].top] == ["yes", "no"]
    assert response.usage.model == "azure:judge-gpt4o"
    received = fault_server.requests[0]
    assert received.path == (
        "/openai/deployments/judge-gpt4o/chat/completions?api-version=2024-10-21"
    )
    assert received.headers["api-key"] == "az-key"
    assert received.body["messages"][0] == {"role": "system", "content": "You are a judge."}


async def test_azure_errors_are_model_errors_of_their_kind(
    fault_server: FaultServer, home: Path
) -> None:
    fault_server.script(rate_limited("0"), rate_limited("0"))
    chosen = azure_settings(home, fault_server, JURIST_MAX_ATTEMPTS="2")
    model = get_model("azure:judge-gpt4o", settings=chosen)

    with pytest.raises(ModelError) as caught:
        await model.complete(ask())

    assert caught.value.kind is ErrorKind.RATE_LIMITED
    assert caught.value.attempts == 2


@pytest.mark.parametrize(
    "missing", ["AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION"]
)
def test_azure_without_its_settings_says_which_is_missing(home: Path, missing: str) -> None:
    variables = {
        "AZURE_OPENAI_ENDPOINT": "https://example.openai.azure.com",
        "AZURE_OPENAI_API_KEY": "az-key",
        "OPENAI_API_VERSION": "2024-10-21",
    }
    del variables[missing]
    with pytest.raises(ModelError) as caught:
        get_model("azure:judge", settings=settings(home, **variables))
    assert caught.value.kind is ErrorKind.UNAVAILABLE
    assert missing in str(caught.value)
    with pytest.raises(ProviderConfigError) as refused:
        check_provider("azure:judge", settings=settings(home, **variables))
    assert refused.value.setting == missing
