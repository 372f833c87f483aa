"""Retrying: another attempt after a transient failure, with backoff that spreads clients out."""

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

from jurist.llm._types import ErrorKind, Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper

logger = logging.getLogger(__name__)

#: The longest server-requested wait (Retry-After) that is honoured. A server asking for more
#: is saying "not soon" (a spent daily quota, maintenance): waiting minutes inside one call
#: would look like a hang, so the error is raised at once instead.
MAX_RETRY_AFTER_S = 120.0


class Retrying(ModelWrapper):
    """Retries retryable `ModelError`s (timeouts, rate limits, server and connection errors).

    The wait before attempt k+1 is "full jitter" exponential backoff: uniform in
    [0, min(max_delay_s, base_delay_s * 2**(k-1))], which keeps many clients that failed
    together from retrying together. A `retry_after_s` on the error is a floor for that
    wait, even above `max_delay_s`, up to `MAX_RETRY_AFTER_S`; beyond that the error is
    raised without waiting.

    This layer raises nothing but `ModelError` (cancellation aside, which always propagates):
    an unexpected exception from the inner model becomes one, a `TimeoutError` as a
    retryable timeout, an `OSError` as a retryable connection error, and anything else as a
    non-retryable client error, since a bug on this side does not heal by trying again. The
    final error keeps its kind and carries the number of attempts made.

    A small loop rather than tenacity: the wait depends on the error (Retry-After) and the
    final error is rebuilt, which would leave little of tenacity's composition in use.
    """

    def __init__(
        self,
        inner: Model,
        *,
        max_attempts: int = 4,
        base_delay_s: float = 0.5,
        max_delay_s: float = 30.0,
        jitter: bool = True,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(inner)
        if max_attempts < 1:
            raise ValueError("Retrying.max_attempts must be at least 1")
        if base_delay_s < 0 or max_delay_s < 0:
            raise ValueError("Retrying delays cannot be negative")
        self.max_attempts = max_attempts
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.jitter = jitter
        self._sleep = sleep
        self._rng = rng or random.Random()

    async def complete(self, request: Request) -> Response:
        attempt = 1
        while True:
            try:
                return await self._attempt(request)
            except ModelError as error:
                if not error.retryable or attempt >= self.max_attempts:
                    if attempt == 1:
                        raise
                    raise self._final(error, attempt) from error
                retry_after = error.retry_after_s
                if retry_after is not None and retry_after > MAX_RETRY_AFTER_S:
                    raise self._final(
                        error,
                        attempt,
                        f"the server asked to wait {retry_after:g} s, longer than the "
                        f"{MAX_RETRY_AFTER_S:g} s honoured",
                    ) from error
                delay = self.delay(attempt, retry_after)
                logger.info(
                    "%s: attempt %d of %d failed (%s); retrying in %.2f s",
                    self.name,
                    attempt,
                    self.max_attempts,
                    error,
                    delay,
                )
                await self._sleep(delay)
                attempt += 1

    def delay(self, attempt: int, retry_after_s: float | None = None) -> float:
        """The wait after failed attempt number `attempt` (1-based)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * 2 ** min(attempt - 1, 60))
        backoff = self._rng.uniform(0.0, ceiling) if self.jitter else ceiling
        if retry_after_s is not None:
            return max(backoff, min(retry_after_s, MAX_RETRY_AFTER_S))
        return backoff

    async def _attempt(self, request: Request) -> Response:
        try:
            return await self.inner.complete(request)
        except ModelError:
            raise
        except TimeoutError as exc:  # before OSError, of which it is a subclass
            raise ModelError(ErrorKind.TIMEOUT, _describe(exc), model=self.name) from exc
        except OSError as exc:
            raise ModelError(ErrorKind.CONNECTION, _describe(exc), model=self.name) from exc
        except Exception as exc:
            raise ModelError(
                ErrorKind.CLIENT_ERROR,
                f"the model raised an unexpected {_describe(exc)}",
                model=self.name,
                retryable=False,
            ) from exc

    def _final(self, error: ModelError, attempts: int, why: str | None = None) -> ModelError:
        cause = error.cause
        if attempts > 1:
            cause += f" (gave up after {attempts} attempts)"
        if why is not None:
            cause += f"; {why}"
        return ModelError(
            error.kind,
            cause,
            model=error.model or self.name,
            status=error.status,
            retry_after_s=error.retry_after_s,
            retryable=error.retryable,
            attempts=attempts,
        )


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
