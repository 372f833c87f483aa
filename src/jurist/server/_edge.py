"""What every request goes through before and after its route: the body limit, the request's
hash, the HTTP metrics and the audit record; and the route class that reads JSON bodies
strictly.

A plain ASGI middleware rather than Starlette's BaseHTTPMiddleware, which costs a task and a
stream copy per request. Bodies are small (a limit applies), so the body is read here in
full, hashed, and handed to the route as it came.
"""

import email.message
import functools
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, NoReturn

from fastapi import Request, Response
from fastapi.dependencies.utils import get_flat_params
from fastapi.routing import APIRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jurist.core import DEFAULT_MAX_DEPTH, StrictJsonError, dump_json, loads_strict
from jurist.server._errors import ServiceError, error_responses
from jurist.viewer import ErrorBody, FieldError

log = logging.getLogger("jurist.server")

# Probes and scrapes are not requests anyone needs to audit.
UNAUDITED = frozenset({"/health", "/ready", "/metrics"})

AuditHook = Callable[[dict[str, Any]], Awaitable[None]]


class JsonAnswer(Response):
    """A JSON answer of plain JSON data (a model already dumped in JSON mode), written by
    orjson: Starlette's JSONResponse goes through the json module."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return dump_json(content)


class Edge:
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        audit: AuditHook,
        count: Callable[[str, int], None],
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.audit = audit
        self.count = count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state: dict[str, Any] = scope.setdefault("state", {})
        status = {"code": 500}

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            body = await self._body(scope, receive)
            if body is None:
                await _too_large(sending, self.max_body_bytes)
            else:
                if body:
                    state["request_sha256"] = hashlib.sha256(body).hexdigest()
                await self.app(scope, _replay(body, receive), sending)
        finally:
            await self._after(scope, state, status["code"], started)

    async def _after(
        self, scope: Scope, state: dict[str, Any], status: int, started: float
    ) -> None:
        path = scope.get("path", "")
        route = scope.get("route")
        self.count(getattr(route, "path", "other"), status)
        if path in UNAUDITED:
            return
        latency_ms = round((time.perf_counter() - started) * 1000, 3)
        client = scope.get("client")
        detail = state.get("audit_detail")
        if callable(detail):  # a route's detail made only when needed, after the answer
            detail = detail()
        record = {
            "method": scope.get("method", ""),
            "path": path[:500],
            "status_code": status,
            "latency_ms": latency_ms,
            "key_id": state.get("key_id"),
            "client": client[0] if client else None,
            "request_sha256": state.get("request_sha256"),
            "verdict": state.get("verdict") or _verdict(status),
            "detail": detail,
            "detail_redacted": bool(state.get("audit_redacted")),
        }
        log.info(
            "request",
            extra={k: record[k] for k in ("method", "path", "status_code", "latency_ms", "key_id")},
        )
        # After the response is sent: a slow or broken audit write never delays the answer,
        # and a failure is logged, never hidden.
        try:
            await self.audit(dict(record))
        except Exception as exc:  # noqa: BLE001 - whatever broke, the answer is already sent
            if record["detail"] is None:
                log.error("audit record not written: %s: %s", type(exc).__name__, exc)
                return
            # A detail that cannot be redacted or stored must not cost the request its record.
            log.error("audit detail not written: %s: %s", type(exc).__name__, exc)
            record["detail"] = {"unrecorded": f"{type(exc).__name__}: {str(exc)[:200]}"}
            record["detail_redacted"] = False
            try:
                await self.audit(dict(record))
            except Exception as again:  # noqa: BLE001 - as above
                log.error("audit record not written: %s: %s", type(again).__name__, again)

    async def _body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, or None when it is over the limit (by its declared length or by
        what arrived)."""
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _replay(body: bytes, upstream: Receive) -> Receive:
    """The body once, then the real channel (which reports a client's disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await upstream()

    return receive


async def _too_large(send: Send, limit: int) -> None:
    body = ErrorBody(
        error="body_too_large",
        message=f"the request body is over the limit of {limit} bytes (JURIST_MAX_BODY_BYTES)",
    )
    payload = json.dumps(body.model_dump()).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _verdict(status: int) -> str:
    if status == 401:
        return "unauthorized"
    if status == 429:
        return "rate_limited"
    if 400 <= status < 500:
        return "rejected"
    if status >= 500:
        return "error"
    return "ok"


# --- strict JSON bodies -------------------------------------------------------------------


class StrictJsonRoute(APIRoute):
    """A route whose JSON body is read by jurist's strict reader (no NaN or infinities, no
    huge integers, no lone surrogates, UTF-8 only, nesting within JURIST_MAX_JSON_DEPTH)
    before FastAPI sees it. Whatever it refuses is a 422 naming the field ("body" when the
    whole body is unreadable), never FastAPI's 400; a body that is not JSON at all is a 415.

    The statuses this adds (413, 415, 422 with the service's ErrorBody) are declared on the
    operation, so the OpenAPI schema never falls back to FastAPI's HTTPValidationError.
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        declared = {str(status) for status in self.responses}
        statuses = []
        if self.body_field is not None:
            statuses = [413, 415, 422]
        elif get_flat_params(self.dependant):
            statuses = [422]
        missing = [s for s in statuses if str(s) not in declared]
        if missing:
            # Built again so that FastAPI registers the added responses' models too.
            responses = {**(kwargs.get("responses") or {}), **error_responses(*missing)}
            super().__init__(path, endpoint, **{**kwargs, "responses": responses})

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def strict(request: Request) -> Response:
            return await handler(await _read_strictly(request))

        return strict


class _ReadRequest(Request):
    """The request with its body already read and parsed: FastAPI takes the value from here."""

    def __init__(self, request: Request, body: bytes, value: Any) -> None:
        super().__init__(request.scope, request.receive)
        self._read_body = body
        self._read_value = value

    async def body(self) -> bytes:
        return self._read_body

    async def json(self) -> Any:
        return self._read_value


async def _read_strictly(request: Request) -> Request:
    body = await request.body()
    if not body:
        return request  # FastAPI reports the missing body, naming it
    if not _is_json(request.headers.get("content-type")):
        _refuse(
            request,
            415,
            "unsupported_media_type",
            FieldError(
                field="body",
                message="send the body as JSON, with Content-Type: application/json",
            ),
        )
    service = getattr(request.app.state, "service", None)
    max_depth = getattr(getattr(service, "settings", None), "max_json_depth", DEFAULT_MAX_DEPTH)
    try:
        value = loads_strict(body, max_depth=max_depth)
    except StrictJsonError as exc:
        problem = exc.problem
        if exc.kind == "syntax" and exc.line is not None:
            # Where first, then what: "invalid JSON at line 3, column 10: Expecting ','".
            reason = problem.removeprefix(_NOT_JSON)
            problem = f"invalid JSON at line {exc.line}, column {exc.column}: {reason}"
        elif exc.line is not None:
            problem += f" (line {exc.line}, column {exc.column})"
        if exc.kind == "depth":
            problem += " (JURIST_MAX_JSON_DEPTH)"
        _refuse(request, 422, "invalid_request", FieldError(field=exc.field, message=problem))
    return _ReadRequest(request, body, value)


# How jurist's strict reader words a syntax error, before the parser's own reason.
_NOT_JSON = "not valid JSON: "


@functools.lru_cache(maxsize=64)
def _is_json(content_type: str | None) -> bool:
    # Cached: clients send the same few headers, and parsing one costs more than the rest of
    # the body's checks.
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


def _refuse(request: Request, status: int, code: str, error: FieldError) -> NoReturn:
    # The audit record of a refused request says why: the body itself is not kept.
    request.state.audit_detail = {"refused": [error.model_dump()]}
    raise ServiceError(status, code, f"{error.field}: {error.message}", errors=[error])
