"""Limits on calls: how long one may take, how many run at once, how many start per minute."""

import asyncio
import json
import math
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable

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


class _Gate:
    """The calls in flight on one event loop, and the calls waiting for a slot (FIFO).

    A slot is handed to a waiter when it frees up, and freeing one never awaits, so a
    cancelled call can neither lose a slot nor leave a waiter asleep.
    """

    def __init__(self) -> None:
        self.in_flight = 0
        self.waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self, limit: Callable[[], int]) -> None:
        if not self.waiters and self.in_flight < limit():
            self.in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release(limit)  # the slot came just as the caller gave up
            elif waiter in self.waiters:
                self.waiters.remove(waiter)
                self.wake(limit)  # a waiter behind this one may fit now
            raise

    def release(self, limit: Callable[[], int]) -> None:
        self.in_flight -= 1
        self.wake(limit)

    def wake(self, limit: Callable[[], int]) -> None:
        while self.waiters and self.in_flight < limit():
            waiter = self.waiters.popleft()
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)


class ConcurrencyLimited(ModelWrapper):
    """At most `limit` calls in flight; with `adaptive`, the limit follows the provider (AIMD).

    A rate-limited call halves the limit (not below `min_concurrency`), and each success adds
    1/limit to it (not above `max_concurrency`), that is about one more slot per round of
    calls. Steady state: against a provider that starts rate-limiting above some concurrency
    C, the limit saws between about C/2 and C; against one that never does, it sits at
    `max_concurrency`. Calls that started before a halving and are rate-limited after it do
    not halve it again: a burst of 429s answering one round is one signal, as in TCP.

    Slots belong to an event loop: `complete_sync` runs each call on a loop of its own, and
    asyncio primitives cannot be shared across loops. The learned limit is shared.
    A shrinking limit never deadlocks: the calls over the limit finish and are not replaced.
    """

    def __init__(
        self,
        inner: Model,
        *,
        max_concurrency: int,
        adaptive: bool = True,
        min_concurrency: int = 1,
    ) -> None:
        super().__init__(inner)
        if not 1 <= min_concurrency <= max_concurrency:
            raise ValueError(
                "ConcurrencyLimited needs 1 <= min_concurrency <= max_concurrency, got "
                f"{min_concurrency} and {max_concurrency}"
            )
        self.max_concurrency = max_concurrency
        self.min_concurrency = min_concurrency
        self.adaptive = adaptive
        self._limit = float(max_concurrency)
        self._halvings = 0
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gate] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def limit(self) -> int:
        """How many calls may be in flight now."""
        return max(self.min_concurrency, math.floor(self._limit))

    @property
    def in_flight(self) -> int:
        """The calls in flight on the running event loop."""
        return self._gate().in_flight

    def _gate(self) -> _Gate:
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = _Gate()
        return gate

    def _current_limit(self) -> int:
        return self.limit

    async def complete(self, request: Request) -> Response:
        gate = self._gate()
        await gate.acquire(self._current_limit)
        halvings_at_start = self._halvings
        try:
            response = await self.inner.complete(request)
        except ModelError as error:
            if (
                self.adaptive
                and error.kind is ErrorKind.RATE_LIMITED
                and halvings_at_start == self._halvings
            ):
                self._limit = max(float(self.min_concurrency), self._limit / 2)
                self._halvings += 1
            raise
        finally:
            gate.release(self._current_limit)
        if self.adaptive:
            self._limit = min(float(self.max_concurrency), self._limit + 1 / self._limit)
            gate.wake(self._current_limit)
        return response


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
