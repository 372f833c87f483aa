"""Group commit: concurrent writes share transactions, each caller is answered only after its
own write is committed, a write the database refuses fails alone, a database that is down
fails every waiting write with its cause, and closing flushes what is queued. On SQLite and
a real PostgreSQL server alike."""

import asyncio
import dataclasses
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import await_only

from jurist import Judgment
from jurist.store import (
    AuditRecord,
    DuplicateRecordError,
    GroupCommit,
    JudgmentRecord,
    RecordStore,
    StoreError,
    ValidationRecord,
    new_id,
)

SHA = "cd" * 32


@pytest.fixture
async def records(database_url) -> AsyncIterator[RecordStore]:
    async with await RecordStore.open(database_url) as opened:
        yield opened


def validation(id: str | None = None) -> ValidationRecord:
    return ValidationRecord(
        id=id or new_id(),
        request_sha256=SHA,
        valid=True,
        confidence=0.9,
        quality_score=1.0,
        error_count=0,
        warning_count=0,
        duration_ms=1.0,
        request={"output": "{}"},
        result={"valid": True},
    )


def judgment(validation_id: str | None = None) -> JudgmentRecord:
    return JudgmentRecord.of(Judgment.ok("fine"), judge="schema", validation_id=validation_id)


def audit(path: str) -> AuditRecord:
    return AuditRecord(method="POST", path=path, status_code=200, latency_ms=1.0)


class Transactions:
    """Counts the commits and rollbacks of an engine's connections (SQLAlchemy's events)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.commits = 0
        self.rollbacks = 0
        self._engine = engine.sync_engine
        sa.event.listen(self._engine, "commit", self._commit)
        sa.event.listen(self._engine, "rollback", self._rollback)

    def _commit(self, _connection: Any) -> None:
        self.commits += 1

    def _rollback(self, _connection: Any) -> None:
        self.rollbacks += 1

    def close(self) -> None:
        sa.event.remove(self._engine, "commit", self._commit)
        sa.event.remove(self._engine, "rollback", self._rollback)


@pytest.fixture
def transactions(records) -> Iterator[Transactions]:
    counted = Transactions(records.engine)
    yield counted
    counted.close()


async def count(engine: AsyncEngine, table: str) -> int:
    async with engine.connect() as connection:
        return int(await connection.scalar(sa.text(f"SELECT count(*) FROM {table}")))


async def test_concurrent_saves_share_commits_and_each_is_readable_after(records, transactions):
    saved = [(validation(), judgment()) for _ in range(60)]
    await asyncio.gather(
        *(records.save_validation(record, [item]) for record, item in saved),
        *(records.write_audit(audit(f"/validate/{n}")) for n in range(60)),
    )
    # 120 writes, each returned only after its commit: far fewer commits than writes.
    assert 1 <= transactions.commits < 10, transactions.commits
    for record, item in saved:
        stored = await records.get_validation(record.id)
        assert stored is not None
        assert stored.judgment_ids == (item.id,)
    assert await count(records.engine, "audit_log") == 60


async def test_alone_a_write_commits_at_once(records, transactions):
    for n in range(3):
        await records.write_audit(audit(f"/one/{n}"))
    assert transactions.commits == 3


async def test_each_audit_entry_gets_its_own_id_in_a_shared_commit(records, transactions):
    paths = [f"/path/{n}" for n in range(40)]
    await asyncio.gather(*(records.write_audit(audit(path)) for path in paths))
    assert transactions.commits < 5
    stored = await records.audit_entries(limit=100)
    assert sorted(entry.path for entry in stored) == sorted(paths)
    assert len({entry.id for entry in stored}) == len(paths)


async def test_a_refused_write_fails_alone_and_nothing_of_it_is_kept(records, transactions):
    taken = validation()
    await records.save_validation(taken)
    good = [(validation(), judgment()) for _ in range(9)]
    bad_judgment = judgment()
    again = dataclasses.replace(taken, valid=False)  # the same id
    outcomes = await asyncio.gather(
        *(records.save_validation(record, [item]) for record, item in good[:5]),
        records.save_validation(again, [bad_judgment]),
        *(records.save_validation(record, [item]) for record, item in good[5:]),
        return_exceptions=True,
    )
    failed = outcomes[5]
    assert isinstance(failed, DuplicateRecordError), failed
    assert f"cannot save validation {taken.id}" in str(failed)
    assert failed.__cause__ is not None  # the driver's own error
    assert [outcome for n, outcome in enumerate(outcomes) if n != 5] == [None] * 9
    # The batch was refused whole (a rollback), then each write went alone.
    assert transactions.rollbacks >= 1
    for record, item in good:
        assert await records.get_validation(record.id) is not None
        assert await records.get_judgment(item.id) is not None
    assert await records.get_judgment(bad_judgment.id) is None  # nothing half-written
    assert await count(records.engine, "validations") == 10


class Gate:
    """A kind of write that waits until the test opens the gate, then fails as the database
    would when unreachable; it counts how often it was tried and with how many writes.

    Kinds of write are synchronous: on a SQLite file they run in the writer's thread, which
    waits for the gate there; on PostgreSQL they run on the event loop (SQLAlchemy's
    `run_sync`), and wait for it as SQLAlchemy's async drivers wait, letting the loop go on."""

    def __init__(self, error: Callable[[], BaseException]) -> None:
        self.opened = threading.Event()
        self.entered = threading.Event()
        self.batches: list[int] = []
        self._error = error

    def __call__(self, connection: sa.Connection, payloads: Sequence[Any]) -> list[Any]:
        self.batches.append(len(payloads))
        self.entered.set()
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the writer's thread
            self.opened.wait()
        else:
            await_only(asyncio.to_thread(self.opened.wait))
        raise self._error()

    async def wait_entered(self) -> None:
        await asyncio.to_thread(self.entered.wait)


