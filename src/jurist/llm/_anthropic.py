"""Anthropic's Messages API through the official `anthropic` SDK.

As for OpenAI, the SDK's retries are off (`max_retries=0`): the Retrying middleware decides,
and every failure leaves `complete` as a `ModelError` (cancellation aside).
"""

import asyncio
import json
import time
from typing import Any

import anthropic
import httpx2
from pydantic import JsonValue

from jurist.core import Usage
from jurist.llm._http import (
    error_message,
    http_client_options,
    loop_client,
    snippet,
    status_error,
    unexpected_error,
)
from jurist.llm._types import Capabilities, Choice, ErrorKind, ModelError, Request, Response

CAPABILITIES = Capabilities(logprobs=False, json_schema=True, seed=False, multiple_samples=False)

TOOL = "answer"  # the one tool a structured answer is forced through

_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "stop",  # only the forced answer tool is ever offered
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}


class AnthropicModel:
    """A Claude model (`anthropic:claude-sonnet-4-5`).

    - System messages go to the `system` parameter, joined by blank lines.
    - A JSON Schema is enforced by a forced tool call: the tool `answer` takes the schema as
      its input schema, and its input becomes `Response.json` (its JSON text, `text`).
      Tool inputs are objects, so a schema for anything else is wrapped in an object with
      one property, `answer`, and unwrapped on the way back.
    - No logprobs: a request for them is answered without them (`logprobs=None`), as
      `capabilities.logprobs=False` announces, rather than failed.
    - No seed, and no temperature: API version 2026-10-21, which the 2.x SDK speaks,
      rejects `temperature` (even 1.0) with a 400, so neither is sent.
    - `n` > 1 makes n concurrent calls (the first error cancels the rest); `usage` sums them.
    - `max_tokens` is required by the API: the request's, or 1024.
    """

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        name: str | None = None,
        client: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        self.model_id = model_id
        self.base_url = base_url.rstrip("/") if base_url else None
        self._api_key = api_key
        # Retries are the Retrying middleware's, even on a client handed in.
        self._client = None if client is None else client.with_options(max_retries=0)
        self._name = name or f"anthropic:{model_id}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return CAPABILITIES

    def __repr__(self) -> str:
        return f"AnthropicModel({self._name!r})"

    async def complete(self, request: Request) -> Response:
        if request.n == 1:
            choice, usage = await self._sample(request)
            return Response.from_choices([choice], usage)
        # The first failure cancels the other samples; the caller sees that one ModelError.
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._sample(request)) for _ in range(request.n)]
        except* ModelError as failures:
            raise failures.exceptions[0] from None
        samples = [task.result() for task in tasks]
        total = Usage.total(usage for _, usage in samples) or Usage()
        return Response.from_choices([choice for choice, _ in samples], total)

    async def _sample(self, request: Request) -> tuple[Choice, Usage]:
        params, wrapped = self._params(request)
        started = time.perf_counter()
        try:
            client = self._client or self._shared_client()
            # The raw route, as for OpenAI: the typed `create` re-walks the payload against
            # its TypedDicts, and its parsed Message is not what we return.
            raw = await client.post(
                "/v1/messages",
                cast_to=httpx2.Response,
                body=params,
                options={"timeout": request.timeout_s},
            )
        except Exception as exc:
            raise self._error(exc) from exc
        latency_ms = (time.perf_counter() - started) * 1000
        return self._parse(raw.content, raw.status_code, wrapped, latency_ms)

    def _params(self, request: Request) -> tuple[dict[str, Any], bool]:
        system = [m.content for m in request.messages if m.role == "system"]
        params: dict[str, Any] = {
            "model": self.model_id,
            "max_tokens": request.max_tokens or 1024,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
        }
        if system:
            params["system"] = "\n\n".join(system)
        if request.stop:
            params["stop_sequences"] = list(request.stop)
        wrapped = False
        if request.json_schema is not None:
            schema: dict[str, Any] = dict(request.json_schema)
            if schema.get("type") != "object":
                wrapped = True
                schema = {
                    "type": "object",
                    "properties": {TOOL: schema},
                    "required": [TOOL],
                }
            params["tools"] = [
                {
                    "name": TOOL,
                    "description": "Give the answer, as this schema requires.",
                    "input_schema": schema,
                }
            ]
            params["tool_choice"] = {"type": "tool", "name": TOOL}
        return params, wrapped

    def _shared_client(self) -> anthropic.AsyncAnthropic:
        key, url = self._api_key, self.base_url
        return loop_client(("anthropic", url, key), lambda: _build_client(url, key))

    def _parse(
        self, body: bytes, status: int, wrapped: bool, latency_ms: float
    ) -> tuple[Choice, Usage]:
        try:
            data = json.loads(body)
            choice = self._choice(data, wrapped)
            usage = data["usage"]
            input_tokens = sum(
                int(usage.get(field) or 0)
                for field in (
                    "input_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                )
            )
            output_tokens = int(usage.get("output_tokens") or 0)
            usage_record = Usage(
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                model=self._name,
                latency_ms=latency_ms,
                calls=1,
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            # A 200 that is no message (truncated, a proxy's HTML page) is the server's
            # passing fault, which another attempt may not meet: retryable, as for OpenAI.
            raise ModelError(
                ErrorKind.SERVER_ERROR,
                f"HTTP {status} with a body that is not a message: {snippet(body)!r}",
                model=self._name,
                status=status,
            ) from exc
        return choice, usage_record

    def _choice(self, data: dict[str, Any], wrapped: bool) -> Choice:
        reason = data["stop_reason"]
        if reason == "refusal":
            raise ModelError(ErrorKind.REFUSED, "the model declined to answer", model=self._name)
        blocks = data["content"]
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        value: JsonValue = None
        tool = [b for b in blocks if b["type"] == "tool_use" and b["name"] == TOOL]
        if tool:
            value = tool[0]["input"]
            if wrapped:
                value = value.get(TOOL) if isinstance(value, dict) else None
            text = json.dumps(value, ensure_ascii=False)
        return Choice(text, value, None, _FINISH.get(reason, reason))

    def _error(self, exc: Exception) -> ModelError:
        if isinstance(exc, ModelError):
            return exc
        if isinstance(exc, anthropic.APITimeoutError):
            return ModelError(ErrorKind.TIMEOUT, "the request timed out", model=self._name)
        if isinstance(exc, anthropic.APIConnectionError):
            why = f": {exc.__cause__!r}" if exc.__cause__ else ""
            return ModelError(
                ErrorKind.CONNECTION, f"cannot reach the server{why}", model=self._name
            )
        if isinstance(exc, anthropic.APIStatusError):
            message = exc.api_message or error_message(exc.body, exc.message)
            return status_error(
                exc.status_code, message, model=self._name, headers=exc.response.headers
            )
        if isinstance(exc, anthropic.AnthropicError):
            # Raised before any request: no credentials, a bad option.
            return ModelError(ErrorKind.CLIENT_ERROR, str(exc), model=self._name)
        return unexpected_error(exc, self._name)


def _build_client(base_url: str | None, api_key: str | None) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        api_key=api_key,
        base_url=base_url,
        max_retries=0,  # Retrying middleware's job
        timeout=None,  # each call passes its request's timeout
        http_client=anthropic.DefaultAsyncHttpxClient(**http_client_options()),
    )
