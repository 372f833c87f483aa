"""The OpenAI bridge on real SDK objects built by hand: chat completions and Responses API
responses become Contexts; evaluate runs a call and judges its result."""

from typing import Any, get_args

import pytest

openai = pytest.importorskip("openai")

from openai.types.chat import ChatCompletion  # noqa: E402
from openai.types.chat.chat_completion import Choice  # noqa: E402
from openai.types.responses import Response  # noqa: E402

from jurist.bridges import TRUNCATED  # noqa: E402
from jurist.bridges import openai as bridge  # noqa: E402
from jurist.core import Context, ExecutionStatus, Judgment, Status, judge  # noqa: E402
from jurist.testing import FakeModel  # noqa: E402


def completion(
    content: str | None = "Refunds within 30 days.",
    finish_reason: str = "stop",
    **message: Any,
) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish_reason,
                    "message": {"role": "assistant", "content": content, **message},
                }
            ],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
        }
    )


def response(output: list[dict[str, Any]], **fields: Any) -> Response:
    return Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 1700000000,
            "model": "gpt-4.1",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "status": "completed",
            "usage": {
                "input_tokens": 20,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": 7,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 27,
            },
            **fields,
        }
    )


def message(*parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": list(parts),
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "output_text", "text": value, "annotations": []}


@judge
def mentions_days(ctx: Context) -> bool:
    return "days" in ctx.output_text()


def test_chat_completion_becomes_a_context() -> None:
    ctx = bridge.from_chat_completion(completion(), "Refunds?", run="nightly")
    assert ctx.goal == "Refunds?"
    assert ctx.output == "Refunds within 30 days."
    assert ctx.status is ExecutionStatus.SUCCESS
    assert dict(ctx.metadata) == {
        bridge.MODEL: "gpt-4o-mini",
        bridge.RESPONSE_ID: "chatcmpl-1",
        bridge.FINISH_REASON: "stop",
        bridge.USAGE: {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17},
        "run": "nightly",
    }


def test_caller_metadata_wins_over_what_the_result_tells() -> None:
    ctx = bridge.from_result(completion(), "Refunds?", **{bridge.MODEL: "mine"})
    assert ctx.metadata[bridge.MODEL] == "mine"


def test_chat_tool_calls_are_read_with_their_arguments() -> None:
    calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "lookup", "arguments": '{"order": 42}'},
        },
        {"id": "call_2", "type": "function", "function": {"name": "raw", "arguments": "{oops"}},
    ]
    ctx = bridge.from_chat_completion(
        completion(None, "tool_calls", tool_calls=calls), "Where is my order?"
    )
    assert ctx.status is ExecutionStatus.SUCCESS
    assert ctx.output is None
    assert ctx.metadata[bridge.TOOL_CALLS] == [
        {"id": "call_1", "name": "lookup", "arguments": {"order": 42}},
        {"id": "call_2", "name": "raw", "arguments": "{oops"},
    ]


@pytest.mark.parametrize(
    ("reason", "status", "truncated"),
    [
        ("stop", ExecutionStatus.SUCCESS, False),
        ("tool_calls", ExecutionStatus.SUCCESS, False),
        ("function_call", ExecutionStatus.SUCCESS, False),
        ("length", ExecutionStatus.SUCCESS, True),
        ("content_filter", ExecutionStatus.REFUSED, False),
    ],
)
def test_chat_finish_reasons_map_to_a_status(
    reason: str, status: ExecutionStatus, truncated: bool
) -> None:
    ctx = bridge.from_chat_completion(completion(finish_reason=reason), "Refunds?")
    assert ctx.status is status
    assert ctx.metadata.get(TRUNCATED, False) is truncated
    assert ctx.metadata[bridge.FINISH_REASON] == reason


def test_chat_refusal_is_refused_and_is_the_output() -> None:
    ctx = bridge.from_chat_completion(
        completion(None, "stop", refusal="I can't help with that."), "Bad request"
    )
    assert ctx.status is ExecutionStatus.REFUSED
    assert ctx.output == "I can't help with that."
    assert ctx.metadata[bridge.REFUSAL] == "I can't help with that."


def test_chat_choice_is_picked_and_checked() -> None:
    done = completion()
    two = done.model_copy(
        update={
            "choices": [
                done.choices[0],
                done.choices[0].model_copy(
                    update={
                        "index": 1,
                        "message": done.choices[0].message.model_copy(update={"content": "B"}),
                    }
                ),
            ]
        }
    )
    assert bridge.from_chat_completion(two, "g", choice=1).output == "B"
    with pytest.raises(ValueError, match=r"choice 2: the completion has 2 choice"):
        bridge.from_chat_completion(two, "g", choice=2)


