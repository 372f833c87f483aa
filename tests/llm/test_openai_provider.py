"""OpenAIModel against a real HTTP server that misbehaves on cue (tests/llm/fault_server.py)."""

import asyncio
import email.utils
import json
import socket
from collections.abc import Callable
from typing import Any

import openai
import pytest

from fault_server import (
    FaultServer,
    Reply,
    bad_request,
    error,
    html,
    not_a_completion,
    ok,
    prose,
    rate_limited,
    rejects_json_schema,
    reset,
    server_error,
    slow,
    truncated,
    unauthorized,
    wrong_shapes,
)
from jurist.llm import ErrorKind, ModelError, Request, TokenLogprob, TopLogprob
from jurist.llm._http import retry_after_s
from jurist.llm._openai import OpenAIModel
from jurist.llm._retry import Retrying

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"enum": ["pass", "fail"]}},
    "required": ["verdict"],
}


def model(server: FaultServer, **options: Any) -> OpenAIModel:
    options.setdefault("api_key", "sk-test")
    return OpenAIModel("judge-1", base_url=server.openai_url, **options)


def ask(**options: Any) -> Request:
    options.setdefault("timeout_s", 5.0)
    return Request.of("Is the sky blue?", system="You are a judge.", **options)


# -- success -------------------------------------------------------------------------------


async def test_a_completion_maps_text_finish_reason_and_usage(fault_server: FaultServer) -> None:
    fault_server.script(ok("Yes.", usage=(31, 4)))
    m = model(fault_server)

    response = await m.complete(ask())

    assert response.text == "Yes."
    assert response.json is None
    assert response.finish_reason == "stop"
    assert response.alternatives == ()
    assert response.usage.input_tokens == 31
    assert response.usage.output_tokens == 4
    assert response.usage.calls == 1
    assert response.usage.model == m.name
    assert response.usage.latency_ms is not None
    assert response.usage.latency_ms > 0
    [body] = fault_server.bodies
    assert body["model"] == "judge-1"
    assert body["messages"] == [
        {"role": "system", "content": "You are a judge."},
        {"role": "user", "content": "Is the sky blue?"},
    ]


async def test_a_schema_goes_as_response_format_and_the_answer_is_parsed(
    fault_server: FaultServer,
) -> None:
    fault_server.script(ok(json={"verdict": "pass"}))

    response = await model(fault_server).complete(ask(json_schema=SCHEMA))

    assert response.json == {"verdict": "pass"}
    assert json.loads(response.text) == {"verdict": "pass"}
    [body] = fault_server.bodies
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA},
    }
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "Schema" not in body["messages"][0]["content"]


async def test_logprobs_map_each_token_and_its_alternatives(fault_server: FaultServer) -> None:
    fault_server.script(
        ok(
            "Yes",
            logprobs=[("Yes", -0.1, [("Yes", -0.1), ("No", -2.4)]), (".", -0.01, [(".", -0.01)])],
        )
    )

    response = await model(fault_server).complete(ask(logprobs=True, top_logprobs=2))

    assert response.logprobs == (
        TokenLogprob("Yes", -0.1, (TopLogprob("Yes", -0.1), TopLogprob("No", -2.4))),
        TokenLogprob(".", -0.01, (TopLogprob(".", -0.01),)),
    )
    [body] = fault_server.bodies
    assert body["logprobs"] is True
    assert body["top_logprobs"] == 2


async def test_sampling_options_are_sent_and_samples_come_back_as_alternatives(
    fault_server: FaultServer,
) -> None:
    fault_server.script(ok("a", "b", "c"))

    response = await model(fault_server).complete(
        ask(seed=7, temperature=0.7, max_tokens=50, stop=("\n", "END"), n=3)
    )

    [body] = fault_server.bodies
    assert body["seed"] == 7
    assert body["temperature"] == 0.7
    assert body["max_tokens"] == 50
    assert body["stop"] == ["\n", "END"]
    assert body["n"] == 3
    assert [choice.text for choice in response.choices] == ["a", "b", "c"]
    assert response.usage.calls == 1


