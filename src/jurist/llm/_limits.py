"""Limits on calls: how long one may take, how many run at once, how many start per minute."""

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable

from jurist.llm._concurrency import AdaptiveLimit, _Gate
from jurist.llm._types import ErrorKind, Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper

# Tokenizers of current models average about four characters of English prose a token, and
# closer to three for code, numbers and rare words. Three bytes of UTF-8 a token errs high for
# all of these, and counting bytes rather than characters keeps erring high for text outside
# ASCII, whose characters take two to four bytes and often a token each.
_BYTES_PER_TOKEN = 3
# Chat templates wrap each message in role markers: ChatML's "<|im_start|>role\n ...
# <|im_end|>\n" is five tokens, OpenAI counts three or four.
_TOKENS_PER_MESSAGE = 5


class TimeLimited(ModelWrapper):
    """Bounds each call by `request.timeout_s`, or by `default_timeout_s` when the request sets
    none; with neither, calls are unbounded. An expired call is a `ModelError(TIMEOUT)`, which
    `Retrying` (placed outside) treats as worth another attempt."""

    def __init__(self, inner: Model, *, default_timeout_s: float | None = None) -> None:
        super().__init__(inner)
        if default_timeout_s is not None and default_timeout_s <= 0:
            raise ValueError("TimeLimited.default_timeout_s must be positive")
        self.default_timeout_s = default_timeout_s

    async def complete(self, request: Request) -> Response:
        limit = request.timeout_s if request.timeout_s is not None else self.default_timeout_s
        if limit is None:
            return await self.inner.complete(request)
        scope = asyncio.timeout(limit)
        try:
            async with scope:
                return await self.inner.complete(request)
        except TimeoutError as exc:
            # A TimeoutError the inner model raised itself is a timeout all the same.
            cause = f"no answer within {limit:g} s" if scope.expired() else f"timed out: {exc}"
            raise ModelError(ErrorKind.TIMEOUT, cause, model=self.name) from exc


class ConcurrencyLimited(ModelWrapper):
    """At most `limit` calls in flight; with `adaptive`, the limit follows the provider.

    The limit and the calls in flight belong to an `AdaptiveLimit` (`limits`), which several
    models calling one provider endpoint share; without one, this model gets its own, its
    ceiling `max_concurrency`. Adaptive, it starts at 32 (or the ceiling), doubles each round
    of calls while the provider keeps up, halves on a 429 or a timeout, and then stays just
    below the level the 429s came at, probing above it only now and then (see
    `AdaptiveLimit`). Fixed (`adaptive=False`), it stays at `max_concurrency`.

    A 429's Retry-After pauses every new call to the endpoint until it has passed; the
    refused call's own retry waits for it in `Retrying` (placed outside). Slots belong to an
    event loop (`complete_sync` runs each call on a loop of its own); the learned limit is
    shared. A shrinking limit never deadlocks: the calls over the limit finish and are not
    replaced.
    """

    def __init__(
        self,
        inner: Model,
        *,
        max_concurrency: int | None = None,
        adaptive: bool = True,
        min_concurrency: int = 1,
        limits: AdaptiveLimit | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(inner)
        if limits is None:
            if max_concurrency is None:
                raise ValueError("ConcurrencyLimited needs max_concurrency or limits")
            if not 1 <= min_concurrency <= max_concurrency:
                raise ValueError(
                    "ConcurrencyLimited needs 1 <= min_concurrency <= max_concurrency, got "
                    f"{min_concurrency} and {max_concurrency}"
                )
            limits = AdaptiveLimit(
                ceiling=max_concurrency,
                floor=min_concurrency,
                adaptive=adaptive,
                name=inner.name,
                clock=clock,
            )
        self.limits = limits
        self._sleep = sleep

    @property
    def max_concurrency(self) -> int:
        return self.limits.ceiling

    @property
    def adaptive(self) -> bool:
        return self.limits.adaptive

    @property
    def limit(self) -> int:
        """How many calls may be in flight now."""
        return self.limits.limit

    @property
    def in_flight(self) -> int:
        """The calls in flight on the running event loop."""
        return self.limits.gate().in_flight

    async def complete(self, request: Request) -> Response:
        limits = self.limits
        gate = limits.gate()
        await self._admit(gate)
        ticket = limits.started(gate.in_flight)
        try:
            response = await self.inner.complete(request)
        except ModelError as error:
            if error.kind is ErrorKind.RATE_LIMITED:
                limits.overloaded(ticket, retry_after_s=error.retry_after_s)
            elif error.kind is ErrorKind.TIMEOUT:
                limits.overloaded(ticket, timed_out=True)
            else:
                limits.failed(ticket)
            raise
        except BaseException:
            limits.failed(ticket)
            raise
        finally:
            gate.release(limits.current)
        limits.succeeded(ticket, waiting=bool(gate.waiters))
        gate.wake(limits.current)
        return response

    async def _admit(self, gate: _Gate) -> None:
        """A slot, once the endpoint is not paused by a Retry-After; a pause that began while
        the call waited for its slot is waited out too, without holding the slot."""
        limits = self.limits
        while True:
            wait = limits.pause_left()
            if wait > 0:
                await self._sleep(wait)
                gate.wake(limits.current)
                continue
            await gate.acquire(limits.current)
            if limits.pause_left() <= 0:
                return
            gate.release(limits.current)


class _Bucket:
    """A token bucket that may go into debt: a caller takes its tokens at once and waits until
    the level would have been back at zero, so waiters are served in order without polling."""

    def __init__(self, per_minute: float, now: float) -> None:
        self.capacity = per_minute
        self.rate = per_minute / 60.0
        self.level = per_minute
        self.updated = now

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self.updated)
        self.level = min(self.capacity, self.level + elapsed * self.rate)
        self.updated = now

    def take(self, amount: float, now: float) -> tuple[float, float]:
        """Takes `amount` (at most a full bucket); returns what was taken and the wait."""
        self._refill(now)
        taken = min(amount, self.capacity)
        self.level -= taken
        return taken, max(0.0, -self.level / self.rate)

    def give_back(self, amount: float, now: float) -> None:
        """Returns tokens (or, negative, takes more); the debt is bounded by one bucket."""
        self._refill(now)
        self.level = max(-self.capacity, min(self.capacity, self.level + amount))