def test_response_becomes_a_context() -> None:
    result = response(
        [
            message(text("Refunds within "), text("30 days.")),
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_9",
                "name": "lookup",
                "arguments": '{"order": 7}',
                "status": "completed",
            },
        ]
    )
    ctx = bridge.from_result(result, "Refunds?")
    assert ctx.output == "Refunds within 30 days."
    assert ctx.status is ExecutionStatus.SUCCESS
    assert dict(ctx.metadata) == {
        bridge.MODEL: "gpt-4.1",
        bridge.RESPONSE_ID: "resp_1",
        bridge.FINISH_REASON: "completed",
        bridge.USAGE: {"input_tokens": 20, "output_tokens": 7, "total_tokens": 27},
        bridge.TOOL_CALLS: [{"id": "call_9", "name": "lookup", "arguments": {"order": 7}}],
    }


@pytest.mark.parametrize(
    ("fields", "reason", "status", "truncated"),
    [
        ({"status": "completed"}, "completed", ExecutionStatus.SUCCESS, False),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            "max_output_tokens",
            ExecutionStatus.SUCCESS,
            True,
        ),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}},
            "content_filter",
            ExecutionStatus.REFUSED,
            False,
        ),
        ({"status": "incomplete"}, "incomplete", ExecutionStatus.UNKNOWN, False),
        ({"status": "cancelled"}, "cancelled", ExecutionStatus.CANCELLED, False),
        ({"status": "in_progress"}, "in_progress", ExecutionStatus.UNKNOWN, False),
        ({"status": None}, None, ExecutionStatus.UNKNOWN, False),
    ],
)
def test_response_status_maps_to_a_status(
    fields: dict[str, Any], reason: str | None, status: ExecutionStatus, truncated: bool
) -> None:
    ctx = bridge.from_response(response([message(text("Partial"))], **fields), "g")
    assert ctx.status is status
    assert ctx.metadata.get(TRUNCATED, False) is truncated
    assert ctx.metadata.get(bridge.FINISH_REASON) == reason


def test_failed_response_keeps_its_error() -> None:
    failed = response(
        [], status="failed", error={"code": "server_error", "message": "The model broke."}
    )
    ctx = bridge.from_response(failed, "g")
    assert ctx.status is ExecutionStatus.FAILED
    assert ctx.output is None
    assert ctx.metadata[bridge.ERROR] == {"code": "server_error", "message": "The model broke."}


def test_response_refusal_is_refused() -> None:
    refused = response([message({"type": "refusal", "refusal": "I won't do that."})])
    ctx = bridge.from_response(refused, "g")
    assert ctx.status is ExecutionStatus.REFUSED
    assert ctx.output == "I won't do that."
    assert ctx.metadata[bridge.REFUSAL] == "I won't do that."


def test_every_finish_reason_the_sdk_declares_is_in_the_table() -> None:
    # A finish reason the SDK may send and the table forgot would read as UNKNOWN.
    reasons = get_args(Choice.model_fields["finish_reason"].annotation)
    assert reasons
    assert set(reasons) <= set(bridge.FINISH)


def test_from_result_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="takes a ChatCompletion or a Response, not dict"):
        bridge.from_result({"choices": []}, "g")  # type: ignore[arg-type]


async def test_evaluate_judges_what_an_async_call_returns() -> None:
    async def call() -> ChatCompletion:
        return completion()

    judgment = await bridge.evaluate("Refunds?", call, mentions_days, suite="smoke")
    assert judgment.status is Status.PASS


def test_evaluate_sync_with_a_spec_and_a_fake_model() -> None:
    model = FakeModel({"answer": "no", "reason": "No window is given."})
    judgment = bridge.evaluate_sync(
        "Refunds?",
        lambda: completion("Ask the shop."),
        "criterion:The answer states the refund window",
        model=model,
    )
    assert judgment.status is Status.FAIL
    assert "Ask the shop." in model.prompts[0]


def test_evaluate_sees_the_context_the_bridge_built() -> None:
    seen: list[Context] = []

    @judge
    def record(ctx: Context) -> Judgment:
        seen.append(ctx)
        return Judgment.ok("seen")

    bridge.evaluate_sync("Refunds?", lambda: completion(finish_reason="length"), record, run=3)
    (ctx,) = seen
    assert ctx.status is ExecutionStatus.SUCCESS
    assert ctx.metadata[TRUNCATED] is True
    assert ctx.metadata["run"] == 3
    assert ctx.started_at is not None
    assert ctx.duration is not None


def test_a_timeout_of_the_sdk_is_an_error_with_cause_timeout() -> None:
    def call() -> ChatCompletion:
        raise openai.APITimeoutError(request=_request())

    judgment = bridge.evaluate_sync("Refunds?", call, mentions_days, suite="smoke")
    assert judgment.status is Status.ERROR
    assert judgment.metadata["cause"] == "timeout"
    assert judgment.metadata["execution_status"] == "timeout"
    assert judgment.metadata["call_error"]["type"] == "openai.APITimeoutError"
    assert judgment.metadata["suite"] == "smoke"


def _request() -> Any:
    import httpx

    return httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
