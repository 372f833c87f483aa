"""Keys looked up in the database are remembered for JURIST_KEY_CACHE_S: a request does not
read the key table each time, and a key revoked by another process stops working within that
time (at once in the process that revoked it). The clock is a counter, so no test sleeps."""

import asyncio

import pytest

from jurist.server._auth import Authenticator
from jurist.server._keys import KeyRing, new_key
from jurist.store import KeyStore

pytestmark = pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountedKeys(KeyStore):
    finds = 0
    counts = 0
    gate: asyncio.Event | None = None  # when set, each read waits for it
    reading: asyncio.Event | None = None  # set when a read has begun

    async def find(self, sha256, now=None):  # type: ignore[no-untyped-def]
        self.finds += 1
        await self._wait()
        return await super().find(sha256, now)

    async def count(self, *, include_revoked=False):  # type: ignore[no-untyped-def]
        self.counts += 1
        await self._wait()
        return await super().count(include_revoked=include_revoked)

    async def _wait(self) -> None:
        if self.reading is not None:
            self.reading.set()
        if self.gate is not None:
            await self.gate.wait()


async def test_a_revoked_key_works_at_most_the_cache_time_longer(database):
    secret, digest = new_key()
    clock = Clock()
    async with await CountedKeys.open(database) as keys, await KeyStore.open(database) as other:
        await keys.create("erin", digest, rate_limit="5/minute")
        auth = Authenticator(KeyRing(), keys, cache_s=5.0, clock=clock)
        header = f"Bearer {secret}"
        first = await auth.identify(header)
        assert first is not None
        assert first.key_id == "erin"
        assert first.rate is not None
        assert first.rate.amount == 5
        for _ in range(10):
            assert await auth.identify(header) == first
        assert keys.finds == 1  # remembered, not read again
        await other.revoke("erin")  # another process revokes it
        clock.now += 4.9
        assert await auth.identify(header) == first  # still within the cache time
        clock.now += 0.2
        assert await auth.identify(header) is None
        assert keys.finds == 2


async def test_the_process_that_changes_a_key_forgets_at_once(database):
    secret, digest = new_key()
    async with await KeyStore.open(database) as keys:
        await keys.create("erin", digest)
        auth = Authenticator(KeyRing(), keys, cache_s=3600.0, clock=Clock())
        assert await auth.identify(f"Bearer {secret}") is not None
        await keys.revoke("erin")
        auth.forget()
        assert await auth.identify(f"Bearer {secret}") is None


async def test_an_unknown_key_is_remembered_as_unknown_too(database):
    async with await CountedKeys.open(database) as keys:
        auth = Authenticator(KeyRing(), keys, cache_s=5.0, clock=Clock())
        for _ in range(5):
            assert await auth.identify("Bearer jur_not-a-key-anyone-has-made-here") is None
        assert keys.finds == 1


async def test_requests_that_miss_the_cache_together_share_one_read(database):
    secret, digest = new_key()
    async with await CountedKeys.open(database) as keys:
        await keys.create("erin", digest)
        keys.gate, keys.reading = asyncio.Event(), asyncio.Event()
        auth = Authenticator(KeyRing(), keys, cache_s=5.0, clock=Clock())

        async def ask():  # as each request does
            return await auth.required() and await auth.identify(f"Bearer {secret}")

        asking = [asyncio.ensure_future(ask()) for _ in range(32)]
        await keys.reading.wait()
        keys.gate.set()
        found = await asyncio.gather(*asking)
        assert {principal.key_id for principal in found} == {"erin"}
        assert (keys.counts, keys.finds) == (1, 1)


async def test_a_request_that_gives_up_leaves_the_shared_read_to_the_others(database):
    secret, digest = new_key()
    async with await CountedKeys.open(database) as keys:
        await keys.create("erin", digest)
        keys.gate, keys.reading = asyncio.Event(), asyncio.Event()
        auth = Authenticator(KeyRing(), keys, cache_s=5.0, clock=Clock())
        leaving = asyncio.ensure_future(auth.identify(f"Bearer {secret}"))
        staying = asyncio.ensure_future(auth.identify(f"Bearer {secret}"))
        await keys.reading.wait()
        leaving.cancel()
        keys.gate.set()
        principal = await staying
        assert principal is not None
        assert principal.key_id == "erin"
        assert leaving.cancelled()
        assert keys.finds == 1


async def test_a_read_under_way_when_a_key_changes_here_is_not_remembered(database):
    secret, digest = new_key()
    async with await CountedKeys.open(database) as keys:
        await keys.create("erin", digest)
        keys.gate, keys.reading = asyncio.Event(), asyncio.Event()
        auth = Authenticator(KeyRing(), keys, cache_s=3600.0, clock=Clock())
        before = asyncio.ensure_future(auth.identify(f"Bearer {secret}"))
        await keys.reading.wait()
        await keys.revoke("erin")
        auth.forget()
        keys.gate.set()
        await before  # read before the revocation: whatever it found is not kept
        assert await auth.identify(f"Bearer {secret}") is None
        assert keys.finds == 2
