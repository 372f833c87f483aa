"""Group commit: the writes that many callers make at once, committed together.

Each caller queues its write and waits; one writer task takes everything queued (at most
`max_batch` writes), runs them in one transaction (each kind of write as one statement over
many rows where it can), commits, and only then answers every caller. Under load a commit
carries many writes, so the cost of a transaction (its round trips, its sync to disk) is paid
once for all of them; alone, a write is committed at once, as before.

What a caller is told is what happened to its own write:

- the batch committed: each caller gets its result;
- the database refused a write in it (a duplicate key, a value it does not take): nothing of
  the batch is kept, and each write is tried again alone, in a transaction of its own, so
  that only the write at fault fails, with its cause;
- the database is unavailable (no connection, a timeout, a busy file): every write of the
  batch fails with the cause, and so does every write queued behind it, without waiting out
  another timeout on a database found unavailable a moment ago. The next write tries again.

There is one writer for each engine (and event loop), shared by every store object on that
engine, so the service's records and audit entries commit together. On SQLite it also holds
the database's one write turn (`WriteTurn`): every other write transaction of this process on
the engine (rate-limit counts, keys, runs) waits its turn here, in order, instead of racing
for the file lock (measured with wrk: P99 1.4 s racing, 0.14 s queued), and so do the other
processes writing the same file.

The kinds of write are synchronous functions of a connection, run in one of two ways. On a
SQLite file, a thread of the writer's own runs the whole transaction on a synchronous
connection to the file (`sqlite_writer`), so a batch costs the event loop one hop: through the
async driver every statement, the BEGIN and the COMMIT each went to the driver's thread and
back, and that was most of the store's CPU in a request. Elsewhere (PostgreSQL, an in-memory
SQLite) the same functions run on the engine's async connection (`run_sync`). A batch under
way in the thread when the writer is stopped is finished there, committed or not: its
callers are told the writer stopped.
"""

import asyncio
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from jurist.store._engine import sqlite_writer, writer
from jurist.store._errors import DATABASE_ERRORS, StoreError, database_failure, is_unavailable
from jurist.store._write_turn import WriteTurn

# One kind of write, for any number of rows: a result for each, in order. The function is
# the kind: writes of one kind in a batch go to one call of it, inside the batch's
# transaction.
Batched = Callable[[sa.Connection, Sequence[Any]], Sequence[Any]]

MAX_BATCH = 512  # writes one transaction holds at most

_writers: "weakref.WeakKeyDictionary[AsyncEngine, GroupCommit]" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class _Pending:
    kind: Batched
    payload: Any
    action: str  # what a failure says could not be done: "save validation <id>"
    answer: "asyncio.Future[Any]"