def unreachable() -> BaseException:
    return sa.exc.OperationalError("INSERT", {}, ConnectionError("server closed the connection"))


async def test_an_unavailable_database_fails_the_batch_and_every_write_queued_behind_it(records):
    group = GroupCommit.of(records.engine)
    gate = Gate(unreachable)
    first = asyncio.ensure_future(group.write(gate, "first", "write the first"))
    await gate.wait_entered()  # the first batch is in the database's hands
    queued = [
        asyncio.ensure_future(records.save_validation(validation())),
        asyncio.ensure_future(records.write_audit(audit("/queued"))),
        asyncio.ensure_future(group.write(gate, "third", "write the third")),
    ]
    await asyncio.sleep(0)  # they are queued
    gate.opened.set()
    results = await asyncio.gather(first, *queued, return_exceptions=True)
    assert all(isinstance(result, StoreError) for result in results), results
    messages = [str(result) for result in results]
    assert "cannot write the first" in messages[0]
    assert "cannot save validation" in messages[1]
    assert "cannot write the audit log" in messages[2]
    assert all("server closed the connection" in message for message in messages)
    # Queued writes were failed with the cause, not tried again against the same outage.
    assert gate.batches == [1]
    assert await count(records.engine, "validations") == 0
    assert await count(records.engine, "audit_log") == 0
    # The next write tries again, and the database answers.
    await records.write_audit(audit("/after"))
    assert await count(records.engine, "audit_log") == 1


async def test_a_fault_in_a_write_fails_its_batch_with_it_and_the_writer_goes_on(records):
    group = GroupCommit.of(records.engine)
    gate = Gate(lambda: KeyError("a bug"))
    gate.opened.set()
    outcomes = await asyncio.gather(
        group.write(gate, 1, "write one"),
        group.write(gate, 2, "write two"),
        return_exceptions=True,
    )
    assert all(isinstance(outcome, KeyError) for outcome in outcomes), outcomes
    await records.write_audit(audit("/still"))
    assert await count(records.engine, "audit_log") == 1


async def test_a_batch_holds_at_most_max_batch_writes(records, transactions):
    group = GroupCommit.of(records.engine)
    group.max_batch = 1
    try:
        await asyncio.gather(*(records.write_audit(audit(f"/each/{n}")) for n in range(12)))
    finally:
        group.max_batch = 512
    assert transactions.commits == 12


async def test_a_caller_that_stopped_waiting_before_the_write_is_skipped(records):
    group = GroupCommit.of(records.engine)
    gate = Gate(unreachable)
    first = asyncio.ensure_future(group.write(gate, "first", "write the first"))
    await gate.wait_entered()
    dropped = asyncio.ensure_future(records.write_audit(audit("/dropped")))
    kept = asyncio.ensure_future(records.write_audit(audit("/kept")))
    await asyncio.sleep(0)
    dropped.cancel()
    gate.opened.set()
    with pytest.raises(StoreError):
        await first
    with pytest.raises(StoreError):  # queued behind the failed batch
        await kept
    await records.write_audit(audit("/later"))
    assert [entry.path for entry in await records.audit_entries()] == ["/later"]


async def test_closing_the_store_flushes_what_is_queued(database_url):
    store = await RecordStore.open(database_url)
    saved = [validation() for _ in range(25)]
    pending = [asyncio.ensure_future(store.save_validation(record)) for record in saved]
    pending += [asyncio.ensure_future(store.write_audit(audit(f"/q/{n}"))) for n in range(25)]
    await asyncio.sleep(0)  # queued, not yet committed
    assert not any(task.done() for task in pending)
    await store.close()
    assert all(task.done() and task.exception() is None for task in pending)
    async with await RecordStore.open(database_url) as reopened:
        for record in saved:
            assert await reopened.get_validation(record.id) is not None
        assert len(await reopened.audit_entries()) == 25


async def test_stores_on_one_engine_share_its_writer(records, transactions):
    other = RecordStore(records.engine)
    await asyncio.gather(
        *(records.write_audit(audit(f"/a/{n}")) for n in range(20)),
        *(other.write_audit(audit(f"/b/{n}")) for n in range(20)),
    )
    assert transactions.commits < 5
    assert await count(records.engine, "audit_log") == 40


async def test_an_in_memory_sqlite_store_commits_on_its_own_connection():
    # A second connection would open another, empty in-memory database: the writer must use
    # the engine's own connection there, not a thread with a connection of its own.
    async with await RecordStore.open("sqlite:///:memory:") as store:
        await asyncio.gather(*(store.write_audit(audit(f"/memory/{n}")) for n in range(5)))
        assert len(await store.audit_entries()) == 5


async def test_the_engines_connect_listeners_configure_the_writers_own_connection(tmp_path):
    # On a SQLite file the writer has a connection of its own: what a deployment (or a bench
    # choosing its durability) sets on the engine's connections must reach it too.
    async with await RecordStore.open(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        configured: list[str] = []

        def connected(dbapi_connection: Any, _record: Any) -> None:
            configured.append(type(dbapi_connection).__module__)

        sa.event.listen(store.engine.sync_engine, "connect", connected)
        await store.write_audit(audit("/configured"))
        assert "sqlite3" in configured, configured
