"""Rate-limit counts shared through the database, taken in leases: a process reserves a block
of a key's places in the database's sliding window at once, and spends it from memory.

Counting every request in the database costs a write transaction per request, and on SQLite
every write waits its turn. A lease costs one per block instead. Its size follows what is
left of the limit (a sixteenth of it, at most `MAX_LEASE`), so a small limit is still taken
one place at a time, exactly as before; a large one (the bench's, a busy key's) is taken a
few hundred at a time.

What this gives up: places leased by one process and not yet spent are not available to
another, so a key spread over several processes may be refused a little before its limit
(by at most the unspent leases, a sixteenth of what was left per process), never let
through beyond it. A lease belongs to one window: a new window leases anew.
"""

from dataclasses import dataclass

from jurist.core import SingleFlight
from jurist.store import Counted, RateCounts

# The largest block of places one lease takes: one write per this many requests at most.
MAX_LEASE = 256
# The share of what is left of a limit one lease takes.
LEASE_SHARE = 16


@dataclass
class _Lease:
    start: int  # the window it belongs to
    left: int  # places reserved and not yet spent
    estimate: float  # the database's estimate after the lease was taken


class LeasedCounter:
    """A `Counter` spending places leased from the database (`RateCounts.take`) from memory;
    one per process."""

    def __init__(self, leases: RateCounts) -> None:
        self.leases = leases
        self._held: dict[str, _Lease] = {}
        self._leasing: SingleFlight[tuple[str, int], Counted | None] = SingleFlight(keep="none")

    async def hit(self, bucket: str, *, limit: int, window_s: int, now: float) -> Counted:
        start = int(now // window_s) * window_s
        while True:
            lease = self._held.get(bucket)
            if lease is not None and lease.start == start and lease.left >= 1:
                break
            # The requests that find the lease spent together wait for one new lease, not
            # a write each (which on SQLite would queue behind each other and the store's).
            refused = await self._leasing(
                (bucket, start), lambda: self._lease(bucket, start, limit, window_s, now)
            )
            if refused is not None:
                return refused
        lease.left -= 1
        if len(self._held) > 10_000:  # buckets of past windows: a new window leases anew
            self._held = {k: v for k, v in self._held.items() if v.start >= start}
        # Counted in the database already: what is spent of the window, as far as known here.
        return Counted(True, lease.estimate - lease.left, 0)

    async def _lease(
        self, bucket: str, start: int, limit: int, window_s: int, now: float
    ) -> Counted | None:
        """More places of `bucket` in the window from `start`: None once they are held here,
        or the refusal when the database has none left."""
        lease = self._held.get(bucket)
        known_left = limit if lease is None else max(0.0, limit - lease.estimate)
        want = max(1, min(MAX_LEASE, int(known_left) // LEASE_SHARE))
        granted, counted = await self.leases.take(
            bucket, want=want, limit=limit, window_s=window_s, now=now
        )
        if not granted:
            return counted
        lease = self._held.get(bucket)
        if lease is None or lease.start != start:
            lease = self._held[bucket] = _Lease(start, 0, counted.count)
        lease.left += granted
        lease.estimate = max(lease.estimate, counted.count)
        return None
