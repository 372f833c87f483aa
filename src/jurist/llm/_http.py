"""What the HTTP providers share: their clients, and how an HTTP failure becomes a ModelError."""

import asyncio
import contextlib
import datetime
import email.utils
import functools
import math
import ssl
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Hashable, Mapping
from typing import Any, TypeVar

from jurist.llm._transport import AiohttpTransport, aiohttp_installed
from jurist.llm._types import ErrorKind, ModelError

C = TypeVar("C")

# Clients per event loop: an SDK client pools connections bound to the loop that opened
# them, and reusing one from another loop (each `asyncio.run`, so each `complete_sync`)
# fails with "Event loop is closed". A loop's clients are closed when the loop shuts down
# (see _closed_at_shutdown), and go when the loop is collected.
_clients: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients]" = (
    weakref.WeakKeyDictionary()
)
_clients_lock = threading.Lock()


class _LoopClients:
    """The clients of one event loop, and what closes them when it shuts down."""

    def __init__(self) -> None:
        self.clients: dict[Hashable, Any] = {}
        # Held here: the loop keeps its async generators only weakly.
        self.closer = _closed_at_shutdown(self.clients)
        with contextlib.suppress(StopIteration):
            self.closer.asend(None).send(None)  # to its `yield`: the loop now knows of it


async def _closed_at_shutdown(clients: dict[Hashable, Any]) -> AsyncGenerator[None]:
    """Waits at its `yield` until the loop shuts its async generators down (`asyncio.run`
    does as it ends), then closes the loop's clients, each with its open connections, while
    the loop still runs: a client left to the garbage collector cannot close them (aiohttp's
    complains of an unclosed session)."""
    try:
        yield
    finally:
        loop = asyncio.get_running_loop()
        with _clients_lock:
            # The clients hold the loop: left in the table, neither would ever be collected.
            _clients.pop(loop, None)
        for client in list(clients.values()):
            with contextlib.suppress(Exception):
                await client.close()


def loop_client(key: Hashable, build: Callable[[], C]) -> C:
    """The client for `key` on the running loop, built on first use.

    One client per process (per loop) and per endpoint and key: building one costs tens of
    milliseconds, and a shared client shares its connection pool.
    """
    loop = asyncio.get_running_loop()
    with _clients_lock:
        per_loop = _clients.get(loop)
        if per_loop is None:
            per_loop = _clients[loop] = _LoopClients()
        client = per_loop.clients.get(key)
        if client is None:
            client = per_loop.clients[key] = build()
    result: C = client
    return result


def http_client_options() -> dict[str, Any]:
    """What an SDK's httpx2 client is built with: aiohttp's transport when aiohttp is
    installed (half the client CPU per call of httpx2's own, see `_transport`), else the
    shared TLS context for httpx2's own transport."""
    context = shared_ssl_context()
    if aiohttp_installed():
        return {"transport": AiohttpTransport(context)}
    return {} if context is None else {"verify": context}


@functools.cache
def shared_ssl_context() -> ssl.SSLContext | None:
    """One TLS context for every client: loading the trust store is most of what building a
    client costs (~20 ms), and a context is safe to share across loops and threads.

    None when the SDKs predate httpx2; each client then builds its own."""
    try:
        import httpx2
    except ImportError:  # pragma: no cover - older openai/anthropic SDKs on httpx
        return None
    return httpx2.create_ssl_context()


def retry_after_s(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """How long the server asks us to wait: `retry-after-ms` (OpenAI), else `Retry-After` in
    seconds or as an HTTP date. None when absent or unreadable; never negative."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        seconds = _number(millis)
        if seconds is not None:
            return seconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT, whether or not it says so
        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return max(0.0, number) if math.isfinite(number) else None


def status_error(
    status: int,
    message: str,
    *,
    model: str,
    headers: Mapping[str, str],
) -> ModelError:
    """The ModelError for an HTTP error status.

    408 and 409 are worth another attempt (a request or lock timed out on the server side),
    as are 429 and 5xx (529 is Anthropic's "overloaded"); every other 4xx is the request's
    own fault and is not retried. `Retry-After` is kept whatever the status.
    """
    wait = retry_after_s(headers)
    detail = f"HTTP {status}: {message}"
    if status == 429:
        return ModelError(
            ErrorKind.RATE_LIMITED, detail, model=model, status=status, retry_after_s=wait
        )
    if status == 408:
        return ModelError(ErrorKind.TIMEOUT, detail, model=model, status=status, retry_after_s=wait)
    if status == 409 or status >= 500 or status < 400:
        return ModelError(
            ErrorKind.SERVER_ERROR, detail, model=model, status=status, retry_after_s=wait
        )
    if status in (401, 403):
        detail = f"{detail} (check the API key)"
    elif status == 404:
        detail = f"{detail} (check the model id and the base URL)"
    return ModelError(ErrorKind.CLIENT_ERROR, detail, model=model, status=status)


def error_message(body: object, fallback: str) -> str:
    """The human part of an error body: `{"error": {"message": ...}}` or `{"message": ...}`."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return fallback


def unexpected_error(exc: Exception, model: str) -> ModelError:
    """An exception no mapping foresaw: most likely a bug (ours or the SDK's), so another
    attempt would fail the same way."""
    return ModelError(
        ErrorKind.CLIENT_ERROR,
        f"unexpected {type(exc).__name__}: {exc}",
        model=model,
        retryable=False,
    )


def snippet(body: bytes | str, limit: int = 200) -> str:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit]}…"
