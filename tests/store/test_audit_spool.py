"""The audit spool: records the database could not take, kept on disk and written once when
it returns, whatever crashed, tore or raced on the way."""

import asyncio
import itertools
import json
import multiprocessing
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import jurist.store._spool as spool_module
from jurist.store import AuditRecord, AuditSpool, RecordStore, StoreError

START = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def record(n: int, **changes) -> AuditRecord:
    values = {
        "method": "POST",
        "path": f"/validate?n={n}",
        "status_code": 503,
        "latency_ms": 1.25 + n / 1000,
        "key_id": "ops",
        "client": "127.0.0.1",
        "request_sha256": f"{n:064x}",
        "verdict": "error",
        "detail": {"n": n, "nested": {"list": [1, "two", None]}},
        "at": START + timedelta(microseconds=n),
    }
    return AuditRecord(**{**values, **changes})


@pytest.fixture
async def store(tmp_path) -> AsyncIterator[RecordStore]:
    async with await RecordStore.open(f"sqlite:///{tmp_path / 'store.sqlite3'}") as opened:
        yield opened


@pytest.fixture
def directory(tmp_path) -> Path:
    return tmp_path / "home" / "audit-spool"


async def stored_paths(store: RecordStore) -> list[str]:
    return sorted(entry.path for entry in await store.audit_entries(limit=10_000))


async def stored_count(store: RecordStore, count: int) -> bool:
    return len(await stored_paths(store)) >= count


def spool_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.jsonl"))


FIELDS = ("at", "method", "path", "status_code", "latency_ms", "key_id", "client")
FIELDS += ("request_sha256", "verdict", "detail")


def fields(entry: object) -> tuple[object, ...]:
    return tuple(getattr(entry, name) for name in FIELDS)


async def eventually(check, within: float = 10.0) -> None:
    """Wait for `check()` to hold (the replay loop runs on its own clock), at most `within`."""
    async with asyncio.timeout(within):
        for _ in itertools.count():
            if await check():
                return
            await asyncio.sleep(0.01)


async def test_spooled_records_are_written_once_and_whole(store, directory):
    spool = AuditSpool(directory)
    assert not spool.pending()
    records = [record(n) for n in range(3)]
    for item in records:
        spool.append(item)
    assert spool.holding
    assert spool.pending()

    assert await spool.replay(store.engine) == 3
    assert await spool.replay(store.engine) == 0
    assert not spool.holding
    assert not spool.pending()

    entries = sorted(await store.audit_entries(), key=lambda entry: entry.path)
    assert [fields(entry) for entry in entries] == [fields(item) for item in records]
    spool.close()
    assert spool_files(directory) == []  # an empty file is not left behind


async def test_a_record_without_a_time_is_stamped_when_spooled(store, directory):
    spool = AuditSpool(directory)
    before = datetime.now(UTC)
    spool.append(record(1, at=None))
    await spool.replay(store.engine)
    (entry,) = await store.audit_entries()
    assert before <= entry.at <= datetime.now(UTC)


async def test_a_torn_last_line_is_skipped_and_the_whole_ones_replayed(store, directory):
    writer = AuditSpool(directory)
    for n in range(2):
        writer.append(record(n))
    (path,) = spool_files(directory)
    whole = path.read_bytes()
    third = spool_module._to_json(record(2))
    path.write_bytes(whole + json.dumps(third).encode()[:40])  # a crash mid-write
    writer._own.close()  # the process ended without closing its spool
    writer._own = None

    reader = AuditSpool(directory)
    assert await reader.replay(store.engine) == 2
    assert await stored_paths(store) == ["/validate?n=0", "/validate?n=1"]
    assert spool_files(directory) == []


async def test_a_replay_cut_short_before_the_file_is_trimmed_writes_nothing_twice(store, directory):
    spool = AuditSpool(directory)
    for n in range(4):
        spool.append(record(n))
    (path,) = spool_files(directory)
    saved = path.read_bytes()
    assert await spool.replay(store.engine) == 4
    spool.close()
    # As if the process had died between the commit and trimming its file.
    (directory / "crashed.jsonl").write_bytes(saved)

    assert await AuditSpool(directory).replay(store.engine) == 0
    assert len(await stored_paths(store)) == 4
    assert spool_files(directory) == []


async def test_a_write_that_committed_though_it_seemed_to_fail_is_not_doubled(store, directory):
    # The audit hook stamps a record before trying the database; if the commit went through
    # but its answer was lost, the same record is spooled as well.
    item = record(7)
    await store.write_audit(item)
    spool = AuditSpool(directory)
    spool.append(item)
    spool.append(record(8))
    assert await spool.replay(store.engine) == 1
    assert await stored_paths(store) == ["/validate?n=7", "/validate?n=8"]


