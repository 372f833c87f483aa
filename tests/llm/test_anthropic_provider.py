"""AnthropicModel against a real HTTP server that misbehaves on cue (tests/llm/fault_server.py)."""

import json
from collections.abc import Callable
from typing import Any

import anthropic
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
    reset,
    server_error,
    slow,
    truncated,
    unauthorized,
    wrong_shapes,
)
from jurist.llm import ErrorKind, ModelError, Request
from jurist.llm._anthropic import AnthropicModel
from jurist.llm._retry import Retrying

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"enum": ["pass", "fail"]}},
    "required": ["verdict"],
}


def model(server: FaultServer, **options: Any) -> AnthropicModel:
    options.setdefault("api_key", "sk-ant-test")
    return AnthropicModel("claude-judge", base_url=server.url, **options)


def ask(**options: Any) -> Request:
    options.setdefault("timeout_s", 5.0)
    return Request.of("Is the sky blue?", system="You are a judge.", **options)


async def test_a_message_maps_text_finish_reason_and_usage(fault_server: FaultServer) -> None:
    fault_server.script(ok("Yes.", usage=(40, 5)))
    m = model(fault_server)

    response = await m.complete(ask(max_tokens=50, stop=("END",)))

    assert response.text == "Yes."
    assert response.json is None
    assert response.finish_reason == "stop"
    assert response.logprobs is None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 5)
    assert response.usage.calls == 1
    assert response.usage.model == "anthropic:claude-judge"
    assert response.usage.latency_ms is not None
    assert response.usage.latency_ms > 0
    [body] = fault_server.bodies
    assert body["model"] == "claude-judge"
    assert body["system"] == "You are a judge."
    assert body["messages"] == [{"role": "user", "content": "Is the sky blue?"}]
    assert body["max_tokens"] == 50
    assert body["stop_sequences"] == ["END"]
    # API 2026-10-21 rejects sampling parameters; Anthropic has no seed.
    assert "temperature" not in body
    assert "seed" not in body


async def test_max_tokens_defaults_to_1024_and_the_key_is_sent(fault_server: FaultServer) -> None:
    await model(fault_server).complete(ask(max_tokens=None))

    [received] = fault_server.requests
    assert received.body["max_tokens"] == 1024
    sent = {received.headers.get("x-api-key"), received.headers.get("authorization")}
    assert sent & {"sk-ant-test", "Bearer sk-ant-test"}


async def test_a_schema_is_answered_through_a_forced_tool_call(fault_server: FaultServer) -> None:
    fault_server.script(ok(json={"verdict": "pass"}))

    response = await model(fault_server).complete(ask(json_schema=SCHEMA))

    assert response.json == {"verdict": "pass"}
    assert json.loads(response.text) == {"verdict": "pass"}
    assert response.finish_reason == "stop"
    [body] = fault_server.bodies
    [tool] = body["tools"]
    assert tool["name"] == "answer"
    assert tool["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}


async def test_a_schema_for_a_non_object_is_wrapped_and_unwrapped(
    fault_server: FaultServer,
) -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    fault_server.script(ok(json={"answer": [1, 2, 3]}))

    response = await model(fault_server).complete(ask(json_schema=schema))

    assert response.json == [1, 2, 3]
    assert response.text == "[1, 2, 3]"
    input_schema = fault_server.bodies[0]["tools"][0]["input_schema"]
    assert input_schema["type"] == "object"
    assert input_schema["properties"]["answer"] == schema


async def test_logprobs_asked_for_are_simply_absent(fault_server: FaultServer) -> None:
    m = model(fault_server)

    response = await m.complete(ask(logprobs=True, top_logprobs=5))

    assert response.logprobs is None
    assert not m.capabilities.logprobs
    assert "logprobs" not in fault_server.bodies[0]


async def test_n_samples_are_n_calls_summed_in_usage(fault_server: FaultServer) -> None:
    fault_server.script(ok("a", usage=(10, 1)), ok("b", usage=(10, 2)), ok("c", usage=(10, 3)))

    response = await model(fault_server).complete(ask(n=3))

    assert len(fault_server.requests) == 3
    assert sorted(choice.text for choice in response.choices) == ["a", "b", "c"]
    assert response.usage.calls == 3
    assert (response.usage.input_tokens, response.usage.output_tokens) == (30, 6)
    assert response.usage.latency_ms is not None  # summed, not lost to an empty start


async def test_one_failed_sample_fails_the_call_without_waiting_for_the_rest(
    fault_server: FaultServer,
) -> None:
    fault_server.script(slow(30), bad_request())

    with pytest.raises(ModelError) as caught:
        await model(fault_server).complete(ask(n=2))

    assert caught.value.kind is ErrorKind.CLIENT_ERROR


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("pause_turn", "pause_turn"),
    ],
)
async def test_stop_reasons_become_finish_reasons(
    fault_server: FaultServer, stop_reason: str, finish_reason: str
) -> None:
    fault_server.script(ok("x", stop_reason=stop_reason))

    response = await model(fault_server).complete(ask())

    assert response.finish_reason == finish_reason


