"""Structured output: find the JSON in an answer, check it against the schema, re-ask once."""

import dataclasses
import functools
import itertools
import json
import logging
import re
from collections.abc import Iterator, Sequence
from importlib import resources
from string import Template
from typing import Any

import jsonschema_rs
from pydantic import JsonValue

from jurist.llm._types import Choice, ErrorKind, Message, ModelError, Request, Response
from jurist.llm._wire_json import schema_key
from jurist.llm._wrapper import ModelWrapper

logger = logging.getLogger(__name__)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n(.*?)```", re.DOTALL)
_OPENER = re.compile(r"[{\[]")
_CLOSER = {"{": "}", "[": "]"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SHOWN_ERRORS = 10


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _loads(text: str) -> JsonValue:
    value, end = _DECODER.raw_decode(text)
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    result: JsonValue = value
    return result


def json_candidates(text: str) -> Iterator[JsonValue]:
    """Every JSON value `text` plausibly holds as its answer, most plausible first.

    The whole text, if it is JSON, is the only candidate. Otherwise: the bodies of fenced
    blocks (```json or bare ```), then each object or array that stands in the prose, in
    order, each value once. Nothing is guessed: no repair of truncated JSON or of quotes.
    A bracketed span that is not JSON is skipped whole, so a fragment of a broken object is
    never taken for the answer; an opener never closed means the rest is inside it (a
    truncated answer), and the search ends there.
    """
    stripped = text.strip()
    try:
        whole = _loads(stripped)
    except ValueError:
        pass
    else:
        yield whole
        return
    seen: set[str] = set()
    for value in _fenced_then_embedded(text):
        key = json.dumps(value, sort_keys=True)
        if key not in seen:
            seen.add(key)
            yield value


def _fenced_then_embedded(text: str) -> Iterator[JsonValue]:
    for match in _FENCE.finditer(text):
        if match.group(1).lower() not in ("", "json"):
            continue
        try:
            fenced = _loads(match.group(2).strip())
        except ValueError:
            continue
        yield fenced
    yield from _embedded(text)


def _embedded(text: str) -> Iterator[JsonValue]:
    position = 0
    while (match := _OPENER.search(text, position)) is not None:
        start = match.start()
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            span_end = _span_end(text, start)
            if span_end is None:
                return
            position = span_end
            continue
        yield value
        position = end


def _span_end(text: str, start: int) -> int | None:
    """Where the bracketed span opening at `start` ends (JSON strings respected); None when
    it never closes. A mismatched closer ends the span just after the opener."""
    stack = [_CLOSER[text[start]]]
    in_string = escaped = False
    for index in range(start + 1, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSER:
            stack.append(_CLOSER[char])
        elif char in "}]":
            if char != stack.pop():
                return start + 1
            if not stack:
                return index + 1
    return None


def extract_json(text: str) -> JsonValue:
    """The JSON value in a model's answer: the first of `json_candidates(text)`.

    Raises ValueError when the text holds none.
    """
    for value in json_candidates(text):
        return value
    raise ValueError("no JSON value found: the answer is neither JSON nor holds a JSON object")


@functools.lru_cache(maxsize=64)
def _compiled(schema_text: bytes | str) -> Any:
    # offline: a model answer is never a reason to fetch a remote $ref.
    return jsonschema_rs.validator_for(json.loads(schema_text), offline=True)


def _validator(schema: dict[str, JsonValue], model: str) -> Any:
    try:
        return _compiled(schema_key(schema))
    except (ValueError, jsonschema_rs.ReferencingError) as exc:
        raise ModelError(
            ErrorKind.CLIENT_ERROR,
            f"the request's json_schema is not a valid JSON Schema: {_first_line(exc)}",
            model=model,
            retryable=False,
        ) from exc


def _first_line(exc: BaseException) -> str:
    # jsonschema_rs appends a multi-line excerpt of the schema; the first line says it all.
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def json_path(parts: Sequence[str | int], instance: Any) -> str:
    """A JSONPath for an error location: ["items", 2, "price"] -> "$.items[2].price".

    jsonschema_rs reports a numeric-looking object key as an int, so the instance is walked
    to tell keys from indices."""
    path = "$"
    node = instance
    for part in parts:
        if isinstance(part, int) and isinstance(node, list):
            path += f"[{part}]"
            node = node[part] if 0 <= part < len(node) else None
            continue
        key = str(part)
        path += f".{key}" if _IDENTIFIER.match(key) else f"[{json.dumps(key)}]"
        node = node.get(key) if isinstance(node, dict) else None
    return path


def _violations(validator: Any, value: JsonValue) -> list[str]:
    return [
        f"{json_path(error.instance_path, value)}: {error.message}"
        for error in validator.iter_errors(value)
    ]


@dataclasses.dataclass(frozen=True)
class _Checked:
    choice: Choice
    valid: bool
    problem: str = ""


def _check(choice: Choice, validator: Any) -> _Checked:
    """The choice with its JSON set to the first candidate valid against the schema, or the
    problem with the first candidate (or the lack of any)."""
    # Candidates are found as they are needed: the JSON the provider parsed is most often
    # the answer, and then the text is not searched again.
    given: list[JsonValue] = [] if choice.json is None else [choice.json]
    first_violations: list[str] | None = None
    any_candidate = False
    for value in itertools.chain(given, json_candidates(choice.text)):
        any_candidate = True
        violations = _violations(validator, value)
        if not violations:
            valid = choice if value is choice.json else dataclasses.replace(choice, json=value)
            return _Checked(valid, True)
        first_violations = first_violations or violations
    if not any_candidate:
        return _Checked(choice, False, "it holds no JSON value")
    shown = first_violations or []
    listed = "\n".join(f"- {line}" for line in shown[:_SHOWN_ERRORS])
    more = len(shown) - _SHOWN_ERRORS
    if more > 0:
        listed += f"\n- and {more} more"
    return _Checked(choice, False, f"its JSON does not follow the schema:\n{listed}")


def _one_line(problem: str) -> str:
    head, *items = problem.splitlines()
    return " ".join([head, "; ".join(item.removeprefix("- ") for item in items)]).strip()


@functools.cache
def _reask_template() -> Template:
    text = resources.files("jurist.llm").joinpath("prompts/reask.txt").read_text("utf-8")
    return Template(text)


def reask_prompt(problem: str, schema: dict[str, JsonValue]) -> str:
    """The user turn that follows a bad answer (the template is prompts/reask.txt)."""
    return _reask_template().substitute(
        error=problem, schema=json.dumps(schema, indent=2, sort_keys=True)
    )


class Structured(ModelWrapper):
    """Makes an answer to a request with a `json_schema` JSON valid against it, or fails.

    The JSON is taken from the answer tolerantly (see `json_candidates`; a provider's own
    parse comes first) and validated with every violation reported by JSON path. A bad
    answer gets exactly one re-ask: the conversation so far, the bad answer, and a user turn
    quoting the problem. Still bad, it is `ModelError(UNPARSEABLE)`. The usage of both calls
    is summed. An invalid schema is a `ModelError(CLIENT_ERROR)` before any call.

    With n > 1 every sample is checked; the bad ones are re-asked together in one call
    (n = how many were bad, the first bad answer quoted) and replaced, in place, by the
    valid answers it brings. Samples still bad after that are dropped, so a response may
    hold fewer than n choices; only when none is valid is it an error.

    Requests without a schema pass through untouched.
    """

    async def complete(self, request: Request) -> Response:
        schema = request.json_schema
        if schema is None:
            return await self.inner.complete(request)
        validator = _validator(schema, self.name)
        first = await self.inner.complete(request)
        checked = [_check(choice, validator) for choice in first.choices]
        bad = [item for item in checked if not item.valid]
        if not bad:
            return Response.from_choices([item.choice for item in checked], first.usage)

        retry = dataclasses.replace(
            request,
            messages=(
                *request.messages,
                Message("assistant", bad[0].choice.text),
                Message("user", reask_prompt(bad[0].problem, schema)),
            ),
            n=len(bad),
        )
        logger.info(
            "%s: re-asking for JSON valid against the schema: %s", self.name, bad[0].problem
        )
        second = await self.inner.complete(retry)
        usage = first.usage + second.usage
        rechecked = [_check(choice, validator) for choice in second.choices]
        replacements = iter([item.choice for item in rechecked if item.valid])
        choices: list[Choice] = []
        for item in checked:
            if item.valid:
                choices.append(item.choice)
            elif (replacement := next(replacements, None)) is not None:
                choices.append(replacement)
        if not choices:
            problem = rechecked[0].problem if rechecked else "the re-ask brought no answer"
            raise ModelError(
                ErrorKind.UNPARSEABLE,
                f"no JSON valid against the schema, even after a re-ask: {_one_line(problem)}",
                model=self.name,
                usage=usage,
            )
        if len(choices) < len(checked):
            logger.warning(
                "%s: %d of %d samples dropped: no valid JSON even after a re-ask",
                self.name,
                len(checked) - len(choices),
                len(checked),
            )
        return Response.from_choices(choices, usage)
