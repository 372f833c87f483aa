"""How many calls one provider endpoint takes at once, learned from its answers.

`AdaptiveLimit` holds one endpoint's limit and the calls in flight on it (a `_Gate` per event
loop); `ConcurrencyLimited` (in `_limits`) is the middleware that asks it for a slot.

The limit starts at `START` (32, or the ceiling when that is lower) and, like TCP's slow
start, gains a slot for each call answered while the limit is the bound (other calls wait
for a slot), so it doubles each round of calls, as long as no call of the round was
rate-limited (429) or timed out and the call's latency stays within `LATENCY_FACTOR` of the
best seen. It never exceeds the ceiling.

An overload (a 429 or a timeout) halves the limit and remembers the level it came at: the
fewest calls in flight when one of the calls it refused was sent, and never less than the
halved limit plus one. The limit then doubles back up to just below that level and stays
there; it probes one call above only after a quiet period that is long against what the
overload cost (`QUIET_ROUNDS` times its Retry-After pause plus a round), and goes on growing
one call per round (a round: as many completions as the limit was when it began, the limit
reached, no 429, the round's median latency within `LATENCY_FACTOR` of the best round's)
while those probes pass (additive increase). A probe refused at the same
level doubles the quiet period. Plain halving would saw between C/2 and C around a provider
that takes C calls at once, about 75 % of its throughput; this stays at C.

A Retry-After on a 429 pauses the whole endpoint: no new call starts before it has passed
(the refused call's own retry waits for it in `Retrying`). A fixed limit (`adaptive=False`)
never moves, but honours Retry-After all the same.
"""

import asyncio
import math
import statistics
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Where an adaptive limit starts (lowered to the ceiling when that is lower).
START = 32
#: A round whose median latency is above this multiple of the best round's does not grow
#: the limit: the provider is queueing the calls rather than running them.
LATENCY_FACTOR = 2.0
#: How long, against what an overload cost, the limit stays below the remembered level
#: before it probes above it again: 16 keeps failed probes under about 6 % of the time.
QUIET_ROUNDS = 16.0
#: The longest Retry-After pause honoured (as `Retrying.MAX_RETRY_AFTER_S`): a server asking
#: for more is saying "not soon", and the call fails at once rather than pausing everyone.
MAX_PAUSE_S = 120.0


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


@dataclass(frozen=True)
class Ticket:
    """One call's admission: the limit's epoch (how many decreases came before it), how many
    calls were in flight with it when it was sent, and when."""

    epoch: int
    position: int
    started: float


