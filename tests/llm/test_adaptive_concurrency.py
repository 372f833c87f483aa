"""The adaptive limit on calls in flight to an endpoint: slow start from 32, halving on a 429
or a timeout, the remembered level and the slow probes above it, Retry-After pausing the
endpoint, the ceiling, fixed limits; asserted on the limit's recorded state with a fake clock,
never on elapsed time."""

import asyncio

import pytest

from jurist.llm import (
    AdaptiveLimit,
    Capabilities,
    ConcurrencyLimited,
    ConcurrencyWatch,
    ErrorKind,
    ModelError,
    Request,
    Response,
    Retrying,
)
from scripted import FakeClock, ScriptedModel, answer, settle

REQUEST = Request.of("hello")
LATENCY = 0.2


def limit_of(clock: FakeClock, **options) -> AdaptiveLimit:  # type: ignore[no-untyped-def]
    return AdaptiveLimit(clock=clock.now, **{"ceiling": 256, **options})


def full_round(limit: AdaptiveLimit, clock: FakeClock, latency: float = LATENCY) -> None:
    """As many calls as the limit, all in flight at once while more wait, all answered
    after `latency`."""
    tickets = [limit.started(i + 1) for i in range(limit.limit)]
    clock.time += latency
    for ticket in tickets:
        limit.succeeded(ticket, waiting=True)


def overloaded_round(limit: AdaptiveLimit, clock: FakeClock, capacity: int, **why) -> None:  # type: ignore[no-untyped-def]
    """As many calls as the limit at once against a provider that takes `capacity`: the
    calls sent beyond it are refused at once, the others answered after a round."""
    tickets = [limit.started(i + 1) for i in range(limit.limit)]
    for ticket in tickets[capacity:]:
        limit.overloaded(ticket, **why)
    clock.time += LATENCY
    for ticket in tickets[:capacity]:
        limit.succeeded(ticket, waiting=True)


# Slow start


def test_the_limit_starts_at_32_and_doubles_each_full_round_up_to_the_ceiling():
    clock = FakeClock()
    limit = limit_of(clock, ceiling=200)
    seen = [limit.limit]
    for _ in range(4):
        full_round(limit, clock)
        seen.append(limit.limit)
    assert seen == [32, 64, 128, 200, 200]
    assert limit.peak == 200


def test_a_ceiling_below_32_is_where_the_limit_starts_and_stays():
    clock = FakeClock()
    limit = limit_of(clock, ceiling=10)
    full_round(limit, clock)
    assert limit.limit == 10


def test_a_round_that_never_fills_the_limit_does_not_grow_it():
    clock = FakeClock()
    limit = limit_of(clock)
    for _ in range(3):
        tickets = [limit.started(i + 1) for i in range(20)]  # 20 of 32: the limit never bound
        clock.time += LATENCY
        for ticket in tickets:
            limit.succeeded(ticket, waiting=False)
    assert limit.limit == 32


def test_a_round_whose_latency_more_than_doubles_holds_the_limit():
    clock = FakeClock()
    limit = limit_of(clock)
    full_round(limit, clock, latency=0.2)
    assert limit.limit == 64
    full_round(limit, clock, latency=0.5)  # the provider is queueing: hold
    assert limit.limit == 64
    full_round(limit, clock, latency=0.3)  # within twice the best again: grow
    assert limit.limit == 128


# Overload


def test_a_429_halves_the_limit_and_it_settles_just_below_where_the_429s_came():
    clock = FakeClock()
    limit = limit_of(clock)
    overloaded_round(limit, clock, capacity=16)
    assert limit.rate_limited == 16
    assert limit.capacity == 17  # the 17th call in flight was the first refused
    assert limit.limit == 16  # 32 halved
    for _ in range(5):
        full_round(limit, clock)
        assert limit.limit == 16  # no probe within the quiet period


def test_a_halving_below_the_level_doubles_back_up_to_it_in_a_round():
    clock = FakeClock()
    limit = limit_of(clock)
    for _ in range(2):
        full_round(limit, clock)
    assert limit.limit == 128
    overloaded_round(limit, clock, capacity=100)
    assert (limit.capacity, limit.limit) == (101, 64)
    full_round(limit, clock)
    assert limit.limit == 100