async def test_identical_records_both_stay(store, directory):
    # Two requests alike to the microsecond are two entries, not a duplicate.
    spool = AuditSpool(directory)
    spool.append(record(1))
    spool.append(record(1))
    assert await spool.replay(store.engine) == 2
    assert await stored_paths(store) == ["/validate?n=1", "/validate?n=1"]


async def test_a_failed_replay_keeps_every_record(tmp_path, store, directory):
    spool = AuditSpool(directory)
    for n in range(3):
        spool.append(record(n))
    async with await RecordStore.open(f"sqlite:///{tmp_path / 'other.sqlite3'}") as broken:
        async with broken.engine.begin() as connection:
            await connection.exec_driver_sql("DROP TABLE audit_log")
        with pytest.raises(StoreError, match="replay the audit records kept on disk"):
            await spool.replay(broken.engine)
    assert spool.holding
    assert await spool.replay(store.engine) == 3


async def test_records_appended_during_a_replay_wait_for_the_next(store, directory, monkeypatch):
    spool = AuditSpool(directory)
    for n in range(3):
        spool.append(record(n))
    write_batch = spool_module._write_batch

    async def appending_meanwhile(engine, records):
        await asyncio.to_thread(spool.append, record(99))
        return await write_batch(engine, records)

    monkeypatch.setattr(spool_module, "_write_batch", appending_meanwhile)
    assert await spool.replay(store.engine) == 3
    monkeypatch.setattr(spool_module, "_write_batch", write_batch)
    assert spool.holding
    (path,) = spool_files(directory)
    assert [json.loads(line)["path"] for line in path.read_text().splitlines()] == [
        "/validate?n=99"
    ]
    spool.append(record(100))  # still appends to the file that replaced the old one
    assert await spool.replay(store.engine) == 2
    assert len(await stored_paths(store)) == 5


async def test_replays_go_in_batches(store, directory, monkeypatch):
    monkeypatch.setattr(spool_module, "BATCH", 7)
    spool = AuditSpool(directory)
    for n in range(30):
        spool.append(record(n))
    assert await spool.replay(store.engine) == 30
    assert len(await stored_paths(store)) == 30


async def test_a_live_process_keeps_its_file_and_one_that_ended_leaves_it_to_others(
    store, directory
):
    alive = AuditSpool(directory)
    alive.append(record(1))
    other = AuditSpool(directory)
    assert other.pending()  # it sees records waiting...
    assert await other.replay(store.engine) == 0  # ...but its owner replays them, not it
    assert await stored_paths(store) == []

    alive._own.close()  # the owner dies: its lock goes with it
    alive._own = None
    assert await other.replay(store.engine) == 1
    assert await stored_paths(store) == ["/validate?n=1"]
    assert spool_files(directory) == []


def test_concurrent_appends_from_threads_lose_and_tear_nothing(directory):
    spool = AuditSpool(directory)
    threads = [
        threading.Thread(target=lambda t=t: [spool.append(record(t * 1000 + n)) for n in range(50)])
        for t in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (path,) = spool_files(directory)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    paths = sorted(json.loads(line)["path"] for line in lines[:-1])
    assert paths == sorted(f"/validate?n={t * 1000 + n}" for t in range(8) for n in range(50))


def _append_in_a_worker(directory: str, worker: int, count: int) -> None:
    spool = AuditSpool(Path(directory))
    for n in range(count):
        spool.append(record(worker * 1000 + n))
    # Exits without closing, as a killed worker would: the file stays, unlocked.


async def test_workers_sharing_a_home_each_keep_a_file_and_all_are_replayed(store, directory):
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_append_in_a_worker, args=(str(directory), worker, 40))
        for worker in range(3)
    ]
    for worker in workers:
        worker.start()
    local = AuditSpool(directory)
    for n in range(40):
        await asyncio.to_thread(local.append, record(9000 + n))
    for worker in workers:
        await asyncio.to_thread(worker.join, 60)
        assert worker.exitcode == 0
    assert len(spool_files(directory)) == 4

    assert await local.replay(store.engine) == 160
    assert await local.replay(store.engine) == 0
    paths = await stored_paths(store)
    assert len(paths) == len(set(paths)) == 160
    # What is left is this process's own file, emptied.
    assert [path.stat().st_size for path in spool_files(directory)] == [0]


async def test_the_loop_replays_until_told_to_stop(store, directory):
    spool = AuditSpool(directory)
    spool.append(record(1))
    stopping = asyncio.Event()
    loop = asyncio.create_task(spool_module.keep_replaying(spool, store.engine, 0.05, stopping))
    try:
        await eventually(lambda: stored_count(store, 1))
        spool.append(record(2))  # a later record goes on the next round
        await eventually(lambda: stored_count(store, 2))
    finally:
        stopping.set()
        await asyncio.wait_for(loop, 10)
    assert await stored_paths(store) == ["/validate?n=1", "/validate?n=2"]
