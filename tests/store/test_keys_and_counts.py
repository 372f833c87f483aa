"""The key table and the shared rate-limit counts, on SQLite and PostgreSQL."""

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from jurist.store import DuplicateRecordError, KeyStore, RateCounts

A, B, C = "a" * 64, "b" * 64, "c" * 64


async def test_a_key_is_found_by_its_hash_until_revoked(database_url):
    async with await KeyStore.open(database_url) as keys:
        made = await keys.create("alice", A, role="admin", rate_limit="5/minute", note="ops")
        assert (made.id, made.role, made.rate_limit, made.active) == (
            "alice",
            "admin",
            "5/minute",
            True,
        )
        assert (await keys.find(A)).id == "alice"
        assert await keys.find(B) is None
        assert await keys.count() == 1
        revoked = await keys.revoke("alice")
        assert not revoked.active
        assert await keys.find(A) is None
        assert await keys.count() == 0
        assert await keys.count(include_revoked=True) == 1
        assert [k.id for k in await keys.list()] == ["alice"]
        assert await keys.list(include_revoked=False) == []


async def test_an_id_names_one_tenant_for_ever(database_url):
    async with await KeyStore.open(database_url) as keys:
        await keys.create("alice", A)
        await keys.revoke("alice")
        # A new key under a revoked id would inherit that tenant's records.
        with pytest.raises(DuplicateRecordError):
            await keys.create("alice", B)
        with pytest.raises(DuplicateRecordError):
            await keys.create("bob", A)  # the same secret as another key


async def test_rotation_keeps_the_id_and_honours_the_grace_period(database_url):
    async with await KeyStore.open(database_url) as keys:
        await keys.create("alice", A)
        rotated = await keys.rotate("alice", B, grace=timedelta(hours=1))
        assert rotated.id == "alice"
        assert (await keys.find(B)).id == "alice"
        assert (await keys.find(A)).id == "alice"  # within the grace period
        later = datetime.now(UTC) + timedelta(hours=2)
        assert await keys.find(A, now=later) is None
        assert (await keys.find(B, now=later)).id == "alice"
        await keys.rotate("alice", C, grace=timedelta(0))
        assert await keys.find(B) is None
        assert (await keys.find(C)).id == "alice"
        await keys.revoke("alice")
        with pytest.raises(LookupError):
            await keys.rotate("alice", A, grace=timedelta(0))
        with pytest.raises(LookupError):
            await keys.revoke("nobody")


@pytest.mark.parametrize(
    ("key_id", "role", "digest", "problem"),
    [
        ("a b", "user", A, "key id"),
        ("x" * 65, "user", A, "key id"),
        ("alice", "root", A, "role"),
        ("alice", "user", "A" * 64, "sha256"),
    ],
)
async def test_bad_keys_are_refused_naming_the_field(database_url, key_id, role, digest, problem):
    async with await KeyStore.open(database_url) as keys:
        with pytest.raises(ValueError, match=problem):
            await keys.create(key_id, digest, role=role)
        assert await keys.list() == []


async def test_counts_allow_the_limit_in_a_window_and_refusals_do_not_count(database_url):
    async with await RateCounts.open(database_url) as counts:
        start = 1_800_000_000.0  # the start of a 60 s window
        hits = [await counts.hit("k", limit=3, window_s=60, now=start + i) for i in range(5)]
        assert [h.allowed for h in hits] == [True, True, True, False, False]
        assert all(0 < h.retry_after_s <= 60 for h in hits[3:])
        assert (await counts.hit("other", limit=3, window_s=60, now=start + 5)).allowed


async def test_the_previous_window_weighs_in_as_it_slides_away(database_url):
    async with await RateCounts.open(database_url) as counts:
        start = 1_800_000_000.0
        for i in range(4):
            assert (await counts.hit("k", limit=4, window_s=60, now=start + i)).allowed
        # A quarter into the next window, three quarters of the previous 4 still count: 3.
        assert (await counts.hit("k", limit=4, window_s=60, now=start + 75)).allowed
        assert not (await counts.hit("k", limit=4, window_s=60, now=start + 76)).allowed
        # Once the previous window has slid away, only this window's 1 counts.
        assert (await counts.hit("k", limit=4, window_s=60, now=start + 119)).allowed


async def test_concurrent_hits_never_let_more_than_the_limit_through(database_url):
    async with (
        await RateCounts.open(database_url) as first,
        await RateCounts.open(database_url) as second,
    ):
        now = 1_800_000_000.0
        decided = await asyncio.gather(
            *(
                (first if i % 2 else second).hit("k", limit=5, window_s=3600, now=now)
                for i in range(20)
            )
        )
        assert sum(d.allowed for d in decided) == 5


async def test_old_windows_are_forgotten(database_url):
    async with await RateCounts.open(database_url) as counts:
        await counts.hit("k", limit=3, window_s=60, now=1_800_000_000.0)
        await counts.hit("k", limit=3, window_s=60, now=1_800_000_600.0)
        assert await counts.forget_before(1_800_000_300) == 1
