"""The OpenAI chat-completions wire format, spoken by OpenAI-compatible servers and by the
embedded runtime alike: a `Request` becomes a payload, a completion becomes a `Response`."""

import json
from collections.abc import Mapping
from typing import Any, Literal

from jurist.core import Usage
from jurist.llm._types import (
    Choice,
    ErrorKind,
    ModelError,
    Request,
    Response,
    TokenLogprob,
    read_alternatives,
)

SchemaMode = Literal["json_schema", "json_object", "none"]


def chat_payload(request: Request, model_id: str, schema_mode: SchemaMode) -> dict[str, Any]:
    """The body of POST /chat/completions for `request`.

    With `schema_mode="json_object"` (servers without structured output) the schema goes into
    the prompt as a system instruction and the server is only asked for some JSON object.
    """
    messages = [{"role": m.role, "content": m.content} for m in request.messages]
    payload: dict[str, Any] = {
        "model": model_id,
        "messages": messages,
        "temperature": request.temperature,
    }
    if request.seed is not None:
        payload["seed"] = request.seed
    if request.max_tokens is not None:
        payload["max_tokens"] = request.max_tokens
    if request.stop:
        payload["stop"] = list(request.stop)
    if request.n > 1:
        payload["n"] = request.n
    if request.logprobs:
        payload["logprobs"] = True
        if request.top_logprobs:
            payload["top_logprobs"] = request.top_logprobs
    if request.json_schema is not None:
        if schema_mode == "json_schema":
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": request.json_schema},
            }
        else:
            payload["messages"] = [
                {"role": "system", "content": schema_instruction(request.json_schema)},
                *messages,
            ]
            if schema_mode == "json_object":
                payload["response_format"] = {"type": "json_object"}
    return payload


def schema_instruction(schema: Mapping[str, Any]) -> str:
    return (
        "Answer with one JSON value, and nothing else, that is valid against this JSON "
        f"Schema:\n{json.dumps(schema, sort_keys=True)}"
    )


def parse_completion(
    data: Mapping[str, Any],
    *,
    model_name: str,
    latency_ms: float | None,
    want_json: bool,
) -> Response:
    """A chat completion (as a dict) as a `Response`; a malformed one is `unparseable`."""
    try:
        choices = [_choice(raw, want_json, model_name) for raw in data["choices"]]
        raw_usage = data.get("usage") or {}
        usage = Usage(
            input_tokens=int(raw_usage.get("prompt_tokens") or 0),
            output_tokens=int(raw_usage.get("completion_tokens") or 0),
            model=model_name,
            latency_ms=latency_ms,
            calls=1,
        )
        return Response.from_choices(choices, usage)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ModelError(
            ErrorKind.UNPARSEABLE,
            f"the completion is not in the chat-completions format ({exc!r})",
            model=model_name,
        ) from exc


def _choice(raw: Mapping[str, Any], want_json: bool, model_name: str) -> Choice:
    message = raw["message"]
    text = message.get("content") or ""
    if message.get("refusal"):
        raise ModelError(ErrorKind.REFUSED, str(message["refusal"]), model=model_name)
    if raw.get("finish_reason") == "content_filter":
        # The answer was withheld (or cut) by the provider's filter: what is left is no answer.
        raise ModelError(
            ErrorKind.REFUSED, "the answer was withheld by a content filter", model=model_name
        )
    parsed = None
    if want_json:
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None  # the structured-output middleware extracts or re-asks
    return Choice(text, parsed, _logprobs(raw.get("logprobs")), raw.get("finish_reason"))


def _logprobs(raw: Mapping[str, Any] | None) -> tuple[TokenLogprob, ...] | None:
    if not raw or raw.get("content") is None:
        return None
    # A hosted answer carries an entry per token, each with up to 20 alternatives: hundreds
    # of objects a call that a reader never looks at but one token's of (and that the
    # garbage collector walks while the judgment waits for its store). Their pairs are
    # checked now and kept; `top` is built when read.
    read = TokenLogprob.read_lazily
    return tuple(
        [
            read(item["token"], item["logprob"], read_alternatives(item.get("top_logprobs")))
            for item in raw["content"]
        ]
    )