async def test_names_and_capabilities() -> None:
    assert OpenAIModel("gpt-4o-mini", api_key="sk").name == "openai:gpt-4o-mini"
    official = OpenAIModel("gpt-4o-mini", base_url="https://api.openai.com/v1/", api_key="sk")
    assert official.name == "openai:gpt-4o-mini"
    local = OpenAIModel("llama3", base_url="http://127.0.0.1:8080/v1/")
    assert local.name == "openai-compatible:llama3@http://127.0.0.1:8080/v1"
    assert OpenAIModel("x", base_url="http://h/v1", name="mine").name == "mine"
    caps = local.capabilities
    assert (caps.logprobs, caps.max_top_logprobs, caps.json_schema) == (True, 20, True)
    assert (caps.seed, caps.multiple_samples) == (True, True)


# -- every fault is a ModelError, with the right kind --------------------------------------

FAULTS: dict[str, tuple[Callable[[], Reply], ErrorKind, int | None, bool, float | None]] = {
    # name: (reply, kind, status, retryable, retry_after_s)
    "429 Retry-After seconds": (lambda: rate_limited("1"), ErrorKind.RATE_LIMITED, 429, True, 1.0),
    "429 retry-after-ms": (
        lambda: rate_limited(None, retry_after_ms="1500"),
        ErrorKind.RATE_LIMITED,
        429,
        True,
        1.5,
    ),
    "429 without Retry-After": (
        lambda: rate_limited(None),
        ErrorKind.RATE_LIMITED,
        429,
        True,
        None,
    ),
    "429 out of quota": (
        lambda: error(429, "You exceeded your current quota", code="insufficient_quota"),
        ErrorKind.RATE_LIMITED,
        429,
        False,
        None,
    ),
    "500": (lambda: server_error(500), ErrorKind.SERVER_ERROR, 500, True, None),
    "503 Retry-After": (
        lambda: error(503, "overloaded", headers={"Retry-After": "3"}),
        ErrorKind.SERVER_ERROR,
        503,
        True,
        3.0,
    ),
    "408": (lambda: error(408), ErrorKind.TIMEOUT, 408, True, None),
    "409": (lambda: error(409), ErrorKind.SERVER_ERROR, 409, True, None),
    "slow past the timeout": (lambda: slow(30), ErrorKind.TIMEOUT, None, True, None),
    "connection reset": (reset, ErrorKind.CONNECTION, None, True, None),
    "truncated JSON": (truncated, ErrorKind.SERVER_ERROR, 200, True, None),
    "prose": (prose, ErrorKind.SERVER_ERROR, 200, True, None),
    "HTML": (html, ErrorKind.SERVER_ERROR, 200, True, None),
    "JSON, not a completion": (not_a_completion, ErrorKind.SERVER_ERROR, 200, True, None),
    "JSON, wrong shapes": (wrong_shapes, ErrorKind.SERVER_ERROR, 200, True, None),
    "400": (bad_request, ErrorKind.CLIENT_ERROR, 400, False, None),
    "401": (unauthorized, ErrorKind.CLIENT_ERROR, 401, False, None),
    "403": (lambda: error(403), ErrorKind.CLIENT_ERROR, 403, False, None),
    "404": (lambda: error(404), ErrorKind.CLIENT_ERROR, 404, False, None),
    "422": (lambda: error(422), ErrorKind.CLIENT_ERROR, 422, False, None),
    "refusal": (
        lambda: ok(refusal="I can't help with that."),
        ErrorKind.REFUSED,
        None,
        False,
        None,
    ),
    "content filter": (
        lambda: ok("", finish_reason="content_filter"),
        ErrorKind.REFUSED,
        None,
        False,
        None,
    ),
    "400 content filter (Azure)": (
        lambda: error(400, "The prompt was filtered", code="content_filter"),
        ErrorKind.REFUSED,
        400,
        False,
        None,
    ),
}


def timeout_for(fault: str) -> float:
    # Short only where the timeout is the point: elsewhere a busy machine must not flip the kind.
    return 0.2 if fault.startswith("slow") else 5.0


@pytest.mark.parametrize("fault", FAULTS)
async def test_a_fault_is_a_model_error_of_the_right_kind(
    fault_server: FaultServer, fault: str
) -> None:
    reply, kind, status, retryable, retry_after = FAULTS[fault]
    fault_server.script(reply())
    m = model(fault_server)

    with pytest.raises(ModelError) as caught:
        await m.complete(ask(timeout_s=timeout_for(fault)))

    error = caught.value
    assert (error.kind, error.status, error.retryable) == (kind, status, retryable)
    assert error.retry_after_s == retry_after
    assert error.model == m.name
    assert len(fault_server.requests) == 1  # the SDK's own retries are off


