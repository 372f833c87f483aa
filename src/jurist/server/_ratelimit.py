"""Per-key rate limiting: a moving window of requests per API key (or per client without keys).

The counts live in this process's memory. A server run with several worker processes keeps
one count per worker, so a client may get up to (workers x limit) requests through; a limit
shared by all workers needs a shared store (Redis), which jurist does not ship.
"""

import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

VARIABLE = "JURIST_RATE_LIMIT"
EXAMPLE = '"120/minute" (or "10 per second", "1000/hour"; "none" turns limiting off)'
_OFF = frozenset({"", "0", "none", "off"})


@dataclass(frozen=True)
class Decision:
    """Whether one request may go ahead. `retry_after_s` (for a Retry-After header) is at
    least 1 when it may not, and 0 when it may; `remaining` counts what the window has left
    after this request."""

    allowed: bool
    retry_after_s: int
    limit: int
    remaining: int


class RateLimiter:
    """At most `rate.amount` requests per key in any window of the rate's length.

    A moving window, not a fixed one: a fixed window lets a client send twice the limit
    across a window boundary. A refused request does not count against the key.
    """

    def __init__(self, rate: RateLimitItem) -> None:
        if rate.amount < 1:
            raise ValueError(f"RateLimiter: the rate {rate} allows no requests; use None instead")
        self.rate = rate
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    @classmethod
    def parse(cls, text: str | None) -> "RateLimiter | None":
        """The limiter a JURIST_RATE_LIMIT value asks for, or None for no limit (None, blank,
        "0", "none", "off")."""
        value = (text or "").strip()
        if value.lower() in _OFF:
            return None
        try:
            rates = parse_many(value)
        except ValueError:
            raise ValueError(
                f"{VARIABLE}={value!r} is not a rate; write one like {EXAMPLE}"
            ) from None
        if len(rates) != 1:
            raise ValueError(
                f"{VARIABLE}={value!r} holds {len(rates)} rates; give one, like {EXAMPLE}"
            )
        if rates[0].amount < 1:
            raise ValueError(
                f"{VARIABLE}={value!r} allows no requests at all; to turn limiting off "
                f'write "none", else a rate like {EXAMPLE}'
            )
        return cls(rates[0])

    def hit(self, key: str) -> Decision:
        """Counts one request for `key` if the window has room, and says whether it had."""
        allowed = self._limiter.hit(self.rate, key)
        stats = self._limiter.get_window_stats(self.rate, key)
        retry_after_s = 0
        if not allowed:
            retry_after_s = max(1, math.ceil(stats.reset_time - time.time()))
        return Decision(
            allowed=allowed,
            retry_after_s=retry_after_s,
            limit=self.rate.amount,
            remaining=max(0, stats.remaining),
        )

    def __repr__(self) -> str:
        return f"RateLimiter({self.rate})"
