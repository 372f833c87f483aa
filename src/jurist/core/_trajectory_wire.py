"""Reading a conversation's wire shapes (OpenAI chat messages, Anthropic content blocks)
into a trajectory's steps. Each problem is a TrajectoryError naming the message and field.

A message may be a dict or an SDK object (anything with pydantic's `model_dump`), which is
read as the dict it dumps to.
"""

import json
from collections.abc import Mapping, Sequence
from typing import Any

from jurist.core._trajectory_steps import (
    Message,
    ToolCall,
    ToolResult,
    TrajectoryError,
    TrajectoryStep,
    json_object,
)

# Content that says nothing a judge of the run reads: pictures, files, a model's hidden
# reasoning. Skipped rather than refused, so a real conversation holding them still reads.
_OPENAI_SKIPPED_PARTS = frozenset({"image_url", "input_audio", "file"})
_ANTHROPIC_SKIPPED_BLOCKS = frozenset({"image", "document", "thinking", "redacted_thinking"})


def openai_steps(messages: Sequence[Any]) -> tuple[TrajectoryStep, ...]:
    """The steps of OpenAI chat messages: each message's text, then its `tool_calls` (the
    arguments are JSON text, or already an object); a `role: tool` message is the result of
    the call its `tool_call_id` names, which must come earlier."""
    steps: list[TrajectoryStep] = []
    call_ids: set[str] = set()
    for index, raw in enumerate(_sequence(messages)):
        where = f"messages[{index}]"
        message = _mapping(raw, where)
        role = _string(message, "role", where)
        if role == "tool":
            call_id = _known_id(message, "tool_call_id", where, call_ids)
            output = _openai_text(message.get("content"), f"{where}.content")
            steps.append(ToolResult(call_id=call_id, output=output))
            continue
        if role == "function":
            raise TrajectoryError(
                f"{where}.role: the legacy 'function' role is not read; "
                "give tool calls as `tool_calls` and their results as `role: tool` messages"
            )
        text = _openai_text(message.get("content"), f"{where}.content")
        calls = message.get("tool_calls")
        if text is not None or not calls:
            steps.append(Message(role=role, content=text or ""))
        if calls is None:
            continue
        if role != "assistant":
            raise TrajectoryError(f"{where}.tool_calls: only an assistant's message makes calls")
        for position, call in enumerate(_list(calls, f"{where}.tool_calls")):
            step = _openai_call(call, f"{where}.tool_calls[{position}]")
            if step.id is not None:
                call_ids.add(step.id)
            steps.append(step)
    return tuple(steps)


def _openai_call(raw: Any, where: str) -> ToolCall:
    call = _mapping(raw, where)
    kind = call.get("type", "function")
    if kind != "function":
        raise TrajectoryError(f"{where}.type: only 'function' calls are read, not {kind!r}")
    function = _mapping(call.get("function"), f"{where}.function")
    name = _string(function, "name", f"{where}.function")
    arguments = function.get("arguments")
    at = f"{where}.function.arguments"
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        parsed: Any = {}
    elif isinstance(arguments, str):
        try:
            parsed = json.loads(arguments, parse_constant=_no_constant)
        except ValueError as exc:
            raise TrajectoryError(f"{at}: not valid JSON: {exc}") from exc
    else:
        parsed = arguments
    return ToolCall(name=name, arguments=json_object(parsed, at), id=_optional_id(call, where))


def _openai_text(content: Any, where: str) -> str | None:
    """A message's content as text: a string, or the text (and refusal) parts of a list
    joined by newlines; None when it has none."""
    if content is None or isinstance(content, str):
        return content
    parts: list[str] = []
    for index, raw in enumerate(_list(content, where)):
        at = f"{where}[{index}]"
        part = _mapping(raw, at)
        kind = _string(part, "type", at)
        if kind in ("text", "refusal"):
            parts.append(_string(part, kind, at, empty=True))
        elif kind not in _OPENAI_SKIPPED_PARTS:
            raise TrajectoryError(f"{at}.type: unknown content part {kind!r}")
    return "\n".join(parts) if parts else None