def test_after_the_quiet_period_the_limit_probes_up_one_call_a_round():
    clock = FakeClock()
    limit = limit_of(clock)
    overloaded_round(limit, clock, capacity=16, retry_after_s=1.0)
    # Quiet for 16 x (the 1 s pause + a 0.2 s round) = 19.2 s.
    clock.time += 19.2
    grown = []
    for _ in range(3):
        full_round(limit, clock)
        grown.append(limit.limit)
    assert grown == [17, 18, 19]  # additive, and each probe that passes raises the level
    assert limit.capacity == 19


def test_a_probe_refused_at_the_same_level_doubles_the_quiet_period():
    clock = FakeClock()
    limit = limit_of(clock)
    overloaded_round(limit, clock, capacity=16)  # quiet 16 x 0.2 s = 3.2 s
    clock.time += 3.2
    full_round(limit, clock)
    assert limit.limit == 17
    overloaded_round(limit, clock, capacity=16)  # the probe is refused
    assert (limit.capacity, limit.limit) == (17, 8)
    full_round(limit, clock)
    assert limit.limit == 16
    clock.time += 3.2  # the first quiet period again: not enough now
    full_round(limit, clock)
    assert limit.limit == 16
    clock.time += 3.2
    full_round(limit, clock)
    assert limit.limit == 17


def test_one_round_of_429s_halves_the_limit_once():
    clock = FakeClock()
    limit = limit_of(clock, ceiling=8)
    tickets = [limit.started(i + 1) for i in range(8)]
    for ticket in tickets:
        limit.overloaded(ticket)
    assert limit.limit == 4
    assert limit.epoch == 1
    assert limit.rate_limited == 8


def test_a_timeout_halves_the_limit_as_a_429_does():
    clock = FakeClock()
    limit = limit_of(clock)
    tickets = [limit.started(i + 1) for i in range(32)]
    limit.overloaded(tickets[-1], timed_out=True)
    assert limit.limit == 16
    assert (limit.timeouts, limit.rate_limited) == (1, 0)


def test_the_limit_never_falls_below_the_floor():
    clock = FakeClock()
    limit = limit_of(clock, ceiling=8, floor=3)
    for _ in range(4):
        limit.overloaded(limit.started(1))
    assert limit.limit == 3


def test_a_fixed_limit_never_moves_but_honours_retry_after():
    clock = FakeClock()
    limit = limit_of(clock, ceiling=12, adaptive=False)
    assert limit.limit == 12
    full_round(limit, clock)
    limit.overloaded(limit.started(1), retry_after_s=3.0)
    assert limit.limit == 12
    assert limit.pause_left() == pytest.approx(3.0)


def test_a_retry_after_pauses_the_endpoint_for_that_long():
    clock = FakeClock()
    limit = limit_of(clock)
    limit.overloaded(limit.started(1), retry_after_s=2.5)
    assert limit.pause_left() == pytest.approx(2.5)
    clock.time += 2.5
    assert limit.pause_left() == 0


def test_bounds_are_checked():
    with pytest.raises(ValueError, match="floor"):
        AdaptiveLimit(ceiling=2, floor=3)
    with pytest.raises(ValueError, match="start"):
        AdaptiveLimit(ceiling=2, start=0)


# Through the middleware


class CapacityProvider:
    """A provider that takes `capacity` calls at once and answers 429, asking for
    `retry_after_s`, to a call beyond; each call takes a few turns of the event loop."""

    def __init__(
        self,
        capacity: int,
        retry_after_s: float | None = 1.0,
        clock: FakeClock | None = None,
    ) -> None:
        self.capacity = capacity
        self.clock = clock
        self.retry_after_s = retry_after_s
        self.in_flight = 0
        self.max_in_flight = 0
        self.answered = 0
        self.refused = 0

    @property
    def name(self) -> str:
        return "test:capacity"

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities()

    async def complete(self, request: Request) -> Response:
        if self.in_flight >= self.capacity:
            self.refused += 1
            raise ModelError(
                ErrorKind.RATE_LIMITED, "429", status=429, retry_after_s=self.retry_after_s
            )
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.clock is None:
                await settle(3)
            else:
                await self.clock.sleep(LATENCY)
            self.answered += 1
            return answer()
        finally:
            self.in_flight -= 1


def refusing(clock: FakeClock, sent: list[float], retry_after_s: float):  # type: ignore[no-untyped-def]
    def step(request: Request) -> Response:
        sent.append(clock.now())
        raise ModelError(ErrorKind.RATE_LIMITED, "429", status=429, retry_after_s=retry_after_s)

    return step


def answering(clock: FakeClock, sent: list[float]):  # type: ignore[no-untyped-def]
    def step(request: Request) -> Response:
        sent.append(clock.now())
        return answer()

    return step


