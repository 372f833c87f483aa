"""`litellm:MODEL` against a real HTTP server on 127.0.0.1: LiteLLM's `openai/` and
`hosted_vllm/` routes to its OpenAI-compatible API, its `anthropic/` route to its Messages API
(tests/fault_server.py)."""

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

litellm = pytest.importorskip("litellm")

from fault_server import (  # noqa: E402
    FaultServer,
    bad_request,
    ok,
    rate_limited,
    rejects_json_schema,
    server_error,
    slow,
    unauthorized,
)
from jurist.core import Cause, Context, Status  # noqa: E402
from jurist.llm import ErrorKind, ModelError, PriceTable, Request, get_model  # noqa: E402
from jurist.llm._litellm import LiteLLMModel  # noqa: E402
from jurist.settings import Settings  # noqa: E402
from jurist.specs import judge_from_spec  # noqa: E402

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"enum": ["pass", "fail"]}},
    "required": ["verdict"],
}


def ask(**options: Any) -> Request:
    options.setdefault("timeout_s", 5.0)
    return Request.of("Is the sky blue?", system="You are a judge.", **options)


def through(server: FaultServer, model_id: str = "openai/judge-1", **options: Any) -> LiteLLMModel:
    options.setdefault("api_key", "sk-test")
    return LiteLLMModel(model_id, api_base=server.openai_url, **options)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def settings(home: Path, server: FaultServer, **values: str) -> Settings:
    variables = {
        "JURIST_HOME": str(home),
        "JURIST_CACHE": "0",
        "JURIST_LITELLM_API_BASE": server.openai_url,
        "JURIST_LITELLM_API_KEY": "sk-proxy",
        **values,
    }
    return Settings(**variables)


# -- the request, and the answer ---------------------------------------------------------------


async def test_the_request_is_sent_whole_and_the_answer_read(fault_server: FaultServer) -> None:
    fault_server.script(
        ok(
            json={"verdict": "pass"},
            logprobs=[("{", -0.01, [("{", -0.01), (" {", -5.0)])],
            usage=(31, 4),
        )
    )
    model = through(fault_server)

    response = await model.complete(
        ask(json_schema=SCHEMA, temperature=0.3, max_tokens=77, logprobs=True, top_logprobs=2)
    )

    assert response.json == {"verdict": "pass"}
    assert response.finish_reason == "stop"
    assert response.logprobs is not None
    assert [(t.token, t.logprob) for t in response.logprobs[0].top] == [("{", -0.01), (" {", -5.0)]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (31, 4)
    assert response.usage.model == "litellm:openai/judge-1"
    sent = fault_server.requests[0]
    assert sent.headers["authorization"] == "Bearer sk-test"
    body = sent.body
    assert body["model"] == "judge-1"
    assert body["messages"] == [
        {"role": "system", "content": "You are a judge."},
        {"role": "user", "content": "Is the sky blue?"},
    ]
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.3, 77, 0)
    assert (body["logprobs"], body["top_logprobs"]) == (True, 2)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA},
    }
    assert model.capabilities.logprobs
    assert model.capabilities.json_schema


async def test_the_hosted_vllm_route_asks_for_n_samples_in_one_call(
    fault_server: FaultServer,
) -> None:
    fault_server.script(ok("yes", "no", usage=(10, 2)))
    model = through(fault_server, "hosted_vllm/Qwen/Qwen2.5-7B-Instruct")

    response = await model.complete(ask(n=2, temperature=1.0))

    assert [choice.text for choice in response.choices] == ["yes", "no"]
    assert fault_server.bodies[0]["n"] == 2
    assert fault_server.bodies[0]["model"] == "Qwen/Qwen2.5-7B-Instruct"


async def test_a_provider_without_logprobs_or_n_still_answers(fault_server: FaultServer) -> None:
    # LiteLLM's anthropic/ route to the server's Messages API: the schema becomes a forced
    # tool, logprobs and seed are left out, and n samples are n calls.
    fault_server.script(ok(json={"verdict": "fail"}, usage=(50, 6)), ok("a"), ok("b"))
    model = LiteLLMModel(
        "anthropic/claude-3-5-haiku-20241022", api_base=fault_server.url, api_key="sk-ant"
    )
    assert not model.capabilities.logprobs
    assert not model.capabilities.multiple_samples

    answer = await model.complete(ask(json_schema=SCHEMA, logprobs=True))
    samples = await model.complete(ask(n=2, temperature=1.0))

    assert answer.json == {"verdict": "fail"}
    assert answer.logprobs is None
    first = fault_server.requests[0]
    assert first.api == "anthropic"
    assert first.headers["x-api-key"] == "sk-ant"
    assert first.body["tools"][0]["input_schema"] == SCHEMA
    assert "logprobs" not in first.body
    assert "seed" not in first.body
    assert sorted(choice.text for choice in samples.choices) == ["a", "b"]
    assert samples.usage.calls == 2


async def test_a_server_rejecting_json_schema_is_asked_in_json_mode(
    fault_server: FaultServer,
) -> None:
    fault_server.script(rejects_json_schema(), ok(json={"verdict": "pass"}))
    model = through(fault_server)

    response = await model.complete(ask(json_schema=SCHEMA))

    assert response.json == {"verdict": "pass"}
    assert fault_server.bodies[1]["response_format"] == {"type": "json_object"}
    assert model.schema_mode == "json_object"
    assert not model.capabilities.json_schema


# -- failures ----------------------------------------------------------------------------------


async def test_a_rate_limit_keeps_the_wait_the_server_asked_for(fault_server: FaultServer) -> None:
    fault_server.script(rate_limited("7"))
    with pytest.raises(ModelError) as caught:
        await through(fault_server).complete(ask())
    error = caught.value
    assert error.kind is ErrorKind.RATE_LIMITED
    assert error.retry_after_s == 7.0
    assert error.status == 429
    assert error.retryable
    assert error.model == "litellm:openai/judge-1"


