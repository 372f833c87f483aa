"""Request counts for rate limits, in the store's database, so every process of the service
(workers, replicas on the same database) counts against one limit.

A sliding-window estimate over fixed windows: the count of the current window plus the
previous window's count weighted by how much of it the sliding window still covers. It needs
one row per bucket and window, and is what large API gateways use; it errs by at most the
previous window's unevenness, never by a factor of the number of processes.
"""

import math
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.store._handle import Transactional
from jurist.store._tables import rate_limit_counts


@dataclass(frozen=True)
class Counted:
    """What one hit found: whether it was allowed, the estimated count in the sliding window
    (this hit included when allowed), and seconds until a refused caller may try again."""

    allowed: bool
    count: float
    retry_after_s: int


class RateCounts(Transactional):
    async def hit(self, bucket: str, *, limit: int, window_s: int, now: float) -> Counted:
        """Count one request for `bucket` if the sliding window of `window_s` seconds ending
        at `now` (seconds since the epoch) has fewer than `limit`; a refused request is not
        counted."""
        return (await self.take(bucket, want=1, limit=limit, window_s=window_s, now=now))[1]

    async def take(
        self, bucket: str, *, want: int, limit: int, window_s: int, now: float
    ) -> tuple[int, Counted]:
        """How many of `want` places fit under `limit` in the sliding window of `window_s`
        seconds ending at `now`, reserved at once (none when the window is full), and what
        the count then is. A service spending places from memory takes them in blocks, one
        write per block; `hit` takes one. Concurrent takes of one bucket serialise on its
        row, so no two processes can both take the last place."""
        if limit < 1 or window_s < 1 or want < 1:
            raise ValueError(
                f"limit, window_s and want must be at least 1, got {limit}, {window_s}, {want}"
            )
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
            granted = max(0, want - max(0, math.ceil(estimate - limit - 1e-9)))
            if granted < want:
                await _increment(connection, bucket, start, granted - want)
        if granted:
            return granted, Counted(True, estimate - (want - granted), 0)
        wait = retry_after(
            estimate - want + 1,
            limit,
            counted=current - want,  # this window's count without the refused hits
            previous=previous or 0,
            start=start,
            window_s=window_s,
            now=now,
        )
        return 0, Counted(False, estimate - want, wait)

    async def forget_before(self, cutoff: float) -> int:
        """Delete the counts of windows that started before `cutoff`; how many rows."""
        async with self._writing("forget old rate-limit counts") as connection:
            result = await connection.execute(
                sa.delete(rate_limit_counts).where(rate_limit_counts.c.window_start < cutoff)
            )
        return int(result.rowcount or 0)


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
