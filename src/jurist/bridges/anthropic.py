"""The Anthropic SDK's results judged: a `Message` becomes a Context.

    from jurist.bridges import anthropic as bridge

    judgment = bridge.evaluate_sync(
        "When can I get a refund?",
        lambda: client.messages.create(model="claude-...", max_tokens=512, messages=[...]),
        "criterion:The answer states the refund window",
    )

The output is the text of the message's text blocks; its tool_use blocks go to metadata
under `anthropic.tool_calls`. The stop reason becomes the Context's status by `FINISH`:
end_turn, tool_use and stop_sequence are SUCCESS, max_tokens (and a full context window) is
SUCCESS with `truncated: True` in metadata, refusal is REFUSED, anything else (pause_turn, a
reason this bridge does not know, none) UNKNOWN.
"""

from collections.abc import Mapping
from typing import Any

from jurist.bridges._common import (
    CUT_SHORT,
    DONE,
    REFUSED,
    Bridge,
    Call,
    Finish,
    build_context,
    evaluate_call,
    finish_of,
    missing_extra,
    usage_of,
)
from jurist.core import Context, Judgment, run_sync
from jurist.llm import Model
from jurist.specs import JudgeOrSpec

try:
    import anthropic
    from anthropic.types import Message
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise missing_extra("jurist.bridges.anthropic", "the Anthropic SDK", "anthropic") from exc

MODEL = "anthropic.model"
RESPONSE_ID = "anthropic.response_id"
# The message's stop_reason.
FINISH_REASON = "anthropic.finish_reason"
# The stop sequence that ended the message, when one did.
STOP_SEQUENCE = "anthropic.stop_sequence"
# {"input_tokens", "output_tokens", "total_tokens"}.
USAGE = "anthropic.usage"
# [{"id", "name", "arguments"}], one per tool_use block, its input as the arguments.
TOOL_CALLS = "anthropic.tool_calls"
KEYS = (MODEL, RESPONSE_ID, FINISH_REASON, STOP_SEQUENCE, USAGE, TOOL_CALLS)

FINISH: Mapping[str, Finish] = {
    "end_turn": DONE,
    "tool_use": DONE,
    "stop_sequence": DONE,
    "max_tokens": CUT_SHORT,
    "model_context_window_exceeded": CUT_SHORT,
    "refusal": REFUSED,
}


def from_message(message: Message, goal: str, **metadata: Any) -> Context:
    """The Context of a Message."""
    texts: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    for block in message.content:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(getattr(block, "text", ""))
        elif kind == "tool_use":
            tool_calls.append(
                {
                    "id": getattr(block, "id", None),
                    "name": getattr(block, "name", None),
                    "arguments": getattr(block, "input", None),
                }
            )
    usage = message.usage
    found = {
        MODEL: message.model,
        RESPONSE_ID: message.id,
        FINISH_REASON: message.stop_reason,
        STOP_SEQUENCE: message.stop_sequence,
        USAGE: usage_of(usage.input_tokens, usage.output_tokens),
        TOOL_CALLS: tool_calls or None,
    }
    output = "".join(texts) if texts else None
    return build_context(goal, output, finish_of(FINISH, message.stop_reason), found, metadata)


def from_result(result: Message, goal: str, **metadata: Any) -> Context:
    """The Context of a Message; a TypeError for anything else."""
    if not isinstance(result, Message):
        raise TypeError(f"the Anthropic bridge takes a Message, not {type(result).__name__}")
    return from_message(result, goal, **metadata)


BRIDGE = Bridge("Anthropic", from_result, (anthropic.APITimeoutError,))


async def evaluate(
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    model: Model | str | None = None,
    **metadata: Any,
) -> Judgment:
    """Run `call` (no arguments; returns a Message, or an awaitable of one), judge the
    message with `judge` (a Judge or Jury, a spec dict, or a short form such as
    "criterion:TEXT"; a spec's model-backed judges ask `model`) and return the judgment.
    `metadata` is merged over what the message tells. A call that raises is not judged: it
    comes back as an ERROR judgment (see jurist.bridges)."""
    return await evaluate_call(BRIDGE, goal, call, judge, model=model, metadata=metadata)


def evaluate_sync(
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    model: Model | str | None = None,
    **metadata: Any,
) -> Judgment:
    """`evaluate` from sync code (inside a running loop too, as `jurist.core.run_sync`)."""
    return run_sync(lambda: evaluate(goal, call, judge, model=model, **metadata))
