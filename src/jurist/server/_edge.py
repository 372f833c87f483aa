"""What every request goes through before and after its route: the body limit, the request's
hash, the HTTP metrics and the audit record.

A plain ASGI middleware rather than Starlette's BaseHTTPMiddleware, which costs a task and a
stream copy per request. Bodies are small (a limit applies), so the body is read here in
full, hashed, and handed to the route as it came.
"""

import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jurist.server._errors import ErrorBody

log = logging.getLogger("jurist.server")

# Probes and scrapes are not requests anyone needs to audit.
UNAUDITED = frozenset({"/health", "/ready", "/metrics"})

AuditHook = Callable[[dict[str, Any]], Awaitable[None]]


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
        record = {
            "method": scope.get("method", ""),
            "path": path[:500],
            "status_code": status,
            "latency_ms": latency_ms,
            "key_id": state.get("key_id"),
            "client": client[0] if client else None,
            "request_sha256": state.get("request_sha256"),
            "verdict": state.get("verdict") or _verdict(status),
            "detail": state.get("audit_detail"),
        }
        log.info(
            "request",
            extra={k: record[k] for k in ("method", "path", "status_code", "latency_ms", "key_id")},
        )
        # After the response is sent: a slow or broken audit write never delays the answer,
        # and a failure is logged, never hidden.
        try:
            await self.audit(record)
        except Exception as exc:  # noqa: BLE001 - whatever broke, the answer is already sent
            log.error("audit record not written: %s: %s", type(exc).__name__, exc)

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