class GroupCommit:
    """The group writer of one engine: `await GroupCommit.of(engine).write(kind, payload,
    action)` is `kind`'s result for `payload`, once committed. `max_batch` bounds the writes
    of one transaction (1: a transaction for each write)."""

    def __init__(self, engine: AsyncEngine) -> None:
        # Weakly: the registry is keyed by the engine, and must not keep it alive.
        self._engine = weakref.ref(engine)
        self._url = engine.url
        self.loop = asyncio.get_running_loop()  # the loop its futures and task belong to
        # SQLite has one writer at a time: this process's writers, and those of the other
        # processes on the same file, take turns here.
        self.turn = WriteTurn(engine.url.database) if engine.dialect.name == "sqlite" else None
        # On a SQLite file, transactions run whole in a thread of this writer's own.
        sync = sqlite_writer(engine)
        self._thread = None if sync is None else _WriterThread(sync)
        self.max_batch = MAX_BATCH
        self.closed = False  # let go (`close`): the registry makes another on the next write
        self._queue: deque[_Pending] = deque()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, engine: AsyncEngine) -> "GroupCommit":
        """The writer of `engine` in the running event loop (made on first use)."""
        found = _writers.get(engine)
        if found is None or found.loop is not asyncio.get_running_loop():
            # A writer of a loop that ended has nothing left to do: its callers are gone.
            found = cls(engine)
            _writers[engine] = found
        return found

    async def write(self, kind: Batched, payload: Any, action: str) -> Any:
        """Queue one write and wait until it is committed (its result) or failed (a
        StoreError naming `action` and the cause)."""
        answer: asyncio.Future[Any] = self.loop.create_future()
        self._queue.append(_Pending(kind, payload, action, answer))
        if self._task is None or self._task.done():
            self._task = self.loop.create_task(self._drain())
        return await answer

    async def flush(self) -> None:
        """Return when every write queued so far is committed or failed."""
        while self._task is not None and not self._task.done():
            # Shielded: a caller that stops waiting must not stop the writer.
            await asyncio.shield(self._task)

    def close(self) -> None:
        """Let the writer's thread and its connection go (what is queued is not written:
        `flush` first)."""
        self.closed = True
        if self._thread is not None:
            self._thread.close()

    async def _drain(self) -> None:
        batch: list[_Pending] = []
        try:
            while self._queue:
                batch = self._take()
                if self.turn is None:
                    await self._commit(batch)
                else:
                    try:
                        await self.turn.acquire()
                    except OSError as exc:  # another process kept the turn too long
                        self._unavailable(batch, exc)
                        batch = []
                        continue
                    try:
                        await self._commit(batch)
                    finally:
                        self.turn.release()
                batch = []
        except BaseException as exc:
            # Cancelled, as when the event loop closes: nothing queued is written (a batch
            # already in the writer's thread is finished there, see the module's notes).
            stopped = StoreError(f"the store's writer stopped ({type(exc).__name__})")
            _fail([*batch, *self._queue], stopped)
            self._queue.clear()
            raise

    def _take(self) -> list[_Pending]:
        batch: list[_Pending] = []
        while self._queue and len(batch) < self.max_batch:
            pending = self._queue.popleft()
            if not pending.answer.cancelled():  # its caller stopped waiting before the write
                batch.append(pending)
        return batch

    async def _commit(self, batch: list[_Pending]) -> None:
        if not batch:
            return
        try:
            results = await self._transaction(batch)
        except DATABASE_ERRORS as exc:
            if is_unavailable(exc):
                self._unavailable(batch, exc)
            elif len(batch) == 1:
                self._refused(batch[0], exc)
            else:
                await self._one_by_one(batch)
            return
        except Exception as exc:  # noqa: BLE001 - a fault of the code: each caller hears of it
            _fail(batch, exc)
            return
        except BaseException as exc:
            _fail(batch, StoreError(f"the write was stopped ({type(exc).__name__})"))
            raise
        for pending, result in zip(batch, results, strict=True):
            if not pending.answer.done():
                pending.answer.set_result(result)

    async def _one_by_one(self, batch: list[_Pending]) -> None:
        """Each write of a batch the database refused, alone: only the one at fault fails."""
        for index, pending in enumerate(batch):
            try:
                (result,) = await self._transaction([pending])
            except DATABASE_ERRORS as exc:
                if is_unavailable(exc):
                    self._unavailable(batch[index:], exc)
                    return
                self._refused(pending, exc)
            except Exception as exc:  # noqa: BLE001 - as in _commit
                _fail([pending], exc)
            else:
                if not pending.answer.done():
                    pending.answer.set_result(result)

    def _refused(self, pending: _Pending, exc: BaseException) -> None:
        self._failed([pending], exc)

    def _unavailable(self, batch: list[_Pending], exc: BaseException) -> None:
        waiting = [*batch, *self._queue]
        self._queue.clear()
        self._failed(waiting, exc)

    def _failed(self, batch: Sequence[_Pending], exc: BaseException) -> None:
        """Fail each of `batch` with a StoreError of its own, naming its action."""
        for pending in batch:
            if not pending.answer.done():
                error = database_failure(pending.action, self._url, exc)
                error.__cause__ = exc
                pending.answer.set_exception(error)

    async def _transaction(self, batch: Sequence[_Pending]) -> list[Any]:
        engine = self._engine()
        if engine is None:
            raise StoreError("the store's engine was closed")
        if self._thread is not None:
            return await self._thread.transaction(batch)
        async with writer(engine).begin() as connection:
            return await connection.run_sync(_apply, batch)


class _WriterThread:
    """A thread of a writer's own that runs each batch's transaction whole, on a synchronous
    engine (`sqlite_writer`); let go with `close`, or when it is collected."""

    def __init__(self, engine: sa.Engine) -> None:
        self._writes = writer(engine)
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="jurist-group-commit")
        self.close = weakref.finalize(self, _close, engine, self._thread)

    async def transaction(self, batch: Sequence["_Pending"]) -> list[Any]:
        return await asyncio.wrap_future(self._thread.submit(self._run, batch))

    def _run(self, batch: Sequence["_Pending"]) -> list[Any]:
        with self._writes.begin() as connection:
            return _apply(connection, batch)


def close_writer(engine: AsyncEngine) -> None:
    """Let the writer of `engine` go, with its thread and connection (when the engine is
    disposed: what is queued is flushed before)."""
    found = _writers.pop(engine, None)
    if found is not None:
        found.close()


def _apply(connection: sa.Connection, batch: Sequence[_Pending]) -> list[Any]:
    """Each kind of write of `batch` in one call, on `connection` (in its transaction): each
    write's result, in the batch's order."""
    kinds: dict[Batched, list[int]] = {}
    for index, pending in enumerate(batch):
        kinds.setdefault(pending.kind, []).append(index)
    results: list[Any] = [None] * len(batch)
    for kind, indices in kinds.items():
        answers = kind(connection, [batch[index].payload for index in indices])
        for index, answer in zip(indices, answers, strict=True):
            results[index] = answer
    return results


def _close(engine: sa.Engine, thread: ThreadPoolExecutor) -> None:
    thread.shutdown(wait=True)
    engine.dispose()


def _fail(batch: Sequence[_Pending], error: BaseException) -> None:
    for pending in batch:
        if not pending.answer.done():
            pending.answer.set_exception(error)