class AdaptiveLimit:
    """One endpoint's limit on calls in flight; see the module's docstring for the policy.

    `ceiling` bounds it; `floor` is the least it falls to; `adaptive=False` holds it at the
    ceiling. `clock` times latencies, pauses and quiet periods (a fake one in tests). Every
    number it acts on is readable (`limit`, `capacity`, `paused_until`, the counters), so
    tests assert on state rather than on timing.
    """

    def __init__(
        self,
        *,
        ceiling: int,
        start: int = START,
        floor: int = 1,
        adaptive: bool = True,
        name: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 1 <= floor <= ceiling:
            raise ValueError(
                f"a concurrency limit needs 1 <= floor <= ceiling, got {floor} and {ceiling}"
            )
        if start < 1:
            raise ValueError(f"a concurrency limit's start must be at least 1, got {start}")
        self.ceiling = ceiling
        self.floor = floor
        self.adaptive = adaptive
        self.name = name
        self._clock = clock
        self.start = max(floor, min(start, ceiling)) if adaptive else ceiling
        self.limit = self.start
        self.peak = self.limit
        #: The level the last overload came at (None before any): the limit stays below it
        #: until a quiet period has passed.
        self.capacity: int | None = None
        self.paused_until = -math.inf
        self.epoch = 0
        self.rate_limited = 0
        self.timeouts = 0
        self.in_flight_peak = 0
        self.rounds = 0
        self._best_latency: float | None = None  # the best round's median
        self._best_call: float | None = None
        self._quiet_from = -math.inf
        self._quiet_pause = 0.0
        self._quiet_scale = 1
        self._halved_to = floor
        self._new_round()
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gate] = (
            weakref.WeakKeyDictionary()
        )

    # -- slots ---------------------------------------------------------------------------

    def current(self) -> int:
        return self.limit

    def gate(self) -> _Gate:
        """The running event loop's calls in flight (asyncio primitives are per loop; the
        learned limit is shared by all)."""
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = _Gate()
        return gate

    def pause_left(self) -> float:
        """Seconds until the endpoint may take new calls again (0 when it may now)."""
        return max(0.0, self.paused_until - self._clock())

    # -- what calls report ---------------------------------------------------------------

    def started(self, in_flight: int) -> Ticket:
        """A call was admitted with `in_flight` calls in flight (itself included)."""
        if in_flight >= self.limit:
            self._round_full = True
        self.in_flight_peak = max(self.in_flight_peak, in_flight)
        self._notify(in_flight)
        return Ticket(self.epoch, in_flight, self._clock())

    def succeeded(self, ticket: Ticket, *, waiting: bool) -> None:
        """A call was answered; `waiting` says whether other calls were waiting for a slot
        (the limit was the bound: growing it would let more run)."""
        latency = self._clock() - ticket.started
        self._latencies.append(latency)
        if self._best_call is None or latency < self._best_call:
            self._best_call = latency
        if (
            self.adaptive
            and waiting
            and ticket.epoch == self.epoch
            and not self._round_overloaded
            and self.limit < self._below()
            and latency <= LATENCY_FACTOR * self._best_call
        ):
            # Slow start: a slot more for each call answered while others wait, which doubles
            # the limit each round without waiting for the round's slowest call.
            self.limit += 1
            self.peak = max(self.peak, self.limit)
            self._notify(0)
        self._completed()

    def failed(self, ticket: Ticket) -> None:
        """A call failed for a reason that says nothing about load (a bad request)."""
        self._completed()

    def overloaded(
        self, ticket: Ticket, *, retry_after_s: float | None = None, timed_out: bool = False
    ) -> None:
        """A call was refused for load (429) or timed out; `retry_after_s` pauses the
        endpoint for that long (up to `MAX_PAUSE_S`)."""
        now = self._clock()
        if timed_out:
            self.timeouts += 1
        else:
            self.rate_limited += 1
        pause = 0.0
        if retry_after_s is not None and 0 < retry_after_s <= MAX_PAUSE_S:
            pause = retry_after_s
            self.paused_until = max(self.paused_until, now + pause)
        self._round_overloaded = True
        if self.adaptive:
            if ticket.epoch == self.epoch:
                self._decrease(ticket.position, pause, now)
            elif ticket.epoch == self.epoch - 1 and self.capacity is not None:
                # A call sent before the decrease, refused after it: same episode, and a
                # lower level at which the provider refused is a better estimate.
                self.capacity = max(self._halved_to + 1, min(self.capacity, ticket.position))
                self.limit = max(self.floor, min(self.limit, self.capacity - 1))
        self._completed()

    # -- the policy ----------------------------------------------------------------------

    def _decrease(self, position: int, pause: float, now: float) -> None:
        halved = max(self.floor, self.limit // 2)
        level = max(halved + 1, position)
        repeated = self.capacity is not None and level >= self.capacity
        self.capacity = level
        self._halved_to = halved
        self.limit = max(self.floor, min(halved, level - 1))
        self.epoch += 1
        # The quiet period before probing above the level again, long against what this
        # overload cost (its pause and about a round of calls; see `_probe_due`), doubled
        # when a probe was refused at the same level.
        self._quiet_scale = self._quiet_scale * 2 if repeated else 1
        self._quiet_pause = pause
        self._quiet_from = now
        self._new_round()

    def _probe_due(self) -> bool:
        # The round's length is read now rather than at the overload: the first overload may
        # come before any round has finished.
        cost = self._quiet_pause + (self._best_latency or 0.0)
        return self._clock() >= self._quiet_from + self._quiet_scale * QUIET_ROUNDS * cost

    def _completed(self) -> None:
        self._round_left -= 1
        if self._round_left > 0:
            return
        self.rounds += 1
        median = statistics.median(self._latencies) if self._latencies else None
        if median is not None and (self._best_latency is None or median < self._best_latency):
            self._best_latency = median
        clean = self._round_full and not self._round_overloaded
        holds = median is None or median <= LATENCY_FACTOR * (self._best_latency or 0.0)
        if self.adaptive and clean and holds:
            self._grow()
        self._new_round()

    def _grow(self) -> None:
        if self.capacity is not None and self.limit >= self.capacity:
            # A probe at or above the remembered level passed: the provider takes this many.
            self.capacity = self.limit + 1
        if self.limit >= self._below() and self._probe_due():
            self.limit = min(self.limit + 1, self.ceiling)
            self.peak = max(self.peak, self.limit)
            self._notify(0)

    def _below(self) -> int:
        """How far slow start may take the limit: the ceiling, or just below the level the
        last overload came at."""
        return self.ceiling if self.capacity is None else min(self.ceiling, self.capacity - 1)

    def _notify(self, in_flight: int) -> None:
        for watch in _watches:
            watch.note(self, in_flight)

    def _new_round(self) -> None:
        self._round_left = self.limit
        self._round_full = False
        self._round_overloaded = False
        self._latencies: list[float] = []

    def snapshot(self) -> dict[str, Any]:
        """The limit's state, as JSON-ready numbers."""
        return {
            "endpoint": self.name,
            "adaptive": self.adaptive,
            "ceiling": self.ceiling,
            "start": self.start,
            "peak": self.peak,
            "final": self.limit,
            "in_flight_peak": self.in_flight_peak,
            "rate_limited": self.rate_limited,
            "timeouts": self.timeouts,
        }


class ConcurrencyWatch:
    """What the endpoints' limits did while the watch was open, for a run's summary:

        with ConcurrencyWatch() as watch:
            ...
        watch.report()  # one dict per endpoint that was called

    Each dict names the endpoint, whether its limit adapts, its ceiling, the limit when the
    watch first saw it (`start`), the highest it reached (`peak`) and where it ended
    (`final`), the most calls in flight, and the calls rate-limited or timed out meanwhile.
    It covers every call of the process while open, so two runs at once each see both.
    """

    def __init__(self) -> None:
        self._seen: dict[int, dict[str, Any]] = {}
        self._limits: dict[int, AdaptiveLimit] = {}

    def start(self) -> "ConcurrencyWatch":
        _watches.add(self)
        return self

    def stop(self) -> None:
        _watches.discard(self)

    def __enter__(self) -> "ConcurrencyWatch":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def note(self, limit: AdaptiveLimit, in_flight: int) -> None:
        seen = self._seen.get(id(limit))
        if seen is None:
            self._limits[id(limit)] = limit
            seen = self._seen[id(limit)] = {
                "start": limit.limit,
                "peak": limit.limit,
                "in_flight_peak": 0,
                "rate_limited": limit.rate_limited,
                "timeouts": limit.timeouts,
            }
        seen["peak"] = max(seen["peak"], limit.limit)
        seen["in_flight_peak"] = max(seen["in_flight_peak"], in_flight)

    def report(self) -> list[dict[str, Any]]:
        out = []
        for key, seen in self._seen.items():
            limit = self._limits[key]
            out.append(
                {
                    "endpoint": limit.name,
                    "adaptive": limit.adaptive,
                    "ceiling": limit.ceiling,
                    "start": seen["start"],
                    "peak": max(seen["peak"], limit.limit),
                    "final": limit.limit,
                    "in_flight_peak": seen["in_flight_peak"],
                    "rate_limited": limit.rate_limited - seen["rate_limited"],
                    "timeouts": limit.timeouts - seen["timeouts"],
                }
            )
        return out


# Weak: a watch nobody holds any more stops watching, without a stop() in every path out.
_watches: weakref.WeakSet[ConcurrencyWatch] = weakref.WeakSet()
