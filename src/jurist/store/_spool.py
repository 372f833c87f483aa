"""Audit records the database could not take, kept on local disk until it can.

    spool = AuditSpool(home / "audit-spool")
    spool.append(record)              # durable when it returns (a thread: it fsyncs)
    await spool.replay(engine)        # into audit_log, each record once

Each process appends to a file of its own (JSON lines, one record a line, fsync'd), and
holds an exclusive lock on it for as long as it lives, so workers sharing JURIST_HOME never
write into one another's files. A file nobody holds was left by a process that ended: any
process adopts it, replays it and deletes it. A crash can tear the last line of a file;
that record never reached the disk whole, and the line is skipped.

Nothing is written twice: a record is stamped (`at`, to the microsecond) before the database
is first tried, and replay skips a record audit_log holds already (the same time, request,
answer and latency). So a crash between a replay's commit and the file's trimming, or a
write whose commit succeeded but whose answer was lost, costs nothing.
"""

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import threading
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from jurist.store._engine import writer
from jurist.store._errors import DATABASE_ERRORS, StoreError, database_failure
from jurist.store._records import AuditRecord
from jurist.store._tables import audit_log

log = logging.getLogger("jurist.store")

SUFFIX = ".jsonl"
BATCH = 500  # records per transaction when replaying

# What makes two audit entries the same one.
_KEY_COLUMNS = (
    "at",
    "method",
    "path",
    "status_code",
    "latency_ms",
    "client",
    "key_id",
    "request_sha256",
)
_FIELDS = (*_KEY_COLUMNS, "verdict", "detail")


@dataclass(frozen=True)
class _Line:
    record: AuditRecord
    end: int  # the offset just past the line in its file