async def test_a_retry_after_delays_the_endpoints_new_calls():
    clock = FakeClock()
    sent: list[float] = []
    provider = ScriptedModel(script=[refusing(clock, sent, 2.0), answering(clock, sent)])
    limited = ConcurrencyLimited(provider, max_concurrency=8, clock=clock.now, sleep=clock.sleep)
    with pytest.raises(ModelError):
        await limited.complete(REQUEST)
    assert limited.limits.pause_left() == pytest.approx(2.0)
    await limited.complete(REQUEST)  # another caller's new call
    assert clock.sleeps == [2.0]
    assert sent == [1000.0, 1002.0]


async def test_a_retry_after_delays_the_refused_calls_retry_once():
    clock = FakeClock()
    sent: list[float] = []
    provider = ScriptedModel(script=[refusing(clock, sent, 2.0), answering(clock, sent)])
    limited = ConcurrencyLimited(provider, max_concurrency=8, clock=clock.now, sleep=clock.sleep)
    model = Retrying(limited, max_attempts=2, sleep=clock.sleep, jitter=False, base_delay_s=0.0)
    await model.complete(REQUEST)
    # The retry waited the 2 s in Retrying; the endpoint's pause had passed by then.
    assert clock.sleeps == [2.0]
    assert sent == [1000.0, 1002.0]


class VirtualClock(FakeClock):
    """A fake clock for concurrent sleepers: a sleep ends at the time it was due, or at once
    when another sleeper has moved the clock past that already."""

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        due = self.time + seconds
        await asyncio.sleep(0)
        self.time = max(self.time, due)


async def test_a_batch_against_a_provider_that_takes_16_calls_ends_without_errors_at_16():
    clock = VirtualClock()
    provider = CapacityProvider(capacity=16, retry_after_s=1.0, clock=clock)
    limited = ConcurrencyLimited(provider, max_concurrency=256, clock=clock.now, sleep=clock.sleep)
    model = Retrying(limited, sleep=clock.sleep)
    semaphore = asyncio.Semaphore(256)  # the runner's items in flight

    async def one() -> Response:
        async with semaphore:
            return await model.complete(REQUEST)

    with ConcurrencyWatch() as watch:
        results = await asyncio.gather(*(one() for _ in range(1000)), return_exceptions=True)
    assert not [r for r in results if isinstance(r, BaseException)]
    assert provider.answered == 1000
    assert provider.max_in_flight == 16
    assert limited.limits.capacity == 17
    assert limited.limit == 16
    assert clock.time - 1000 < 1000 * LATENCY / 16 + 1.5  # 12.5 s ideal, the 1 s pause
    # Refusals in the first round only (as many as were sent over 16 before the first 429
    # came back): the pause and the quiet period leave no room for a probe in the batch.
    assert 1 <= provider.refused <= 16
    (seen,) = watch.report()
    assert seen["start"] == 32
    assert seen["peak"] == 32
    assert seen["final"] == 16
    assert seen["rate_limited"] == provider.refused
    assert 17 <= seen["in_flight_peak"] <= 32


async def test_the_ceiling_bounds_the_calls_in_flight():
    clock = FakeClock()
    provider = CapacityProvider(capacity=10_000)
    limited = ConcurrencyLimited(provider, max_concurrency=40, clock=clock.now, sleep=clock.sleep)
    results = await asyncio.gather(*(limited.complete(REQUEST) for _ in range(400)))
    assert len(results) == 400
    assert provider.max_in_flight == 40
    assert limited.limit == 40


async def test_a_watch_reports_only_what_happened_while_it_was_open():
    clock = FakeClock()
    provider = CapacityProvider(capacity=16, retry_after_s=None)
    limited = ConcurrencyLimited(provider, max_concurrency=64, clock=clock.now, sleep=clock.sleep)
    model = Retrying(limited, sleep=clock.sleep)
    await asyncio.gather(*(model.complete(REQUEST) for _ in range(100)))
    assert limited.limits.rate_limited > 0
    before = limited.limit
    with ConcurrencyWatch() as watch:
        await asyncio.gather(*(model.complete(REQUEST) for _ in range(16)))
    (seen,) = watch.report()
    assert seen["rate_limited"] == 0
    assert seen["start"] == before
    assert seen["final"] == limited.limit
    assert 0 < seen["in_flight_peak"] <= 16
    assert seen["endpoint"] == "test:capacity"
