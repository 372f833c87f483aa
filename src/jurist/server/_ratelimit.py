"""Rate limiting: requests per API key (or per client address without keys) in a sliding
window, counted where every process of the service sees them.

By default the counts live in the service's database, taken in leases (`_rate_leases`): a
process reserves a block of a key's places at once and spends it from memory, so
`--workers 4`, or four replicas on one database, allow what one process allows, not four
times as much, without a database write per request. `JURIST_RATE_LIMIT_STORAGE=memory`
counts in each process instead: exact for a single process, and documented as per process.

Both keep the same sliding-window estimate (the current fixed window's count plus the
previous one's, weighted by how much of it is still in view), and a refused request does not
count against the key.
"""

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from limits import RateLimitItem, parse_many

from jurist.store import Counted, retry_after

VARIABLE = "JURIST_RATE_LIMIT"
EXAMPLE = '"120/minute" (or "10 per second", "1000/hour"; "none" turns limiting off)'
_OFF = frozenset({"", "0", "none", "off"})


class Storage(StrEnum):
    DATABASE = "database"
    MEMORY = "memory"


@dataclass(frozen=True)
class RateDecision:
    """Whether one request may go ahead. `retry_after_s` (for a Retry-After header) is at
    least 1 when it may not, and 0 when it may; `remaining` counts what the window has left
    after this request."""

    allowed: bool
    retry_after_s: int
    limit: int
    remaining: int


class Counter(Protocol):
    async def hit(self, bucket: str, *, limit: int, window_s: int, now: float) -> Counted: ...


class MemoryCounter:
    """The sliding-window estimate in this process's memory."""

    def __init__(self) -> None:
        self._hits: dict[tuple[str, int], int] = {}

    async def hit(self, bucket: str, *, limit: int, window_s: int, now: float) -> Counted:
        start = int(now // window_s) * window_s
        self._forget(start - window_s)
        current = self._hits.get((bucket, start), 0) + 1
        previous = self._hits.get((bucket, start - window_s), 0)
        estimate = current + previous * (1.0 - (now - start) / window_s)
        if estimate <= limit:
            self._hits[(bucket, start)] = current
            return Counted(True, estimate, 0)
        wait = retry_after(
            estimate,
            limit,
            counted=current - 1,
            previous=previous,
            start=start,
            window_s=window_s,
            now=now,
        )
        return Counted(False, estimate - 1, wait)

    def _forget(self, oldest: int) -> None:
        if len(self._hits) > 10_000:
            for key in [key for key in self._hits if key[1] < oldest]:
                del self._hits[key]


def parse_rate(text: str, variable: str = VARIABLE) -> RateLimitItem | None:
    """The rate a text names, or None for no limit (blank, "0", "none", "off"); a ValueError
    names `variable` and shows an example."""
    value = (text or "").strip()
    if value.lower() in _OFF:
        return None
    try:
        rates = parse_many(value)
    except ValueError:
        raise ValueError(f"{variable}={value!r} is not a rate; write one like {EXAMPLE}") from None
    if len(rates) != 1:
        raise ValueError(f"{variable}={value!r} holds {len(rates)} rates; give one, like {EXAMPLE}")
    if rates[0].amount < 1:
        raise ValueError(
            f"{variable}={value!r} allows no requests at all; to turn limiting off "
            f'write "none", else a rate like {EXAMPLE}'
        )
    return rates[0]


class RateLimiter:
    """At most `rate.amount` requests per key in any window of the rate's length (a key may
    carry its own rate). `counter` keeps the counts; `clock` is the time in seconds."""

    def __init__(
        self,
        rate: RateLimitItem,
        counter: Counter | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if rate.amount < 1:
            raise ValueError(f"RateLimiter: the rate {rate} allows no requests; use None instead")
        self.rate = rate
        self.counter: Counter = counter or MemoryCounter()
        self._clock = clock

    @classmethod
    def parse(cls, text: str | None, counter: Counter | None = None) -> "RateLimiter | None":
        """The limiter a JURIST_RATE_LIMIT value asks for, or None for no limit (None, blank,
        "0", "none", "off")."""
        rate = parse_rate(text or "")
        return None if rate is None else cls(rate, counter)

    async def hit(self, key: str, rate: RateLimitItem | None = None) -> RateDecision:
        """Counts one request for `key` if its window has room, and says whether it had."""
        chosen = rate or self.rate
        counted = await self.counter.hit(
            f"{key}|{chosen.amount}/{chosen.get_expiry()}",
            limit=chosen.amount,
            window_s=chosen.get_expiry(),
            now=self._clock(),
        )
        return RateDecision(
            allowed=counted.allowed,
            retry_after_s=counted.retry_after_s,
            limit=chosen.amount,
            remaining=max(0, math.floor(chosen.amount - counted.count)),
        )

    def __repr__(self) -> str:
        return f"RateLimiter({self.rate})"
