"""Retrying: another attempt after a transient failure, with backoff that spreads clients out."""

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

import tenacity

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

    The schedule runs on tenacity; what is jurist's own is which errors are worth another
    attempt, the wait an error asks for, and the error a caller finally sees.
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
        # Most calls succeed at once: the first attempt is made before any policy is built
        # (a policy and its bookkeeping cost ~25 us a call). A retryable failure starts the
        # policy, whose first attempt fails again with that very error without calling the
        # model, so the schedule, the waits and the log are those of a policy from the start.
        try:
            return await self._attempt(request)
        except ModelError as error:
            if self.max_attempts == 1 or not _retryable(error):
                if not (_asks_too_long(error) and self.max_attempts > 1):
                    raise
                raise self._final(error, 1, _too_long(error)) from error
            first = error
        return await self._retry(request, first)

    async def _retry(self, request: Request, first: ModelError) -> Response:
        failed = [first]

        async def attempt(request: Request) -> Response:
            if failed:
                raise failed.pop()
            return await self._attempt(request)

        # A policy per call: tenacity keeps its attempt count on the policy object, which
        # concurrent calls must not share.
        policy = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=tenacity.retry_if_exception(_retryable),
            sleep=self._sleep,
            before_sleep=self._log,
            reraise=True,
        )
        try:
            return await policy(attempt, request)
        except ModelError as error:
            attempts = int(policy.statistics.get("attempt_number", 1))
            why = None
            if _asks_too_long(error) and attempts < self.max_attempts:
                why = _too_long(error)
            if attempts == 1 and why is None:
                raise
            raise self._final(error, attempts, why) from error

    def _wait(self, state: tenacity.RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        retry_after = error.retry_after_s if isinstance(error, ModelError) else None
        return self.delay(state.attempt_number, retry_after)

    def _log(self, state: tenacity.RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        delay = state.next_action.sleep if state.next_action else 0.0
        logger.info(
            "%s: attempt %d of %d failed (%s); retrying in %.2f s",
            self.name,
            state.attempt_number,
            self.max_attempts,
            error,
            delay,
        )

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


def _retryable(error: BaseException) -> bool:
    return isinstance(error, ModelError) and error.retryable and not _asks_too_long(error)


def _asks_too_long(error: BaseException | None) -> bool:
    return (
        isinstance(error, ModelError)
        and error.retry_after_s is not None
        and error.retry_after_s > MAX_RETRY_AFTER_S
    )


def _too_long(error: ModelError) -> str:
    return (
        f"the server asked to wait {error.retry_after_s:g} s, longer than the "
        f"{MAX_RETRY_AFTER_S:g} s honoured"
    )


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
