"""Keys looked up in the database are remembered for JURIST_KEY_CACHE_S: a request does not
read the key table each time, and a key revoked by another process stops working within that
time (at once in the process that revoked it). The clock is a counter, so no test sleeps."""

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

    async def find(self, sha256, now=None):  # type: ignore[no-untyped-def]
        self.finds += 1
        return await super().find(sha256, now)


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
