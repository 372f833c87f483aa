"""A response cache on disk: the same deterministic request to the same model is answered once."""

import asyncio
import dataclasses
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import closing, suppress
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter

from jurist.core import record
from jurist.llm._types import Model, Request, Response
from jurist.llm._wrapper import ModelWrapper, identity

logger = logging.getLogger(__name__)

T = TypeVar("T")

_REQUEST: TypeAdapter[Request] = TypeAdapter(Request)
_RESPONSE: TypeAdapter[Response] = TypeAdapter(Response)

# Part of every key: bumping it retires every stored answer at once, should the key's
# ingredients or the stored shape ever change meaning.
_KEY_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""

# Extended result codes keep the primary code in their low byte.
_CORRUPTION_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})


def cache_key(model_name: str, request: Request) -> str:
    """The key of `request` to the model named `model_name` ("openai:gpt-4o"): a sha256 of
    canonical JSON. `timeout_s` is left out: it bounds the wait, not the answer."""
    data: dict[str, Any] = _REQUEST.dump_python(request, mode="json")
    data.pop("timeout_s", None)
    canonical = json.dumps(
        {"v": _KEY_VERSION, "model": model_name, "request": data},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# The cache files this process has set up (WAL mode, the table); a file set aside as
# corrupt leaves the set, so that its fresh successor is set up again.
_PREPARED: set[Path] = set()
_PREPARING = threading.Lock()


@record
class CacheStats:
    entries: int
    bytes: int  # on disk, the write-ahead log included


class ResponseCache:
    """Responses in a SQLite file, safe to share between threads and processes.

    Every operation opens its own connection in a worker thread (`asyncio.to_thread`) and
    closes it: no connection crosses threads, and the cost (tens of microseconds) is nothing
    next to a model call. WAL mode lets readers and a writer work at once, and
    `busy_timeout` makes a writer wait for another instead of failing.

    The cache never breaks a call: an entry that cannot be read or does not hold a response
    is a miss (logged) and the next answer overwrites it; a file SQLite finds corrupt, or
    that is no database at all, is renamed to "<name>.corrupt" (never deleted: the path
    may have been a mistake, and the file someone's) and a fresh database takes its place.
    Other failures (a locked or read-only file) are logged and the call goes on uncached.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout_ms: int = 5000) -> None:
        self.path = Path(path)
        self.busy_timeout_ms = busy_timeout_ms
        self._set_aside_lock = threading.Lock()
        self._generation = 0  # bumped when a corrupt file is set aside

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"

    async def get(self, key: str) -> Response | None:
        """The stored response for `key`, or None on a miss (or an unreadable entry)."""
        return await asyncio.to_thread(self._get, key)

    async def put(self, key: str, model: str, response: Response) -> None:
        """Stores (or overwrites) the response for `key`; a failure is logged, not raised."""
        text = _RESPONSE.dump_json(response).decode("utf-8")
        await asyncio.to_thread(self._put, key, model, text)

    async def clear(self) -> None:
        """Removes every entry. Unlike the other operations it raises when it cannot."""
        await asyncio.to_thread(self._clear)

    async def stats(self) -> CacheStats:
        return await asyncio.to_thread(self._stats)

    # The blocking side, run in worker threads.

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None
        )
        try:
            connection.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            connection.execute("PRAGMA synchronous=NORMAL")
            # Switching a new file to WAL and creating the table take it whole: several
            # threads doing so at once found it locked (a validation's layers, each asking
            # the model on the first call). Once per file and process, one thread at a time.
            path = self.path.resolve()
            if path not in _PREPARED:
                with _PREPARING:
                    if path not in _PREPARED:
                        connection.execute("PRAGMA journal_mode=WAL")
                        connection.execute(_SCHEMA)
                        _PREPARED.add(path)
        except BaseException:
            connection.close()
            raise
        return connection

    def _run(self, operation: Callable[[sqlite3.Connection], T], *, retry: bool) -> T:
        """Runs `operation` on a fresh connection. A corrupt file is set aside, and with
        `retry` the operation runs once more on the fresh database."""
        generation = self._generation
        try:
            with closing(self._connect()) as connection:
                return operation(connection)
        except sqlite3.DatabaseError as exc:
            if not _is_corruption(exc):
                raise
            self._set_aside(generation, exc)
            if not retry:
                raise
        with closing(self._connect()) as connection:
            return operation(connection)

    def _set_aside(self, generation: int, exc: sqlite3.Error) -> None:
        with self._set_aside_lock:
            if generation != self._generation:
                return  # another thread already replaced the file
            self._generation += 1
            aside = self.path.with_name(self.path.name + ".corrupt")
            logger.warning(
                "response cache %s is unreadable (%s); moving it to %s and starting afresh",
                self.path,
                exc,
                aside,
            )
            with _PREPARING:
                _PREPARED.discard(self.path.resolve())
            with suppress(FileNotFoundError):
                os.replace(self.path, aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def _get(self, key: str) -> Response | None:
        def read(connection: sqlite3.Connection) -> Any:
            row = connection.execute(
                "SELECT response FROM responses WHERE key = ?", (key,)
            ).fetchone()
            return None if row is None else row[0]

        try:
            stored = self._run(read, retry=False)
        except (sqlite3.Error, OSError) as exc:
            logger.warning("response cache %s: lookup failed, a miss (%s)", self.path, exc)
            return None
        if stored is None:
            return None
        try:
            if not isinstance(stored, str | bytes):
                raise TypeError(f"a stored {type(stored).__name__}, not text")
            return _RESPONSE.validate_json(stored)
        except (ValueError, TypeError) as exc:
            logger.warning(
                "response cache %s: entry %s is not a response, a miss (%s)",
                self.path,
                key[:12],
                _first_line(exc),
            )
            return None

    def _put(self, key: str, model: str, text: str) -> None:
        def write(connection: sqlite3.Connection) -> None:
            connection.execute(
                "INSERT OR REPLACE INTO responses (key, model, response, created) "
                "VALUES (?, ?, ?, ?)",
                (key, model, text, time.time()),
            )

        try:
            self._run(write, retry=True)
        except (sqlite3.Error, OSError) as exc:
            logger.warning("response cache %s: could not store an answer (%s)", self.path, exc)

    def _clear(self) -> None:
        def delete(connection: sqlite3.Connection) -> None:
            connection.execute("DELETE FROM responses")
            connection.execute("VACUUM")

        self._run(delete, retry=True)

    def _stats(self) -> CacheStats:
        def count(connection: sqlite3.Connection) -> int:
            return int(connection.execute("SELECT count(*) FROM responses").fetchone()[0])

        try:
            entries = self._run(count, retry=False)
        except (sqlite3.Error, OSError) as exc:
            logger.warning("response cache %s: cannot count entries (%s)", self.path, exc)
            entries = 0
        size = 0
        for file in (self.path, Path(f"{self.path}-wal")):
            with suppress(FileNotFoundError):
                size += file.stat().st_size
        return CacheStats(entries, size)


def _is_corruption(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in _CORRUPTION_CODES
    message = str(exc).lower()
    return "not a database" in message or "malformed" in message


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Cached(ModelWrapper):
    """Answers a request seen before from `cache` instead of the model.

    With `only_deterministic` (the default) only temperature-0 requests are cached: a
    sampled answer is meant to differ from call to call. The key covers the model's full name
    (provider included) and the whole request. A hit is marked in its usage: every call
    cached, no cost, and the lookup time as latency. Only successful answers are stored.
    """

    def __init__(
        self, inner: Model, cache: ResponseCache, *, only_deterministic: bool = True
    ) -> None:
        super().__init__(inner)
        self.cache = cache
        self.only_deterministic = only_deterministic

    def __repr__(self) -> str:
        return f"Cached({self.inner!r}, {self.cache!r})"

    async def complete(self, request: Request) -> Response:
        if self.only_deterministic and request.temperature != 0:
            return await self.inner.complete(request)
        key = cache_key(identity(self.inner), request)
        started = time.perf_counter()
        hit = await self.cache.get(key)
        if hit is not None:
            calls = max(hit.usage.calls, 1)
            usage = dataclasses.replace(
                hit.usage,
                calls=calls,
                cached_calls=calls,
                cost_usd=0.0,
                latency_ms=(time.perf_counter() - started) * 1000,
            )
            return dataclasses.replace(hit, usage=usage)
        response = await self.inner.complete(request)
        if not response.cached:
            await self.cache.put(key, self.inner.name, response)
        return response
