"""The HTTP transport under the providers' SDK clients: httpx2's transport interface, sent
through aiohttp when it is installed.

The SDKs build each request with httpx2 and hand it to a transport. httpx2's own transport
(httpcore2 over anyio) spends about half of a call's client CPU sending the headers and the
body in two writes and probing every idle connection of its pool on each request and each
response; aiohttp writes a request at once, parses the answer in C and keeps its idle
connections without probing them (measured: bench/client_cpu.py, 3.1 -> 1.8 ms of client CPU
per call). A judge's answers are small JSON documents, so each body is read whole here and
handed back as an httpx2 response; nothing is streamed.

Failures keep the meaning the SDKs give httpx2's exceptions: a timeout is an
`httpx2.TimeoutException` (the SDK's APITimeoutError), a connection that could not be made is
`httpx2.ConnectError`, and a connection lost or a body cut short is `httpx2.ReadError`
(both the SDK's APIConnectionError).
"""

import importlib.util
import ssl
from typing import Any

import httpx2

# Enough for every request in flight: the concurrency limit above bounds them.
MAX_CONNECTIONS = 1000
KEEPALIVE_S = 30.0


def aiohttp_installed() -> bool:
    """Whether aiohttp can be imported (the `openai` and `anthropic` extras install it)."""
    return importlib.util.find_spec("aiohttp") is not None


class AiohttpTransport(httpx2.AsyncBaseTransport):
    """httpx2 requests sent with one aiohttp session, made on the first request (inside the
    event loop it belongs to) and closed by `aclose`."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        self._ssl: ssl.SSLContext | bool = True if ssl_context is None else ssl_context
        self._session: Any = None
        self._proxies: dict[tuple[str, str, int | None], tuple[Any, Any]] = {}

    def _open(self) -> Any:
        import aiohttp

        connector = aiohttp.TCPConnector(
            limit=MAX_CONNECTIONS, keepalive_timeout=KEEPALIVE_S, ssl=self._ssl
        )
        # Not trust_env: aiohttp would then read ~/.netrc and the proxy variables in a
        # worker thread on every request. The proxy variables are read here instead, once
        # per origin, as httpx2 reads them once per client.
        self._session = aiohttp.ClientSession(connector=connector, trust_env=False)
        return self._session

    def _proxy(self, url: httpx2.URL) -> tuple[Any, Any]:
        """The proxy the environment names for `url`'s origin, and its credentials."""
        origin = (url.scheme, url.host, url.port)
        found = self._proxies.get(origin)
        if found is None:
            from aiohttp.helpers import get_env_proxy_for_url
            from yarl import URL

            try:
                found = get_env_proxy_for_url(URL(str(url)))
            except LookupError:
                found = (None, None)
            self._proxies[origin] = found
        return found

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        import aiohttp

        session = self._session if self._session is not None else self._open()
        timeout = request.extensions.get("timeout", {})
        proxy, proxy_auth = self._proxy(request.url)
        try:
            async with session.request(
                request.method,
                str(request.url),
                proxy=proxy,
                proxy_auth=proxy_auth,
                headers=request.headers,
                data=request.content or None,
                allow_redirects=False,
                # httpx2 decodes the body by its Content-Encoding, as with its own transport.
                auto_decompress=False,
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    connect=timeout.get("pool"),
                    sock_connect=timeout.get("connect"),
                    sock_read=timeout.get("read"),
                ),
            ) as response:
                body = await response.read()
        except TimeoutError as exc:
            if isinstance(exc, aiohttp.ConnectionTimeoutError):
                raise httpx2.ConnectTimeout(
                    str(exc) or "connect timed out", request=request
                ) from exc
            raise httpx2.ReadTimeout(str(exc) or "read timed out", request=request) from exc
        except aiohttp.ClientConnectorError as exc:
            raise httpx2.ConnectError(str(exc), request=request) from exc
        except aiohttp.ClientError as exc:
            raise httpx2.ReadError(str(exc) or type(exc).__name__, request=request) from exc
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode()
        return httpx2.Response(
            response.status,
            headers=response.raw_headers,
            content=body,
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()
