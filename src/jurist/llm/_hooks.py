"""Hooks: functions that see, and may change, every request and response (redaction, logging)."""

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from jurist.llm._types import ErrorKind, Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper

RequestHook = Callable[[Request], Request | Awaitable[Request]]
ResponseHook = Callable[[Request, Response], Response | Awaitable[Response]]

T = TypeVar("T")


class Hooked(ModelWrapper):
    """Runs request hooks, in order, on each request before the inner model sees it, and
    response hooks, in order, on each response; each hook may be sync or async and returns
    the (possibly changed) request or response. Response hooks get the request as sent.

    A hook that raises a `ModelError` means it (a budget, a policy refusing the request), and
    the error goes through unchanged. Any other exception, or a hook returning the wrong
    type, is a bug in the hook: a non-retryable `ModelError(CLIENT_ERROR)` naming it. A
    failing redaction hook thus stops the call rather than letting the request out as is.
    """

    def __init__(
        self,
        inner: Model,
        *,
        on_request: Sequence[RequestHook] = (),
        on_response: Sequence[ResponseHook] = (),
    ) -> None:
        super().__init__(inner)
        self.on_request = tuple(on_request)
        self.on_response = tuple(on_response)

    async def complete(self, request: Request) -> Response:
        for hook in self.on_request:
            request = await self._run(hook, Request, "request", request)
        response = await self.inner.complete(request)
        for response_hook in self.on_response:
            response = await self._run(response_hook, Response, "response", request, response)
        return response

    async def _run(
        self, hook: Callable[..., T | Awaitable[T]], kind: type[T], stage: str, *args: object
    ) -> T:
        name = _hook_name(hook)
        try:
            result = hook(*args)
            if inspect.isawaitable(result):
                result = await result
        except ModelError:
            raise
        except Exception as exc:
            raise ModelError(
                ErrorKind.CLIENT_ERROR,
                f"{stage} hook {name} failed: {type(exc).__name__}: {exc}",
                model=self.name,
                retryable=False,
            ) from exc
        if not isinstance(result, kind):
            raise ModelError(
                ErrorKind.CLIENT_ERROR,
                f"{stage} hook {name} returned {type(result).__name__}, not a {kind.__name__}",
                model=self.name,
                retryable=False,
            )
        return result


def _hook_name(hook: Callable[..., object]) -> str:
    name = getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None)
    return str(name) if name else repr(hook)