@pytest.mark.parametrize("fault", FAULTS)
async def test_nothing_but_a_model_error_escapes(fault_server: FaultServer, fault: str) -> None:
    fault_server.script(FAULTS[fault][0]())
    # Every option at once, so every path of the payload and the parse is crossed.
    request = ask(
        timeout_s=timeout_for(fault), json_schema=SCHEMA, logprobs=True, top_logprobs=3, n=2
    )

    with pytest.raises(BaseException) as caught:  # noqa: PT011 - anything, to see what
        await model(fault_server).complete(request)

    assert type(caught.value) is ModelError


async def test_an_unreachable_server_is_a_connection_error() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago, and is closed now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    m = OpenAIModel("judge-1", base_url=f"http://127.0.0.1:{port}/v1")

    with pytest.raises(ModelError) as caught:
        await m.complete(ask())

    assert caught.value.kind is ErrorKind.CONNECTION
    assert caught.value.retryable


async def test_a_bad_key_says_to_check_the_key(fault_server: FaultServer) -> None:
    fault_server.script(unauthorized())

    with pytest.raises(ModelError, match="check the API key"):
        await model(fault_server).complete(ask())


async def test_cancellation_is_not_turned_into_a_model_error(fault_server: FaultServer) -> None:
    fault_server.script(slow(30))
    call = asyncio.create_task(model(fault_server).complete(ask(timeout_s=30)))
    await fault_server.wait_for_requests(1)

    call.cancel()

    with pytest.raises(asyncio.CancelledError):
        await call


# -- structured output falls back on servers without json_schema ---------------------------


async def test_a_rejected_json_schema_falls_back_to_json_mode_once_and_for_all(
    fault_server: FaultServer,
) -> None:
    fault_server.script(rejects_json_schema(), ok(json={"verdict": "fail"}))
    m = model(fault_server)

    response = await m.complete(ask(json_schema=SCHEMA))

    assert response.json == {"verdict": "fail"}
    first, second = fault_server.bodies
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object"}
    assert second["messages"][0]["role"] == "system"
    assert json.dumps(SCHEMA, sort_keys=True) in second["messages"][0]["content"]
    assert m.schema_mode == "json_object"
    assert not m.capabilities.json_schema
    assert m.capabilities.json_mode

    await m.complete(ask(json_schema=SCHEMA))  # remembered: straight to JSON mode

    assert len(fault_server.requests) == 3
    assert fault_server.bodies[2]["response_format"] == {"type": "json_object"}


async def test_a_server_without_any_response_format_gets_the_schema_in_the_prompt_only(
    fault_server: FaultServer,
) -> None:
    fault_server.script(rejects_json_schema(), rejects_json_schema(), ok(json={"verdict": "pass"}))
    m = model(fault_server)

    response = await m.complete(ask(json_schema=SCHEMA))

    assert response.json == {"verdict": "pass"}
    assert "response_format" not in fault_server.bodies[2]
    assert "JSON Schema" in fault_server.bodies[2]["messages"][0]["content"]
    assert m.schema_mode == "none"


async def test_an_unrelated_400_is_not_a_reason_to_fall_back(fault_server: FaultServer) -> None:
    fault_server.script(bad_request("'messages' must not be empty"))
    m = model(fault_server)

    with pytest.raises(ModelError) as caught:
        await m.complete(ask(json_schema=SCHEMA))

    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert len(fault_server.requests) == 1
    assert m.schema_mode == "json_schema"


async def test_without_a_schema_a_response_format_rejection_is_just_an_error(
    fault_server: FaultServer,
) -> None:
    fault_server.script(rejects_json_schema())
    m = model(fault_server)

    with pytest.raises(ModelError):
        await m.complete(ask())

    assert len(fault_server.requests) == 1
    assert m.schema_mode == "json_schema"


async def test_json_object_mode_can_be_chosen_up_front(fault_server: FaultServer) -> None:
    fault_server.script(ok(json={"verdict": "pass"}))

    await model(fault_server, schema_mode="json_object").complete(ask(json_schema=SCHEMA))

    assert fault_server.bodies[0]["response_format"] == {"type": "json_object"}


# -- clients and keys ----------------------------------------------------------------------


async def test_models_on_one_endpoint_and_key_share_one_client(fault_server: FaultServer) -> None:
    await model(fault_server).complete(ask())
    await model(fault_server).complete(ask())  # another instance: the same pooled connection
    await model(fault_server, api_key="sk-other").complete(ask())  # another key: another client

    first, second, third = (received.peer_port for received in fault_server.requests)
    assert first == second
    assert third != first


