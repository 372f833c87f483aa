"""A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible (`POST /v1/chat/completions`)
or Anthropic-compatible (`POST /v1/messages`) API, badly on purpose.

Each request takes the next scripted reply (`server.script(rate_limited("1"), ok("yes"))`);
when the script runs out, `server.default` answers. Every request is recorded, parsed, in
`server.requests`. Replies render in the dialect of the endpoint they were sent to.
"""

import asyncio
import contextlib
import json
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from aiohttp import web

Api = Literal["openai", "anthropic"]


@dataclass
class Received:
    api: Api
    headers: dict[str, str]  # lower-cased names
    body: Any  # the parsed JSON, or the raw text when it was not JSON
    peer_port: int  # the client's port: one per connection, so reuse shows
    path: str = ""  # the path and query the request was sent to


class Reply(Protocol):
    async def respond(
        self, server: "FaultServer", request: web.Request, api: Api, body: Any
    ) -> web.StreamResponse: ...


# -- successes -----------------------------------------------------------------------------

Logprobs = Sequence[tuple[str, float, Sequence[tuple[str, float]]]]


@dataclass
class Ok:
    texts: tuple[str, ...] = ("ok",)
    json: Any = None  # Anthropic: the forced tool's input, when the request offered tools
    logprobs: Logprobs | None = None
    finish_reason: str = "stop"
    stop_reason: str | None = None  # Anthropic's, when it should not follow finish_reason
    usage: tuple[int, int] = (12, 3)
    refusal: str | None = None  # OpenAI's message.refusal

    async def respond(
        self, server: "FaultServer", request: web.Request, api: Api, body: Any
    ) -> web.StreamResponse:
        if api == "anthropic":
            return web.json_response(self._message(body))
        return web.json_response(self._completion(body))

    def _completion(self, body: Any) -> dict[str, Any]:
        n = int(body.get("n") or 1) if isinstance(body, dict) else 1
        texts = self.texts if len(self.texts) >= n else self.texts * n
        choices = []
        for index, text in enumerate(texts[:n]):
            content = json.dumps(self.json) if self.json is not None else text
            choice: dict[str, Any] = {
                "index": index,
                "message": {"role": "assistant", "content": content, "refusal": self.refusal},
                "finish_reason": self.finish_reason,
                "logprobs": None,
            }
            if self.logprobs is not None:
                choice["logprobs"] = {
                    "content": [
                        {
                            "token": token,
                            "logprob": logprob,
                            "bytes": list(token.encode()),
                            "top_logprobs": [
                                {"token": t, "logprob": lp, "bytes": list(t.encode())}
                                for t, lp in top
                            ],
                        }
                        for token, logprob, top in self.logprobs
                    ]
                }
            choices.append(choice)
        return {
            "id": "chatcmpl-fault",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body.get("model", "?") if isinstance(body, dict) else "?",
            "choices": choices,
            "usage": {
                "prompt_tokens": self.usage[0],
                "completion_tokens": self.usage[1],
                "total_tokens": sum(self.usage),
            },
        }

    def _message(self, body: Any) -> dict[str, Any]:
        offered = isinstance(body, dict) and bool(body.get("tools"))
        # The forced tool answers under the name it was offered (jurist's "answer", LiteLLM's
        # "json_tool_call").
        tool = body["tools"][0].get("name", "answer") if offered else "answer"
        if self.json is not None and offered:
            content = [{"type": "tool_use", "id": "toolu_fault", "name": tool, "input": self.json}]
            reason = "tool_use"
        else:
            content = [{"type": "text", "text": self.texts[0]}]
            reason = {"stop": "end_turn", "length": "max_tokens"}.get(
                self.finish_reason, self.finish_reason
            )
        return {
            "id": "msg_fault",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "?") if isinstance(body, dict) else "?",
            "content": content,
            "stop_reason": self.stop_reason or reason,
            "stop_sequence": None,
            "usage": {"input_tokens": self.usage[0], "output_tokens": self.usage[1]},
        }


def ok(
    text: str = "ok",
    *more: str,
    json: Any = None,
    logprobs: Logprobs | None = None,
    finish_reason: str = "stop",
    stop_reason: str | None = None,
    usage: tuple[int, int] = (12, 3),
    refusal: str | None = None,
) -> Ok:
    """A completion: `text` (and `more` choices when n > 1), or `json` as the answer."""
    return Ok((text, *more), json, logprobs, finish_reason, stop_reason, usage, refusal)


# -- failures ------------------------------------------------------------------------------


@dataclass
class Status:
    status: int
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)
    code: str | None = None
    param: str | None = None

    async def respond(
        self, server: "FaultServer", request: web.Request, api: Api, body: Any
    ) -> web.StreamResponse:
        if api == "anthropic":
            data: dict[str, Any] = {
                "type": "error",
                "error": {"type": _anthropic_type(self.status), "message": self.message},
            }
        else:
            data = {
                "error": {
                    "message": self.message,
                    "type": "invalid_request_error" if self.status < 500 else "server_error",
                    "param": self.param,
                    "code": self.code,
                }
            }
        return web.json_response(data, status=self.status, headers=dict(self.headers))