class AuditSpool:
    """The spool in `directory`, shared by the processes of one host; this object appends to
    its process's own file, and replays every file whose process is not alive to do it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()  # appends (in threads) and trimming of the own file
        self._replaying = asyncio.Lock()
        self._own: BinaryIO | None = None
        self._own_path: Path | None = None
        self._size = 0  # bytes in the own file

    @property
    def holding(self) -> bool:
        """Whether records of this process wait in its file: new ones queue behind them."""
        return self._size > 0

    def pending(self) -> bool:
        """Whether any file in the directory holds records, this process's or another's."""
        if self.holding:
            return True
        return any(size > 0 for _, size in self._files())

    def append(self, record: AuditRecord) -> None:
        """Add `record` (stamped now if it has no time), on disk when this returns. Blocking:
        call it in a thread."""
        if record.at is None:
            record = _stamped(record)
        line = (json.dumps(_to_json(record), separators=(",", ":")) + "\n").encode()
        with self._lock:
            own = self._open_own()
            try:
                written = os.write(own.fileno(), line)
                if written != len(line):
                    raise OSError(f"short write to {self._own_path} ({written} of {len(line)})")
                os.fsync(own.fileno())
            except BaseException:
                # A part of the line must not stay: the next record would be glued to it.
                os.ftruncate(own.fileno(), self._size)
                raise
            self._size += len(line)

    async def replay(self, engine: AsyncEngine) -> int:
        """Write every spooled record into audit_log (this process's and those of processes
        that ended); how many were new there. A database that fails is a StoreError; what
        was committed before it is trimmed from this process's file all the same (another's
        file is read whole again next time, and what it wrote already is skipped)."""
        async with self._replaying:
            written = await self._replay_own(engine)
            for path, size in self._files():
                if path != self._own_path and size > 0:
                    written += await self._adopt(engine, path)
            return written

    def close(self) -> None:
        """Release this process's file (deleted when empty): another process may adopt it."""
        with self._lock:
            if self._own is None:
                return
            if self._size == 0 and self._own_path is not None:
                self._own_path.unlink(missing_ok=True)
            self._own.close()  # releases the lock
            self._own = None

    async def _replay_own(self, engine: AsyncEngine) -> int:
        if not self.holding:
            return 0
        data = await asyncio.to_thread(self._read_own)
        lines, consumed = _parse(data, self._own_path)
        progress = _Progress()
        try:
            await _write(engine, lines, consumed, progress)
        finally:
            if progress.done:
                await asyncio.to_thread(self._trim_own, progress.done)
        return progress.written

    async def _adopt(self, engine: AsyncEngine, path: Path) -> int:
        held = await asyncio.to_thread(_lock_orphan, path)
        if held is None:
            return 0
        try:
            data = await asyncio.to_thread(held.read)
            lines, consumed = _parse(data, path)
            log.info("replaying %d audit records left by another process in %s", len(lines), path)
            progress = _Progress()
            await _write(engine, lines, consumed, progress)
            # Deleted while locked: whoever opened it meanwhile finds it gone (the inode check).
            await asyncio.to_thread(_delete, path)
            return progress.written
        finally:
            held.close()

    def _files(self) -> Iterator[tuple[Path, int]]:
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return
        for entry in entries:
            if entry.name.endswith(SUFFIX) and not entry.name.startswith("."):
                with contextlib.suppress(FileNotFoundError):
                    yield Path(entry.path), entry.stat().st_size

    def _open_own(self) -> BinaryIO:
        if self._own is not None:
            return self._own
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{os.getpid()}-{uuid.uuid4().hex[:12]}{SUFFIX}"
        own = path.open("ab")
        fcntl.flock(own.fileno(), fcntl.LOCK_EX)
        _sync_directory(self.directory)
        self._own, self._own_path, self._size = own, path, 0
        return own

    def _read_own(self) -> bytes:
        with self._lock:
            if self._own_path is None:
                return b""
            with self._own_path.open("rb") as source:
                return source.read(self._size)

    def _trim_own(self, done: int) -> None:
        """Drop the first `done` bytes of the own file (replayed), keeping what came since."""
        with self._lock:
            own, path = self._own, self._own_path
            if own is None or path is None:
                return
            if done >= self._size:
                os.ftruncate(own.fileno(), 0)
                os.fsync(own.fileno())
                self._size = 0
                return
            with path.open("rb") as source:
                source.seek(done)
                rest = source.read()
            # Under a name no other process looks for, and locked before it takes the real
            # name; the handle that wrote it is the one later records are appended with.
            temporary = path.with_name(f".{path.name}.tmp")
            fresh = temporary.open("ab")
            try:
                fcntl.flock(fresh.fileno(), fcntl.LOCK_EX)
                os.write(fresh.fileno(), rest)
                os.fsync(fresh.fileno())
                temporary.replace(path)
                _sync_directory(path.parent)
            except BaseException:
                fresh.close()
                temporary.unlink(missing_ok=True)
                raise
            own.close()  # the replaced file's lock
            self._own, self._size = fresh, len(rest)


async def keep_replaying(
    spool: AuditSpool, engine: AsyncEngine, every: float, stopping: asyncio.Event
) -> None:
    """Replay `spool` into `engine`'s audit log now, then every `every` seconds while it
    holds records, until `stopping` is set. Never cancelled mid-write: stopping waits for
    the replay in progress, which the store's timeouts bound."""
    failing = False
    while not stopping.is_set():
        if await asyncio.to_thread(spool.pending):
            try:
                written = await spool.replay(engine)
            except StoreError as exc:
                if not failing:  # once an outage, not every few seconds
                    log.warning("audit records stay on disk until the database answers: %s", exc)
                failing = True
            except Exception:  # the loop must outlive whatever broke
                log.exception("replaying the audit records kept on disk failed")
            else:
                failing = False
                if written:
                    log.info("wrote %d audit records kept on disk to the database", written)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), every)


@dataclass
class _Progress:
    written: int = 0  # records new to audit_log
    done: int = 0  # the offset in the file up to which everything is committed


