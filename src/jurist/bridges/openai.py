"""The OpenAI SDK's results judged: a chat completion (`ChatCompletion`) or a Responses API
`Response` becomes a Context.

    from jurist.bridges import openai as bridge

    judgment = bridge.evaluate_sync(
        "When can I get a refund?",
        lambda: client.chat.completions.create(model="gpt-4o-mini", messages=[...]),
        "criterion:The answer states the refund window",
    )

The output is the answer's text (a refusal's text when the model refused); what else the
result tells goes to metadata under the keys below. The finish reason becomes the Context's
status by `FINISH`: a finish by the model's own choice or to call tools is SUCCESS, one cut
by the token limit is SUCCESS with `truncated: True` in metadata, a content filter is
REFUSED, a failed or cancelled response FAILED or CANCELLED, anything else UNKNOWN. A
refusal in the message makes it REFUSED whatever the finish reason.
"""

from collections.abc import Mapping
from typing import Any

from jurist.bridges._common import (
    CANCELLED,
    CUT_SHORT,
    DONE,
    FAILED,
    REFUSED,
    Bridge,
    Call,
    Finish,
    arguments_of,
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
    import openai
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise missing_extra("jurist.bridges.openai", "the OpenAI SDK", "openai") from exc

MODEL = "openai.model"
RESPONSE_ID = "openai.response_id"
FINISH_REASON = "openai.finish_reason"
# {"input_tokens", "output_tokens", "total_tokens"}, those the result gives.
USAGE = "openai.usage"
# [{"id", "name", "arguments"}], the arguments read from their JSON text when they are JSON.
TOOL_CALLS = "openai.tool_calls"
# The refusal's text, when the model refused.
REFUSAL = "openai.refusal"
# A failed Response's error: {"code", "message"}.
ERROR = "openai.error"
KEYS = (MODEL, RESPONSE_ID, FINISH_REASON, USAGE, TOOL_CALLS, REFUSAL, ERROR)

# Chat completions' finish_reason, and the Responses API's status or, for an incomplete
# response, its incomplete_details.reason.
FINISH: Mapping[str, Finish] = {
    "stop": DONE,
    "tool_calls": DONE,
    "function_call": DONE,
    "completed": DONE,
    "length": CUT_SHORT,
    "max_output_tokens": CUT_SHORT,
    "content_filter": REFUSED,
    "failed": FAILED,
    "cancelled": CANCELLED,
}


def from_chat_completion(
    completion: ChatCompletion, goal: str, *, choice: int = 0, **metadata: Any
) -> Context:
    """The Context of one choice (the first by default) of a chat completion."""
    if not 0 <= choice < len(completion.choices):
        raise ValueError(f"choice {choice}: the completion has {len(completion.choices)} choice(s)")
    picked = completion.choices[choice]
    message = picked.message
    refusal = getattr(message, "refusal", None)
    reason = picked.finish_reason
    usage = completion.usage
    found = {
        MODEL: completion.model,
        RESPONSE_ID: completion.id,
        FINISH_REASON: reason,
        USAGE: usage_of(usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)
        if usage is not None
        else None,
        TOOL_CALLS: [_chat_tool_call(call) for call in message.tool_calls or ()] or None,
        REFUSAL: refusal,
    }
    output = message.content if message.content is not None else refusal
    # A refusal may end with finish_reason "stop": the refusal decides.
    finish = REFUSED if refusal else finish_of(FINISH, reason)
    return build_context(goal, output, finish, found, metadata)


def from_response(response: Response, goal: str, **metadata: Any) -> Context:
    """The Context of a Responses API response: its output text, function calls, refusal
    and, for an incomplete one, why it stopped."""
    texts: list[str] = []
    refusals: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    for item in response.output:
        kind = getattr(item, "type", None)
        if kind == "message":
            for part in getattr(item, "content", ()):
                if getattr(part, "type", None) == "output_text":
                    texts.append(part.text)
                elif getattr(part, "type", None) == "refusal":
                    refusals.append(part.refusal)
        elif kind in ("function_call", "custom_tool_call"):
            raw = getattr(item, "arguments", None) if kind == "function_call" else None
            tool_calls.append(
                {
                    "id": getattr(item, "call_id", None),
                    "name": getattr(item, "name", None),
                    "arguments": arguments_of(
                        raw if raw is not None else getattr(item, "input", None)
                    ),
                }
            )
    reason = _response_reason(response)
    usage = response.usage
    error = response.error
    found = {
        MODEL: response.model,
        RESPONSE_ID: response.id,
        FINISH_REASON: reason,
        USAGE: usage_of(usage.input_tokens, usage.output_tokens, usage.total_tokens)
        if usage is not None
        else None,
        TOOL_CALLS: tool_calls or None,
        REFUSAL: "\n".join(refusals) or None,
        ERROR: {"code": str(error.code), "message": error.message} if error else None,
    }
    output = "".join(texts) if texts else ("\n".join(refusals) or None)
    finish = REFUSED if refusals else finish_of(FINISH, reason)
    return build_context(goal, output, finish, found, metadata)


def from_result(result: ChatCompletion | Response, goal: str, **metadata: Any) -> Context:
    """The Context of either kind of result (a chat completion's first choice)."""
    if isinstance(result, ChatCompletion):
        return from_chat_completion(result, goal, **metadata)
    if isinstance(result, Response):
        return from_response(result, goal, **metadata)
    raise TypeError(
        f"the OpenAI bridge takes a ChatCompletion or a Response, not {type(result).__name__}"
    )


BRIDGE = Bridge("OpenAI", from_result, (openai.APITimeoutError,))


async def evaluate(
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    model: Model | str | None = None,
    **metadata: Any,
) -> Judgment:
    """Run `call` (no arguments; returns a ChatCompletion or a Response, or an awaitable of
    one), judge its result with `judge` (a Judge or Jury, a spec dict, or a short form such
    as "criterion:TEXT"; a spec's model-backed judges ask `model`) and return the judgment.
    `metadata` is merged over what the result tells. A call that raises is not judged: it
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


def _chat_tool_call(call: Any) -> dict[str, Any]:
    # A function call names its function; a custom tool call carries free-form input.
    function = getattr(call, "function", None)
    custom = getattr(call, "custom", None)
    source = function if function is not None else custom
    raw = getattr(source, "arguments", None) if function is not None else None
    return {
        "id": getattr(call, "id", None),
        "name": getattr(source, "name", None),
        "arguments": arguments_of(raw if raw is not None else getattr(source, "input", None)),
    }


def _response_reason(response: Response) -> str | None:
    details = response.incomplete_details
    if response.status == "incomplete" and details is not None and details.reason:
        return details.reason
    return response.status
