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

import math
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.store import Counted, Transactional, rate_limit_counts

# The largest block of places one lease takes: one write per this many requests at most.
MAX_LEASE = 256
# The share of what is left of a limit one lease takes.
LEASE_SHARE = 16


@dataclass
class _Lease:
    start: int  # the window it belongs to
    left: int  # places reserved and not yet spent
    estimate: float  # the database's estimate after the lease was taken


class RateLeases(Transactional):
    """The database side: `take` reserves up to `want` places of a bucket's sliding window."""

    async def take(
        self, bucket: str, *, want: int, limit: int, window_s: int, now: float
    ) -> tuple[int, Counted]:
        """How many of `want` places fit under `limit` in the sliding window of `window_s`
        seconds ending at `now`, reserved at once (none when the window is full), and what
        the count then is. Concurrent takes of one bucket serialise on its row, so two
        processes never both take the last place."""
        if limit < 1 or window_s < 1 or want < 1:
            raise ValueError(f"limit, window_s and want must be 1 or more: {limit}, {window_s}")
        start = int(now // window_s) * window_s
        covered = 1.0 - (now - start) / window_s  # of the previous window, still in view
        async with self._writing("count requests for the rate limit") as connection:
            current = await _increment(connection, bucket, start, want)
            previous = await connection.scalar(
                sa.select(rate_limit_counts.c.hits).where(
                    rate_limit_counts.c.bucket == bucket,
                    rate_limit_counts.c.window_start == start - window_s,
                )
            )
            estimate = current + (previous or 0) * covered
            granted = want - max(0, math.ceil(estimate - limit - 1e-9))
            granted = max(0, granted)
            if granted < want:
                await _increment(connection, bucket, start, granted - want)
        if granted:
            return granted, Counted(True, estimate - (want - granted), 0)
        counted = current - want  # this window's count without the refused hits
        wait = retry_after(
            estimate - want + 1,
            limit,
            counted=counted,
            previous=previous or 0,
            start=start,
            window_s=window_s,
            now=now,
        )
        return 0, Counted(False, estimate - want, wait)


class LeasedCounter:
    """A `Counter` spending leases of `RateLeases` from memory; one per process."""

    def __init__(self, leases: RateLeases) -> None:
        self.leases = leases
        self._held: dict[str, _Lease] = {}

    async def hit(self, bucket: str, *, limit: int, window_s: int, now: float) -> Counted:
        start = int(now // window_s) * window_s
        lease = self._held.get(bucket)
        if lease is None or lease.start != start or lease.left < 1:
            known_left = limit if lease is None else max(0.0, limit - lease.estimate)
            want = max(1, min(MAX_LEASE, int(known_left) // LEASE_SHARE))
            granted, counted = await self.leases.take(
                bucket, want=want, limit=limit, window_s=window_s, now=now
            )
            if not granted:
                return counted
            # Another request of this bucket may have leased meanwhile: keep both blocks.
            lease = self._held.get(bucket)
            if lease is None or lease.start != start:
                lease = self._held[bucket] = _Lease(start, 0, counted.count)
            lease.left += granted
            lease.estimate = max(lease.estimate, counted.count)
        lease.left -= 1
        if len(self._held) > 10_000:  # buckets of past windows: a new window leases anew
            self._held = {k: v for k, v in self._held.items() if v.start >= start}
        # Counted in the database already: what is spent of the window, as far as known here.
        return Counted(True, lease.estimate - lease.left, 0)


def retry_after(
    estimate: float,
    limit: int,
    *,
    counted: int,
    previous: int,
    start: int,
    window_s: int,
    now: float,
) -> int:
    """Seconds until a refused request may find a place: `estimate` is the window's count
    with the request, `counted` the current window's without it, `previous` the last
    window's."""
    if previous and counted < limit:
        # The weighted part decays linearly.
        wait = (estimate - limit) / previous * window_s
    else:
        # Into the next window, until this window's weight leaves room for one more.
        wait = start + window_s - now + window_s * max(0.0, 1 - (limit - 1) / max(counted, 1))
    # A moving window frees a place within one window; the estimate may ask a little
    # longer, and a caller told to wait no longer than the window asks again then.
    return max(1, math.ceil(min(wait, window_s)))


async def _increment(connection: AsyncConnection, bucket: str, start: int, by: int) -> int:
    values = {"bucket": bucket, "window_start": start, "hits": max(by, 0)}
    insert: postgresql.Insert | sqlite.Insert
    if connection.dialect.name == "postgresql":
        insert = postgresql.insert(rate_limit_counts).values(values)
    else:
        insert = sqlite.insert(rate_limit_counts).values(values)
    statement = insert.on_conflict_do_update(
        index_elements=[rate_limit_counts.c.bucket, rate_limit_counts.c.window_start],
        set_={"hits": rate_limit_counts.c.hits + by},
    ).returning(rate_limit_counts.c.hits)
    return int((await connection.execute(statement)).scalar_one())
