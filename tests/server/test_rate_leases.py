"""Rate limits shared through the database in leases: processes on one database never let a
key through beyond its limit together, and a large limit costs a write per block of
requests, not per request. Two limiters on one database stand for two processes; the clock
is fixed, so no test sleeps."""

import asyncio

import pytest

from jurist.server._rate_leases import MAX_LEASE, LeasedCounter
from jurist.server._ratelimit import RateLimiter, parse_rate
from jurist.store import RateCounts

NOW = 1_800_000_000.0  # the start of an hour's window

pytestmark = pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)


class CountedTakes(RateCounts):
    """RateCounts counting its database writes."""

    takes = 0
    gate: asyncio.Event | None = None  # when given, each write waits for it
    taking: asyncio.Event | None = None  # set when a write has begun

    async def take(self, bucket, **kwargs):  # type: ignore[no-untyped-def]
        self.takes += 1
        if self.taking is not None:
            self.taking.set()
        if self.gate is not None:
            await self.gate.wait()
        return await super().take(bucket, **kwargs)


def limiter(engine_owner: RateCounts, rate: str) -> RateLimiter:
    parsed = parse_rate(rate)
    assert parsed is not None
    return RateLimiter(parsed, LeasedCounter(engine_owner), clock=lambda: NOW)


async def test_two_processes_together_never_pass_the_limit(database):
    async with (
        await CountedTakes.open(database) as first,
        await CountedTakes.open(database) as second,
    ):
        here, there = limiter(first, "100/hour"), limiter(second, "100/hour")
        decisions = [await (here if i % 2 else there).hit("alice") for i in range(100)]
        # Leases: fewer writes than requests let through.
        assert first.takes + second.takes < sum(d.allowed for d in decisions)
        decisions += [await (here if i % 2 else there).hit("alice") for i in range(200)]
        allowed = sum(d.allowed for d in decisions)
        # Every place is spent in the end (a lease left unspent in one process is spent by
        # its next requests), and not one more.
        assert allowed == 100
        refused = [d for d in decisions if not d.allowed]
        assert all(0 < d.retry_after_s <= 3600 for d in refused)
        assert all(d.remaining == 0 for d in refused)


async def test_concurrent_requests_of_two_processes_never_pass_a_small_limit(database):
    async with (
        await RateCounts.open(database) as first,
        await RateCounts.open(database) as second,
    ):
        here, there = limiter(first, "5/hour"), limiter(second, "5/hour")
        decided = await asyncio.gather(
            *((here if i % 2 else there).hit("alice") for i in range(20))
        )
        assert sum(d.allowed for d in decided) == 5


async def test_a_large_limit_costs_a_write_per_block_of_requests(database):
    async with await CountedTakes.open(database) as leases:
        limited = limiter(leases, "100000000/minute")
        decisions = [await limited.hit("bench") for _ in range(1000)]
        assert all(d.allowed for d in decisions)
        assert leases.takes == -(-1000 // MAX_LEASE)
        # What is left counts what this process reserved, spent or not: never more.
        assert decisions[-1].remaining <= 100_000_000 - 1000


async def test_requests_that_find_the_lease_spent_together_take_one_lease(database):
    async with await CountedTakes.open(database) as leases:
        leases.gate, leases.taking = asyncio.Event(), asyncio.Event()
        limited = limiter(leases, "100000000/minute")
        waiting = [asyncio.ensure_future(limited.hit("bench")) for _ in range(64)]
        await leases.taking.wait()
        leases.gate.set()
        decisions = await asyncio.gather(*waiting)
        assert all(d.allowed for d in decisions)
        assert leases.takes == 1


async def test_keys_lease_apart(database):
    async with await RateCounts.open(database) as leases:
        limited = limiter(leases, "2/hour")
        assert [(await limited.hit("a")).allowed for _ in range(3)] == [True, True, False]
        assert (await limited.hit("b")).allowed
