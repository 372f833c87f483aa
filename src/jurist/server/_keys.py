"""API keys for the HTTP service, kept only as SHA-256 hashes.

JURIST_API_KEYS is a comma-separated list of `KEY_ID:SECRET` (a plain secret, hashed at once
and then forgotten) or `KEY_ID:sha256:HEX64` (already hashed, so a deployment's Secret need
not hold any usable key), each optionally with a role before the secret: `KEY_ID:admin:...`
or `KEY_ID:user:...` (the default). A request presents `Authorization: Bearer <secret>`.
Keys made at run time live in the database instead (`jurist keys new`, see `jurist.store`).

Roles: `user` may use the API and read what its own key made; `admin` may also approve or
reject improvement cycles, manage keys and read every tenant's records.

Why SHA-256 and not bcrypt or argon2: API keys are high-entropy random tokens (`new_key` gives
256 bits), not passwords people choose, so guessing one from its hash is hopeless however fast
the hash is. A slow password hash would only cost every request tens of milliseconds of CPU
and hand an attacker a cheap way to load the server. Short plain secrets, which could be
guessed, are refused.
"""

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

VARIABLE = "JURIST_API_KEYS"
MIN_SECRET_LENGTH = 16
KEY_PREFIX = "jur_"

_KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_HASH_PREFIX = "sha256:"
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
_FORMAT = "expected KEY_ID:[ROLE:]SECRET or KEY_ID:[ROLE:]sha256:HEX64, ROLE user or admin"
ROLES = ("user", "admin")


@dataclass(frozen=True, repr=False)
class ApiKey:
    """A configured key: its id (safe to log), the SHA-256 hex digest of its secret, its
    role, and its own rate limit (None: the service's)."""

    id: str
    sha256: str
    role: str = "user"
    rate_limit: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"ApiKey.role {self.role!r} is not one of {', '.join(ROLES)}")

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def __repr__(self) -> str:
        return f"ApiKey(id={self.id!r}, role={self.role!r})"


def hash_key(secret: str) -> str:
    """The SHA-256 hex digest under which a secret is stored and looked up."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_key() -> tuple[str, str]:
    """A fresh secret (`jur_` and 43 URL-safe characters, 256 bits) and its SHA-256 hex."""
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    return secret, hash_key(secret)


class KeyRing:
    """The configured keys. `identify` maps an Authorization header to the key it carries.

    A secret cannot hold a comma (it separates entries) or whitespace; `sha256:` at the start
    of what follows the key id always means a hash.
    """

    def __init__(self, keys: Iterable[ApiKey] = ()) -> None:
        self._keys = tuple(keys)
        ids = [key.id for key in self._keys]
        if len(set(ids)) != len(ids):
            raise ValueError("KeyRing: key ids must be unique")
        if len({key.sha256 for key in self._keys}) != len(self._keys):
            raise ValueError("KeyRing: two keys have the same secret")

    @classmethod
    def parse(cls, text: str | None) -> "KeyRing":
        """The keys in a JURIST_API_KEYS value; None or blank means none. A ValueError names
        the entry (1-based) and its problem, never the secret."""
        keys: list[ApiKey] = []
        by_id: dict[str, int] = {}
        by_hash: dict[str, tuple[int, str]] = {}
        for position, raw in enumerate((text or "").split(","), start=1):
            entry = raw.strip()
            if not entry:
                continue  # a trailing or doubled comma
            key = _parse_entry(entry, position)
            if key.id in by_id:
                raise _error(
                    position, f"key id {key.id!r} is already used by entry {by_id[key.id]}"
                )
            if key.sha256 in by_hash:
                first, first_id = by_hash[key.sha256]
                raise _error(
                    position,
                    f"key {key.id!r} has the same secret as entry {first} ({first_id!r}); "
                    "each key needs its own",
                )
            by_id[key.id] = position
            by_hash[key.sha256] = (position, key.id)
            keys.append(key)
        return cls(keys)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(key.id for key in self._keys)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"KeyRing(ids={list(self.ids)!r})"

    def identify(self, authorization: str | None) -> ApiKey | None:
        """The key an `Authorization: Bearer <secret>` header value carries (the scheme in any
        case), or None when the header is missing, malformed or names no configured key.

        The token's hash is compared with every stored hash, each in constant time, with no
        early exit, so the time taken says nothing about which stored hash came close.
        """
        token = _bearer_token(authorization)
        if token is None:
            return None
        digest = hash_key(token)
        found: ApiKey | None = None
        for key in self._keys:
            if hmac.compare_digest(digest, key.sha256) and found is None:
                found = key
        return found


def _parse_entry(entry: str, position: int) -> ApiKey:
    key_id, colon, rest = entry.partition(":")
    key_id, rest = key_id.strip(), rest.strip()
    if not colon:
        raise _error(position, f"no ':' after the key id ({_FORMAT})")
    if not _KEY_ID.fullmatch(key_id):
        # The text before the colon is not echoed: it might be a secret pasted in the wrong
        # place.
        raise _error(
            position,
            f"the key id must be 1-64 characters of A-Z a-z 0-9 _ . - ({_FORMAT})",
        )
    role = "user"
    for candidate in ROLES:
        if rest.startswith(f"{candidate}:"):
            role, rest = candidate, rest.removeprefix(f"{candidate}:").strip()
            break
    if rest.startswith(_HASH_PREFIX):
        hex_digest = rest.removeprefix(_HASH_PREFIX).strip()
        if not _HEX64.fullmatch(hex_digest):
            raise _error(
                position,
                f"key {key_id!r}: the sha256 hash must be 64 hex digits "
                f"(got {len(hex_digest)} characters)",
            )
        return ApiKey(key_id, hex_digest.lower(), role)
    secret = rest
    if not secret:
        raise _error(position, f"key {key_id!r} has an empty secret ({_FORMAT})")
    if len(secret) < MIN_SECRET_LENGTH:
        raise _error(
            position,
            f"key {key_id!r}: the secret is {len(secret)} characters, shorter than the "
            f"minimum of {MIN_SECRET_LENGTH} (`jurist` keys from new_key() are 47)",
        )
    if not (secret.isascii() and secret.isprintable()) or any(c.isspace() for c in secret):
        raise _error(
            position,
            f"key {key_id!r}: the secret must be printable ASCII without spaces, as an "
            "Authorization header carries it",
        )
    return ApiKey(key_id, hash_key(secret), role)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` value, or None."""
    return _bearer_token(authorization)


def _bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    parts = authorization.split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    token = parts[1]
    return token if token.isascii() else None


def _error(position: int, problem: str) -> ValueError:
    return ValueError(f"{VARIABLE}: entry {position}: {problem}")
