"""Who is asking: the API key behind a request, its role, and what it may read.

Keys come from two places: JURIST_API_KEYS (fixed for the process's life) and the database's
key table (made, rotated and revoked at run time by `jurist keys` or the /keys endpoints).
Lookups in the table are cached for `cache_s` seconds (JURIST_KEY_CACHE_S), which bounds how
long a revoked key keeps working on another process; the process that revokes forgets at once.
Requests that miss the cache together share one read: when an entry expires under load, the
table is read once, not by every request then in flight (each on a connection of its own).

Tenancy: every record the service stores carries the id of the key that made it. A `user`
key reads only its own records; an `admin` key reads every record. A service with no key at
all is single-tenant: its one caller is the operator and reads everything, and it listens
only on the loopback interface.
"""

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from limits import RateLimitItem

from jurist.core import SingleFlight
from jurist.server._keys import ApiKey, KeyRing, bearer_token
from jurist.server._ratelimit import parse_rate
from jurist.store import KeyStore

_CACHE_SIZE = 10_000


@dataclass(frozen=True)
class Principal:
    """The key behind a request (None without keys), its role, and its own rate (None: the
    service's)."""

    key_id: str | None
    role: str
    rate: RateLimitItem | None = None

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def may_read(self, owner: str | None) -> bool:
        """Whether this caller may see a record that `owner` made. Records without an owner
        were made by the operator (the CLI, or the service before it had keys)."""
        return self.is_admin or (owner is not None and owner == self.key_id)

    def owner_filter(self) -> str | None:
        """The owner to narrow lists to, or None for every record (administrators)."""
        return None if self.is_admin else (self.key_id or "")


OPERATOR = Principal(key_id=None, role="admin")


class Authenticator:
    def __init__(
        self,
        ring: KeyRing,
        keys: KeyStore | None = None,
        *,
        cache_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ring = ring
        self.keys = keys
        self.cache_s = cache_s
        self._clock = clock
        self._found: dict[str, tuple[float, ApiKey | None]] = {}
        self._required: tuple[float, bool] | None = None
        # The reads under way, by what they read and how many times this process forgot:
        # a read begun before `forget` is neither kept nor joined after it.
        self._forgotten = 0
        self._finds: SingleFlight[tuple[int, str], ApiKey | None] = SingleFlight(keep="none")
        self._counts: SingleFlight[int, bool] = SingleFlight(keep="none")

    async def required(self) -> bool:
        """Whether requests need a key: some key is configured or was ever stored. The first
        key made turns authentication on for every process within `cache_s`; revoking every
        key leaves it on (a service does not fall open because its last key went)."""
        if self.ring:
            return True
        if self.keys is None:
            return False
        if self._required is not None and self._required[0] > self._clock():
            return self._required[1]
        keys = self.keys
        return await self._counts(self._forgotten, lambda: self._count(keys))

    async def _count(self, keys: KeyStore) -> bool:
        forgotten, now = self._forgotten, self._clock()
        required = await keys.count(include_revoked=True) > 0
        if forgotten == self._forgotten:
            self._required = (now + self.cache_s, required)
        return required

    @property
    def known_required(self) -> bool:
        """What `required` answered last (without asking the database)."""
        return bool(self.ring) or (self._required is not None and self._required[1])

    async def identify(self, authorization: str | None) -> Principal | None:
        """The caller an Authorization header names, or None when it names no active key."""
        key = self.ring.identify(authorization)
        if key is None and self.keys is not None:
            key = await self._stored(bearer_token(authorization))
        if key is None:
            return None
        rate = _key_rate(key.rate_limit, key.id) if key.rate_limit else None
        return Principal(key_id=key.id, role=key.role, rate=rate)

    def forget(self) -> None:
        """Drop every cached lookup: a key changed here takes effect at once here."""
        self._found.clear()
        self._forgotten += 1
        if self._required is not None:
            self._required = (0.0, self._required[1])

    async def _stored(self, token: str | None) -> ApiKey | None:
        if token is None or self.keys is None:
            return None
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        cached = self._found.get(digest)
        if cached is not None and cached[0] > self._clock():
            return cached[1]
        keys = self.keys
        return await self._finds((self._forgotten, digest), lambda: self._find(keys, digest))

    async def _find(self, keys: KeyStore, digest: str) -> ApiKey | None:
        forgotten, now = self._forgotten, self._clock()
        stored = await keys.find(digest)
        key = (
            None
            if stored is None
            else ApiKey(stored.id, stored.sha256, stored.role, stored.rate_limit)
        )
        if forgotten != self._forgotten:
            return key  # read before a key changed here: answered, not remembered
        if len(self._found) >= _CACHE_SIZE:
            self._found.clear()
        self._found[digest] = (now + self.cache_s, key)
        return key


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _key_rate(text: str, key_id: str) -> RateLimitItem | None:
    # Read once per key and text, not on every request.
    return parse_rate(text, f"the rate limit of key {key_id}")