async def test_a_compatible_server_never_gets_the_openai_key(
    fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")

    await OpenAIModel("llama3", base_url=fault_server.openai_url).complete(ask())

    [received] = fault_server.requests
    assert received.headers["authorization"] == "Bearer EMPTY"


async def test_openai_without_a_key_fails_before_any_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(ModelError, match="OPENAI_API_KEY") as caught:
        await OpenAIModel("gpt-4o-mini").complete(ask())

    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert not caught.value.retryable


async def test_an_injected_client_is_used_but_its_retries_are_not(
    fault_server: FaultServer,
) -> None:
    client = openai.AsyncOpenAI(
        api_key="sk-injected", base_url=fault_server.openai_url, max_retries=3
    )
    m = OpenAIModel("judge-1", base_url=fault_server.openai_url, client=client)
    fault_server.script(server_error(500))

    with pytest.raises(ModelError):
        await m.complete(ask())

    [received] = fault_server.requests
    assert received.headers["authorization"] == "Bearer sk-injected"


# -- Retry-After ---------------------------------------------------------------------------


def test_retry_after_reads_seconds_milliseconds_and_http_dates() -> None:
    now = 1_700_000_000.0
    in_ten = email.utils.formatdate(now + 10, usegmt=True)

    assert retry_after_s({"retry-after": "2.5"}) == 2.5
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({"retry-after": in_ten}, now=now) == pytest.approx(10.0)
    assert retry_after_s({"retry-after": email.utils.formatdate(now - 60)}, now=now) == 0.0
    assert retry_after_s({"retry-after": "-3"}) == 0.0
    assert retry_after_s({"retry-after": "soon"}) is None
    assert retry_after_s({"retry-after": "nan"}) is None
    assert retry_after_s({}) is None


# -- end to end, with the Retrying middleware ----------------------------------------------


class Sleeps:
    """A `sleep` for Retrying that records the waits and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def retrying(server: FaultServer, sleeps: Sleeps, **options: Any) -> Retrying:
    return Retrying(model(server), sleep=sleeps, base_delay_s=0.01, jitter=False, **options)


async def test_a_rate_limit_is_retried_after_the_wait_the_server_asked_for(
    fault_server: FaultServer,
) -> None:
    fault_server.script(rate_limited("1"), ok("after the wait"))
    sleeps = Sleeps()

    response = await retrying(fault_server, sleeps).complete(ask())

    assert response.text == "after the wait"
    assert sleeps.delays == [1.0]
    assert len(fault_server.requests) == 2


async def test_server_errors_are_retried_until_an_answer(fault_server: FaultServer) -> None:
    fault_server.script(server_error(503), server_error(500), ok("third time"))
    sleeps = Sleeps()

    response = await retrying(fault_server, sleeps).complete(ask())

    assert response.text == "third time"
    assert len(sleeps.delays) == 2
    assert len(fault_server.requests) == 3


async def test_a_reset_connection_is_retried(fault_server: FaultServer) -> None:
    fault_server.script(reset(), ok("reconnected"))

    response = await retrying(fault_server, Sleeps()).complete(ask())

    assert response.text == "reconnected"
    assert len(fault_server.requests) == 2


async def test_a_garbled_200_is_retried(fault_server: FaultServer) -> None:
    fault_server.script(html(), ok("clean"))

    response = await retrying(fault_server, Sleeps()).complete(ask())

    assert response.text == "clean"


async def test_a_bad_request_is_not_retried(fault_server: FaultServer) -> None:
    fault_server.script(bad_request())
    sleeps = Sleeps()

    with pytest.raises(ModelError) as caught:
        await retrying(fault_server, sleeps).complete(ask())

    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert caught.value.attempts == 1
    assert sleeps.delays == []
    assert len(fault_server.requests) == 1


async def test_a_server_too_slow_every_time_is_a_timeout_after_all_attempts(
    fault_server: FaultServer,
) -> None:
    fault_server.default = slow(30)

    with pytest.raises(ModelError) as caught:
        await retrying(fault_server, Sleeps(), max_attempts=2).complete(ask(timeout_s=0.2))

    assert caught.value.kind is ErrorKind.TIMEOUT
    assert caught.value.attempts == 2
    assert len(fault_server.requests) == 2