async def _write(
    engine: AsyncEngine, lines: Sequence[_Line], consumed: int, progress: _Progress
) -> None:
    """Write `lines` in batches, each committed on its own, noting in `progress` what is."""
    for start in range(0, len(lines), BATCH):
        batch = lines[start : start + BATCH]
        try:
            progress.written += await _write_batch(engine, [line.record for line in batch])
        except DATABASE_ERRORS as exc:
            raise database_failure(
                "replay the audit records kept on disk", engine.url, exc
            ) from exc
        progress.done = batch[-1].end
    progress.done = consumed  # unreadable lines after the last record are done with too


async def _write_batch(engine: AsyncEngine, records: Sequence[AuditRecord]) -> int:
    times = sorted({_utc(record.at) for record in records if record.at is not None})
    columns = [audit_log.c[name] for name in _KEY_COLUMNS]
    async with writer(engine).begin() as connection:
        rows = await connection.execute(sa.select(*columns).where(audit_log.c.at.in_(times)))
        stored = Counter(_key(dict(row)) for row in rows.mappings())
        fresh = []
        for record in records:
            values = _values(record)
            key = _key(values)
            if stored[key] > 0:
                stored[key] -= 1  # written before (a replay cut short, an answer lost)
            else:
                fresh.append(values)
        if fresh:
            await connection.execute(sa.insert(audit_log), fresh)
    return len(fresh)


def _parse(data: bytes, path: Path | None) -> tuple[list[_Line], int]:
    """The records of a spool file, and the offset past its last whole line."""
    lines = []
    offset = 0
    while offset < len(data):
        newline = data.find(b"\n", offset)
        if newline < 0:
            # Torn by a crash mid-write: never acknowledged, so never counted as kept.
            log.warning("skipping the incomplete last line of %s", path)
            break
        raw = data[offset:newline]
        offset = newline + 1
        if not raw.strip():
            continue
        try:
            record = _from_json(json.loads(raw))
        except (ValueError, TypeError, KeyError) as exc:
            log.error("skipping an unreadable audit record in %s: %s", path, exc)
            continue
        lines.append(_Line(record, offset))
    return lines, offset


def _to_json(record: AuditRecord) -> dict[str, Any]:
    values: dict[str, Any] = {name: getattr(record, name) for name in _FIELDS}
    values["at"] = _utc(record.at or datetime.now(UTC)).isoformat()
    return values


def _from_json(values: dict[str, Any]) -> AuditRecord:
    fields: dict[str, Any] = {name: values.get(name) for name in _FIELDS}
    fields["at"] = datetime.fromisoformat(values["at"])
    return AuditRecord(**fields)


def _values(record: AuditRecord) -> dict[str, Any]:
    values = {name: getattr(record, name) for name in _FIELDS}
    values["at"] = _utc(record.at or datetime.now(UTC))
    return values


def _key(values: dict[str, Any]) -> tuple[Any, ...]:
    at = _utc(values["at"])
    return (at, *(values[name] for name in _KEY_COLUMNS[1:]))


def _stamped(record: AuditRecord) -> AuditRecord:
    fields = {name: getattr(record, name) for name in _FIELDS}
    fields["at"] = datetime.now(UTC)
    return AuditRecord(**fields)


def _utc(value: datetime) -> datetime:
    # SQLite keeps no time zone: the store writes UTC there, so a naive value read is UTC.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _lock_orphan(path: Path) -> BinaryIO | None:
    """`path` opened and locked, when no live process holds it (its process ended)."""
    try:
        held = path.open("rb")
    except FileNotFoundError:
        return None  # adopted and deleted by another process meanwhile
    try:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(path).st_ino == os.fstat(held.fileno()).st_ino:
            return held
        # Otherwise replaced since it was opened: what was opened is done with.
    except (BlockingIOError, FileNotFoundError):
        pass  # its process is alive and replays it itself, or it is gone
    held.close()
    return None


def _delete(path: Path) -> None:
    path.unlink(missing_ok=True)
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Make a file's creation, renaming or deletion durable, as fsync does its content."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
