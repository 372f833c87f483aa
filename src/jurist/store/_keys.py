"""The service's API keys in its database: made, listed, rotated and revoked at run time, so a
running service (every worker, every replica on the same database) sees a change without a
restart. Only the SHA-256 of a secret is ever stored.

A rotated key keeps its id, so the records it made stay its own; the secret it replaced
keeps working until `previous_expires_at` (a grace period for callers to switch).
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from jurist.store._errors import DuplicateRecordError
from jurist.store._handle import Transactional
from jurist.store._tables import api_keys

ROLES = ("user", "admin")
_KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class StoredKey:
    """A key as stored (never its secret). `active` is False once revoked."""

    id: str
    role: str
    sha256: str
    rate_limit: str | None
    note: str | None
    created_at: datetime
    updated_at: datetime
    revoked_at: datetime | None
    previous_sha256: str | None
    previous_expires_at: datetime | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def check_key_id(key_id: str) -> str:
    """`key_id` if it is 1-64 characters of A-Z a-z 0-9 _ . -, else a ValueError."""
    if not isinstance(key_id, str) or not _KEY_ID.fullmatch(key_id):
        raise ValueError("key id: must be 1-64 characters of A-Z a-z 0-9 _ . -")
    return key_id


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"role: {role!r} is not one of {', '.join(ROLES)}")
    return role


def _check_digest(digest: str) -> str:
    if not _HEX64.fullmatch(digest):
        raise ValueError("sha256: must be 64 lower-case hex digits")
    return digest


class KeyStore(Transactional):
    """API keys in the store's `api_keys` table."""

    async def create(
        self,
        key_id: str,
        sha256: str,
        *,
        role: str = "user",
        rate_limit: str | None = None,
        note: str | None = None,
    ) -> StoredKey:
        """Store a new key; a `DuplicateRecordError` when the id is taken (a revoked key's id
        too: ids name tenants, and a new key must not inherit an old tenant's records)."""
        now = datetime.now(UTC)
        values = {
            "id": check_key_id(key_id),
            "role": check_role(role),
            "sha256": _check_digest(sha256),
            "rate_limit": rate_limit,
            "note": note,
            "created_at": now,
            "updated_at": now,
        }
        async with self._writing(f"create API key {key_id}") as connection:
            await connection.execute(sa.insert(api_keys).values(values))
        found = await self.get(key_id)
        if found is None:  # pragma: no cover - just written in the same database
            raise DuplicateRecordError(f"API key {key_id} vanished after it was written")
        return found

    async def get(self, key_id: str) -> StoredKey | None:
        async with self._reading(f"read API key {key_id}") as connection:
            row = (
                (await connection.execute(sa.select(api_keys).where(api_keys.c.id == key_id)))
                .mappings()
                .first()
            )
        return None if row is None else _stored(row)

    async def list(self, *, include_revoked: bool = True) -> list[StoredKey]:
        """Every key, oldest first."""
        statement = sa.select(api_keys).order_by(api_keys.c.created_at, api_keys.c.id)
        if not include_revoked:
            statement = statement.where(api_keys.c.revoked_at.is_(None))
        async with self._reading("list API keys") as connection:
            rows = (await connection.execute(statement)).mappings().all()
        return [_stored(row) for row in rows]

    async def find(self, sha256: str, now: datetime | None = None) -> StoredKey | None:
        """The active key whose secret hashes to `sha256`: its current secret, or the one it
        replaced while that is still in its grace period."""
        moment = now or datetime.now(UTC)
        statement = sa.select(api_keys).where(
            api_keys.c.revoked_at.is_(None),
            sa.or_(
                api_keys.c.sha256 == sha256,
                sa.and_(
                    api_keys.c.previous_sha256 == sha256,
                    api_keys.c.previous_expires_at > moment,
                ),
            ),
        )
        async with self._reading("look up an API key") as connection:
            row = (await connection.execute(statement.limit(1))).mappings().first()
        return None if row is None else _stored(row)

    async def count(self, *, include_revoked: bool = False) -> int:
        """How many keys are active (or were ever made, with `include_revoked`)."""
        statement = sa.select(sa.func.count()).select_from(api_keys)
        if not include_revoked:
            statement = statement.where(api_keys.c.revoked_at.is_(None))
        async with self._reading("count API keys") as connection:
            found = await connection.scalar(statement)
        return int(found or 0)

    async def rotate(self, key_id: str, sha256: str, *, grace: timedelta) -> StoredKey:
        """Give an active key a new secret; the old one works for `grace` more. A
        `LookupError` when no active key has this id."""
        if grace < timedelta(0):
            raise ValueError(f"grace: cannot be negative, got {grace}")
        now = datetime.now(UTC)
        async with self._writing(f"rotate API key {key_id}") as connection:
            current = await connection.scalar(
                sa.select(api_keys.c.sha256).where(
                    api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None)
                )
            )
            if current is None:
                raise LookupError(f"no active API key {key_id!r}")
            await connection.execute(
                sa.update(api_keys)
                .where(api_keys.c.id == key_id)
                .values(
                    sha256=_check_digest(sha256),
                    previous_sha256=current if grace > timedelta(0) else None,
                    previous_expires_at=now + grace if grace > timedelta(0) else None,
                    updated_at=now,
                )
            )
        found = await self.get(key_id)
        if found is None:  # pragma: no cover
            raise LookupError(f"no API key {key_id!r}")
        return found

    async def revoke(self, key_id: str) -> StoredKey:
        """Revoke a key (its secrets stop working at once; its records stay). Revoking a
        revoked key changes nothing. A `LookupError` when there is no such key."""
        now = datetime.now(UTC)
        async with self._writing(f"revoke API key {key_id}") as connection:
            await connection.execute(
                sa.update(api_keys)
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=now, updated_at=now, previous_sha256=None)
            )
        found = await self.get(key_id)
        if found is None:
            raise LookupError(f"no API key {key_id!r}")
        return found


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _stored(row: sa.RowMapping) -> StoredKey:
    values = dict(row)
    for name in ("created_at", "updated_at", "revoked_at", "previous_expires_at"):
        values[name] = _utc(values[name])
    return StoredKey(**values)