@pytest.mark.parametrize(
    ("reply", "kind", "retryable", "said"),
    [
        (server_error(500), ErrorKind.SERVER_ERROR, True, "HTTP 500"),
        (server_error(503), ErrorKind.SERVER_ERROR, True, "HTTP 503"),
        (unauthorized(), ErrorKind.CLIENT_ERROR, False, "check the API key"),
        (bad_request(), ErrorKind.CLIENT_ERROR, False, "HTTP 400"),
    ],
)
async def test_errors_become_model_errors_of_their_kind(
    fault_server: FaultServer, reply: Any, kind: ErrorKind, retryable: bool, said: str
) -> None:
    fault_server.script(reply)
    with pytest.raises(ModelError) as caught:
        await through(fault_server).complete(ask())
    assert caught.value.kind is kind
    assert caught.value.retryable is retryable
    assert said in str(caught.value)


async def test_a_server_too_slow_is_a_timeout(fault_server: FaultServer) -> None:
    fault_server.script(slow())
    with pytest.raises(ModelError) as caught:
        await through(fault_server).complete(ask(timeout_s=0.5))
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert caught.value.retryable


async def test_an_unreachable_server_is_a_connection_error() -> None:
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        model = LiteLLMModel("openai/judge-1", api_base=f"http://127.0.0.1:{port}/v1", api_key="k")
        with pytest.raises(ModelError) as caught:
            await model.complete(ask())
    assert caught.value.kind is ErrorKind.CONNECTION


async def test_through_get_model_a_server_error_is_retried(
    fault_server: FaultServer, home: Path
) -> None:
    fault_server.script(server_error(502), ok("yes"))
    model = get_model("litellm:openai/judge-1", settings=settings(home, fault_server))

    response = await model.complete(ask())

    assert response.text == "yes"
    assert len(fault_server.requests) == 2
    assert fault_server.requests[1].headers["authorization"] == "Bearer sk-proxy"


async def test_a_provider_that_fails_is_an_error_judgment_never_a_fail(
    fault_server: FaultServer, home: Path
) -> None:
    fault_server.default = server_error(503)
    chosen = settings(home, fault_server, JURIST_MAX_ATTEMPTS="2")
    model = get_model("litellm:openai/judge-1", settings=chosen)
    judge = judge_from_spec({"type": "criterion", "criterion": "Mentions a refund"}, model=model)

    judgment = await judge.judge(Context(goal="Refunds?", output="Refunds within 30 days."))

    assert judgment.status is Status.ERROR
    assert judgment.cause is Cause.SERVER_ERROR
    assert len(fault_server.requests) == 2  # retried once, as JURIST_MAX_ATTEMPTS says


# -- cost --------------------------------------------------------------------------------------


async def test_a_model_jurist_does_not_price_is_priced_from_litellms_map(
    fault_server: FaultServer, home: Path
) -> None:
    assert PriceTable.load().price("openai:gpt-3.5-turbo") is None
    entry = litellm.model_cost["gpt-3.5-turbo"]
    fault_server.script(ok("yes", usage=(1000, 200)))
    model = get_model("litellm:openai/gpt-3.5-turbo", settings=settings(home, fault_server))

    response = await model.complete(ask())

    expected = 1000 * entry["input_cost_per_token"] + 200 * entry["output_cost_per_token"]
    assert response.usage.cost_usd == pytest.approx(expected)
    assert response.usage.cost_usd > 0


async def test_jurists_price_table_comes_first(fault_server: FaultServer, home: Path) -> None:
    prices = home / "prices.toml"
    prices.write_text('[openai]\n"gpt-4o-mini" = { input = 1000.0, output = 0.0 }\n')
    fault_server.script(ok("yes", usage=(1000, 200)), ok("yes", usage=(1000, 200)))
    chosen = settings(home, fault_server, JURIST_PRICES=str(prices))

    routed = await get_model("litellm:openai/gpt-4o-mini", settings=chosen).complete(ask())
    bare = await get_model("litellm:gpt-4o-mini", settings=chosen).complete(ask())

    # 1000 tokens at $1000 per million: jurist's own price, not LiteLLM's $0.15.
    assert routed.usage.cost_usd == pytest.approx(1.0)
    assert bare.usage.cost_usd == pytest.approx(1.0)


async def test_a_model_nobody_prices_has_an_unknown_cost(fault_server: FaultServer) -> None:
    fault_server.script(ok("yes"))
    response = await through(fault_server, "hosted_vllm/my-finetune").complete(ask())
    assert response.usage.cost_usd is None


def test_a_model_litellm_cannot_route_is_refused_when_built(home: Path) -> None:
    with pytest.raises(ModelError) as caught:
        get_model("litellm:no-such-model-anywhere", settings=Settings(JURIST_HOME=str(home)))
    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert "LiteLLM knows no provider for 'no-such-model-anywhere'" in str(caught.value)


# -- installing and importing ------------------------------------------------------------------


def test_without_litellm_the_spec_names_the_extra(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "litellm" else real(name, *args),
    )
    with pytest.raises(ModelError) as caught:
        get_model("litellm:gpt-4o-mini", settings=Settings(JURIST_HOME=str(home)))
    assert caught.value.kind is ErrorKind.UNAVAILABLE
    assert "pip install 'jurist[litellm]'" in str(caught.value)


def test_importing_jurist_does_not_import_litellm() -> None:
    code = (
        "import sys, jurist, jurist.llm, jurist.specs, jurist.judges\n"
        "jurist.llm.parse_spec('litellm:gpt-4o-mini')\n"
        "print('litellm' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "False"