class RateLimited(ModelWrapper):
    """Client-side token buckets: at most `requests_per_minute` calls and `tokens_per_minute`
    tokens, with bursts up to a minute's worth, so a batch slows down before the provider
    starts answering 429.

    Before a call its tokens are estimated as characters of the messages / 4 plus
    `max_tokens` for each of the `n` samples; afterwards the estimate is corrected with the
    usage the provider reported (a cached answer used none). A failed call keeps its
    estimate: what the provider counted is unknown, and failing is no time to speed up.
    A request larger than the whole token bucket waits for a full bucket and then goes,
    rather than waiting forever.
    """

    def __init__(
        self,
        inner: Model,
        *,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(inner)
        for label, value in (
            ("requests_per_minute", requests_per_minute),
            ("tokens_per_minute", tokens_per_minute),
        ):
            if value is not None and value <= 0:
                raise ValueError(f"RateLimited.{label} must be positive")
        self._clock = clock
        self._sleep = sleep
        now = clock()
        self._requests = None if requests_per_minute is None else _Bucket(requests_per_minute, now)
        self._tokens = None if tokens_per_minute is None else _Bucket(tokens_per_minute, now)

    async def complete(self, request: Request) -> Response:
        estimate = estimate_tokens(request)
        now = self._clock()
        wait = 0.0
        took_request = took_tokens = 0.0
        if self._requests is not None:
            took_request, request_wait = self._requests.take(1, now)
            wait = max(wait, request_wait)
        if self._tokens is not None:
            took_tokens, tokens_wait = self._tokens.take(estimate, now)
            wait = max(wait, tokens_wait)
        if wait > 0:
            try:
                await self._sleep(wait)
            except asyncio.CancelledError:
                self._give_back(took_request, took_tokens)
                raise
        response = await self.inner.complete(request)
        if self._tokens is not None:
            self._tokens.give_back(took_tokens - _used_tokens(response, estimate), self._clock())
        return response

    def _give_back(self, requests: float, tokens: float) -> None:
        now = self._clock()
        if self._requests is not None:
            self._requests.give_back(requests, now)
        if self._tokens is not None:
            self._tokens.give_back(tokens, now)


def estimate_tokens(request: Request) -> int:
    """A pre-call estimate of a request's tokens that errs high: its input (see
    `estimate_input_tokens`) and the whole `max_tokens` out for each sample."""
    return estimate_input_tokens(request) + (request.max_tokens or 0) * request.n


def estimate_input_tokens(request: Request) -> int:
    """A pre-call estimate of a request's input tokens that errs high for ordinary text: its
    messages (and JSON schema, which providers send as part of the prompt) at three bytes of
    UTF-8 a token, rounded up, plus each message's role markers. An estimate, not a proof: a
    tokenizer may split unusual text finer, and then the usage the provider reports after the
    call corrects whoever relied on the estimate (a rate limit, a budget)."""
    texts = [message.content for message in request.messages]
    if request.json_schema is not None:
        texts.append(json.dumps(request.json_schema))
    size = sum(len(text.encode("utf-8")) for text in texts)
    return math.ceil(size / _BYTES_PER_TOKEN) + _TOKENS_PER_MESSAGE * len(request.messages)


def _used_tokens(response: Response, estimate: int) -> int:
    usage = response.usage
    if response.cached:
        return 0
    if usage.total_tokens == 0:
        return estimate  # the provider reported nothing: the guess stands
    return usage.total_tokens