def anthropic_steps(messages: Sequence[Any]) -> tuple[TrajectoryStep, ...]:
    """The steps of Anthropic messages: a message's text (its neighbouring text blocks
    joined), each `tool_use` block as a call and each `tool_result` block as the result of
    the call its `tool_use_id` names, which must come earlier; `is_error: true` makes the
    result's content its error."""
    steps: list[TrajectoryStep] = []
    call_ids: set[str] = set()
    for index, raw in enumerate(_sequence(messages)):
        where = f"messages[{index}]"
        message = _mapping(raw, where)
        role = _string(message, "role", where)
        content = message.get("content")
        if isinstance(content, str):
            steps.append(Message(role=role, content=content))
            continue
        text: list[str] = []
        for position, raw_block in enumerate(_list(content, f"{where}.content")):
            at = f"{where}.content[{position}]"
            block = _mapping(raw_block, at)
            kind = _string(block, "type", at)
            if kind == "text":
                text.append(_string(block, "text", at, empty=True))
                continue
            if kind in _ANTHROPIC_SKIPPED_BLOCKS:
                continue
            if text:
                steps.append(Message(role=role, content="\n".join(text)))
                text = []
            if kind == "tool_use":
                call = ToolCall(
                    name=_string(block, "name", at),
                    arguments=json_object(block.get("input", {}), f"{at}.input"),
                    id=_optional_id(block, at),
                )
                if call.id is not None:
                    call_ids.add(call.id)
                steps.append(call)
            elif kind == "tool_result":
                steps.append(_anthropic_result(block, at, call_ids))
            else:
                raise TrajectoryError(f"{at}.type: unknown content block {kind!r}")
        if text:
            steps.append(Message(role=role, content="\n".join(text)))
    return tuple(steps)


def _anthropic_result(block: Mapping[str, Any], where: str, call_ids: set[str]) -> ToolResult:
    call_id = _known_id(block, "tool_use_id", where, call_ids)
    content = block.get("content")
    if content is None or isinstance(content, str):
        text = content
    else:
        parts = []
        for index, raw in enumerate(_list(content, f"{where}.content")):
            at = f"{where}.content[{index}]"
            part = _mapping(raw, at)
            if _string(part, "type", at) == "text":
                parts.append(_string(part, "text", at, empty=True))
        text = "\n".join(parts)
    is_error = block.get("is_error", False)
    if not isinstance(is_error, bool | None):
        raise TrajectoryError(f"{where}.is_error: must be true or false, not {is_error!r}")
    if is_error:
        return ToolResult(call_id=call_id, error=text or "the tool reported an error")
    return ToolResult(call_id=call_id, output=text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _sequence(messages: Any) -> Sequence[Any]:
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
        kind = type(messages).__name__
        raise TrajectoryError(f"messages: must be a list of messages, not {kind}")
    return messages


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        value = dump(mode="json", exclude_none=True)
    if not isinstance(value, Mapping):
        raise TrajectoryError(f"{where}: must be an object, not {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise TrajectoryError(f"{where}: must be a list, not {type(value).__name__}")
    return list(value)


def _string(data: Mapping[str, Any], key: str, where: str, *, empty: bool = False) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        problem = "is missing" if value is None else f"must be a string, not {value!r}"
        raise TrajectoryError(f"{where}.{key}: {problem}")
    if not value and not empty:
        raise TrajectoryError(f"{where}.{key}: must not be empty")
    return value


def _optional_id(data: Mapping[str, Any], where: str) -> str | None:
    value = data.get("id")
    if value is not None and not isinstance(value, str):
        raise TrajectoryError(f"{where}.id: must be a string, not {value!r}")
    return value


def _known_id(data: Mapping[str, Any], key: str, where: str, call_ids: set[str]) -> str:
    call_id = _string(data, key, where)
    if call_id not in call_ids:
        raise TrajectoryError(f"{where}.{key}: no earlier tool call has the id {call_id!r}")
    return call_id