async def test_name_and_capabilities() -> None:
    m = AnthropicModel("claude-sonnet-4-5", api_key="k")
    assert m.name == "anthropic:claude-sonnet-4-5"
    assert AnthropicModel("c", name="mine").name == "mine"
    caps = m.capabilities
    assert (caps.logprobs, caps.json_schema, caps.seed, caps.multiple_samples) == (
        False,
        True,
        False,
        False,
    )


FAULTS: dict[str, tuple[Callable[[], Reply], ErrorKind, int | None, bool, float | None]] = {
    # name: (reply, kind, status, retryable, retry_after_s)
    "429 Retry-After": (lambda: rate_limited("7"), ErrorKind.RATE_LIMITED, 429, True, 7.0),
    "529 overloaded": (lambda: error(529, "Overloaded"), ErrorKind.SERVER_ERROR, 529, True, None),
    "500": (lambda: server_error(500), ErrorKind.SERVER_ERROR, 500, True, None),
    "503": (lambda: server_error(503), ErrorKind.SERVER_ERROR, 503, True, None),
    "408": (lambda: error(408), ErrorKind.TIMEOUT, 408, True, None),
    "409": (lambda: error(409), ErrorKind.SERVER_ERROR, 409, True, None),
    "slow past the timeout": (lambda: slow(30), ErrorKind.TIMEOUT, None, True, None),
    "connection reset": (reset, ErrorKind.CONNECTION, None, True, None),
    "truncated JSON": (truncated, ErrorKind.SERVER_ERROR, 200, True, None),
    "prose": (prose, ErrorKind.SERVER_ERROR, 200, True, None),
    "HTML": (html, ErrorKind.SERVER_ERROR, 200, True, None),
    "JSON, not a message": (not_a_completion, ErrorKind.SERVER_ERROR, 200, True, None),
    "JSON, wrong shapes": (wrong_shapes, ErrorKind.SERVER_ERROR, 200, True, None),
    "400": (bad_request, ErrorKind.CLIENT_ERROR, 400, False, None),
    "401": (unauthorized, ErrorKind.CLIENT_ERROR, 401, False, None),
    "403": (lambda: error(403), ErrorKind.CLIENT_ERROR, 403, False, None),
    "404": (lambda: error(404), ErrorKind.CLIENT_ERROR, 404, False, None),
    "413": (lambda: error(413), ErrorKind.CLIENT_ERROR, 413, False, None),
    "refusal": (lambda: ok("", stop_reason="refusal"), ErrorKind.REFUSED, None, False, None),
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
    request = ask(timeout_s=timeout_for(fault), json_schema=SCHEMA, logprobs=True, top_logprobs=3)

    with pytest.raises(BaseException) as caught:  # noqa: PT011 - anything, to see what
        await model(fault_server).complete(request)

    assert type(caught.value) is ModelError


async def test_a_bad_key_says_to_check_the_key(fault_server: FaultServer) -> None:
    fault_server.script(unauthorized())

    with pytest.raises(ModelError, match="check the API key"):
        await model(fault_server).complete(ask())


async def test_models_on_one_endpoint_and_key_share_one_client(fault_server: FaultServer) -> None:
    await model(fault_server).complete(ask())
    await model(fault_server).complete(ask())
    await model(fault_server, api_key="sk-ant-other").complete(ask())

    first, second, third = (received.peer_port for received in fault_server.requests)
    assert first == second
    assert third != first


async def test_an_injected_client_is_used_but_its_retries_are_not(
    fault_server: FaultServer,
) -> None:
    client = anthropic.AsyncAnthropic(
        api_key="sk-ant-injected", base_url=fault_server.url, max_retries=3
    )
    fault_server.script(server_error(500))

    with pytest.raises(ModelError):
        await AnthropicModel("claude-judge", client=client).complete(ask())

    [received] = fault_server.requests
    assert (
        "sk-ant-injected"
        in f"{received.headers.get('x-api-key')} {received.headers.get('authorization')}"
    )


async def test_overloaded_then_an_answer_succeeds_through_retrying(
    fault_server: FaultServer,
) -> None:
    fault_server.script(error(529, "Overloaded"), rate_limited("2"), ok("at last"))
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)

    retrying = Retrying(model(fault_server), sleep=sleep, base_delay_s=0.01, jitter=False)
    response = await retrying.complete(ask())

    assert response.text == "at last"
    assert delays == [0.01, 2.0]
    assert len(fault_server.requests) == 3