def _anthropic_type(status: int) -> str:
    return {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
        529: "overloaded_error",
    }.get(status, "api_error")


def error(status: int, message: str = "scripted failure", **options: Any) -> Status:
    return Status(status, message, **options)


def rate_limited(retry_after: str | None = "1", *, retry_after_ms: str | None = None) -> Status:
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    if retry_after_ms is not None:
        headers["retry-after-ms"] = retry_after_ms
    return Status(429, "Rate limit reached, slow down", headers)


def server_error(status: int = 500) -> Status:
    return Status(status, "The server had an error while processing your request.")


def bad_request(message: str = "'messages' is malformed") -> Status:
    return Status(400, message, param="messages")


def unauthorized() -> Status:
    return Status(401, "Incorrect API key provided", code="invalid_api_key")


def rejects_json_schema() -> Status:
    """What a server without structured output says to response_format json_schema."""
    return Status(
        400,
        "response_format type 'json_schema' is not supported; use 'json_object' or 'text'",
        param="response_format",
    )


@dataclass
class Raw:
    """Any status and body, for answers that are not what the API promises."""

    status: int
    text: str
    content_type: str = "application/json"

    async def respond(
        self, server: "FaultServer", request: web.Request, api: Api, body: Any
    ) -> web.StreamResponse:
        return web.Response(status=self.status, text=self.text, content_type=self.content_type)


def truncated() -> Raw:
    """A 200 whose JSON body stops half-way (a complete HTTP response all the same)."""
    return Raw(200, '{"id": "chatcmpl-fault", "object": "chat.completion", "choices": [{"ind')


def prose() -> Raw:
    return Raw(200, "Sure! Here is the answer you asked for: yes.", "text/plain")


def html() -> Raw:
    return Raw(200, "<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")


def not_a_completion() -> Raw:
    """Valid JSON, but not the shape of a completion or a message."""
    return Raw(200, '{"status": "queued", "id": 7}')


def wrong_shapes() -> Raw:
    """JSON with the right keys holding the wrong kinds of value."""
    return Raw(
        200,
        '{"choices": [{"message": "hi"}], "content": "hi", "stop_reason": "end_turn",'
        ' "usage": [1, 2]}',
    )


@dataclass
class Slow:
    """Answers only after `seconds`, or when the server stops: past any client timeout."""

    seconds: float = 30.0
    then: Reply = field(default_factory=ok)

    async def respond(
        self, server: "FaultServer", request: web.Request, api: Api, body: Any
    ) -> web.StreamResponse:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.released.wait(), self.seconds)
        return await self.then.respond(server, request, api, body)


def slow(seconds: float = 30.0) -> Slow:
    return Slow(seconds)


class Reset:
    """Drops the connection without a response, as a crashed server or proxy would."""

    async def respond(
        self, server: "FaultServer", request: web.Request, api: Api, body: Any
    ) -> web.StreamResponse:
        transport = request.transport
        assert transport is not None
        transport.abort()
        # The handler is cancelled once its connection is gone; wait for that.
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def reset() -> Reset:
    return Reset()


# -- the server ----------------------------------------------------------------------------


class FaultServer:
    """Start with `async with FaultServer() as server`; `server.url` is the base URL."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.default: Reply = ok()
        self.released = asyncio.Event()  # set on stop: slow replies end
        self._script: deque[Reply] = deque()
        self._arrived = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The base URL for the Anthropic SDK (which adds /v1/messages)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """The base URL for the OpenAI SDK (which adds /chat/completions)."""
        return f"{self.url}/v1"

    def script(self, *replies: Reply) -> None:
        self._script.extend(replies)

    @property
    def bodies(self) -> list[Any]:
        return [received.body for received in self.requests]

    async def wait_for_requests(self, count: int) -> None:
        """Until `count` requests have arrived (replies may still be pending)."""
        async with self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/v1/messages", self._anthropic)
        # Azure OpenAI's route: the deployment in the path, the API version in the query.
        app.router.add_post("/openai/deployments/{deployment}/chat/completions", self._openai)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        self.released.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> "FaultServer":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _openai(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "openai")

    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "anthropic")

    async def _handle(self, request: web.Request, api: Api) -> web.StreamResponse:
        text = await request.text()
        try:
            body: Any = json.loads(text)
        except ValueError:
            body = text
        peer = request.transport.get_extra_info("peername") if request.transport else None
        self.requests.append(
            Received(
                api,
                {k.lower(): v for k, v in request.headers.items()},
                body,
                peer[1] if peer else 0,
                request.path_qs,
            )
        )
        async with self._arrived:
            self._arrived.notify_all()
        reply = self._script.popleft() if self._script else self.default
        return await reply.respond(self, request, api, body)


@contextlib.contextmanager
def serving() -> Iterator[FaultServer]:
    """A FaultServer on an event loop in a thread of its own, for synchronous callers (a
    command run by CliRunner, an example calling `complete_sync`). Script it before the
    calls it should answer."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = FaultServer()
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=30)
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()
