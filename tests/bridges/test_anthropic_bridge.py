"""The Anthropic bridge on real SDK Messages built by hand."""

from typing import Any, get_args

import pytest

anthropic = pytest.importorskip("anthropic")

from anthropic.types import Message  # noqa: E402

from jurist.bridges import TRUNCATED  # noqa: E402
from jurist.bridges import anthropic as bridge  # noqa: E402
from jurist.core import Context, ExecutionStatus, Status, judge  # noqa: E402


def message(
    *content: dict[str, Any], stop_reason: str | None = "end_turn", **fields: Any
) -> Message:
    return Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": list(content) or [{"type": "text", "text": "Refunds within 30 days."}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 9},
            **fields,
        }
    )


@judge
def mentions_days(ctx: Context) -> bool:
    return "days" in ctx.output_text()


def test_message_becomes_a_context() -> None:
    ctx = bridge.from_message(message(), "Refunds?", run="nightly")
    assert ctx.output == "Refunds within 30 days."
    assert ctx.status is ExecutionStatus.SUCCESS
    assert dict(ctx.metadata) == {
        bridge.MODEL: "claude-sonnet-4-5",
        bridge.RESPONSE_ID: "msg_01",
        bridge.FINISH_REASON: "end_turn",
        bridge.USAGE: {"input_tokens": 30, "output_tokens": 9, "total_tokens": 39},
        "run": "nightly",
    }


def test_tool_use_blocks_are_tool_calls() -> None:
    ctx = bridge.from_message(
        message(
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": 42}},
            stop_reason="tool_use",
        ),
        "Where is my order?",
    )
    assert ctx.status is ExecutionStatus.SUCCESS
    assert ctx.output == "Let me look."
    assert ctx.metadata[bridge.TOOL_CALLS] == [
        {"id": "toolu_1", "name": "lookup", "arguments": {"order": 42}}
    ]


@pytest.mark.parametrize(
    ("reason", "status", "truncated"),
    [
        ("end_turn", ExecutionStatus.SUCCESS, False),
        ("tool_use", ExecutionStatus.SUCCESS, False),
        ("stop_sequence", ExecutionStatus.SUCCESS, False),
        ("max_tokens", ExecutionStatus.SUCCESS, True),
        ("refusal", ExecutionStatus.REFUSED, False),
        ("pause_turn", ExecutionStatus.UNKNOWN, False),
        (None, ExecutionStatus.UNKNOWN, False),
    ],
)
def test_stop_reasons_map_to_a_status(
    reason: str | None, status: ExecutionStatus, truncated: bool
) -> None:
    ctx = bridge.from_message(message(stop_reason=reason), "g")
    assert ctx.status is status
    assert ctx.metadata.get(TRUNCATED, False) is truncated
    assert ctx.metadata.get(bridge.FINISH_REASON) == reason


def test_stop_sequence_is_kept() -> None:
    ctx = bridge.from_message(message(stop_reason="stop_sequence", stop_sequence="END"), "g")
    assert ctx.metadata[bridge.STOP_SEQUENCE] == "END"


def test_every_stop_reason_the_sdk_declares_is_mapped_or_knowingly_unknown() -> None:
    # pause_turn is a turn the caller must continue: its output is not yet the answer.
    declared = {
        reason
        for arg in get_args(Message.model_fields["stop_reason"].annotation)
        for reason in get_args(arg)
    }
    assert "end_turn" in declared
    assert declared - set(bridge.FINISH) <= {"pause_turn"}


def test_from_result_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="takes a Message, not str"):
        bridge.from_result("text", "g")  # type: ignore[arg-type]


async def test_evaluate_judges_the_message() -> None:
    async def call() -> Message:
        return message()

    judgment = await bridge.evaluate("Refunds?", call, mentions_days)
    assert judgment.status is Status.PASS


def test_evaluate_sync_reports_a_failing_call_as_an_error() -> None:
    def call() -> Message:
        raise anthropic.APIConnectionError(request=_request())

    judgment = bridge.evaluate_sync("Refunds?", call, mentions_days)
    assert judgment.status is Status.ERROR
    assert judgment.metadata["cause"] == "error"
    assert judgment.metadata["execution_status"] == "failed"
    assert judgment.metadata["call_error"]["type"] == "anthropic.APIConnectionError"


def test_a_timeout_of_the_sdk_is_a_timeout() -> None:
    def call() -> Message:
        raise anthropic.APITimeoutError(request=_request())

    judgment = bridge.evaluate_sync("Refunds?", call, mentions_days)
    assert judgment.metadata["cause"] == "timeout"
    assert judgment.metadata["execution_status"] == "timeout"


def _request() -> Any:
    import httpx

    return httpx.Request("POST", "http://127.0.0.1/v1/messages")
