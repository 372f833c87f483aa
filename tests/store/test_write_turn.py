"""SQLite's write turn across processes: a process waits for the turn another holds, takes it
as soon as it is let go, and fails as unavailable (never hangs) when it is held too long."""

import asyncio
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from jurist import Judgment
from jurist.store import (
    JudgmentRecord,
    RecordStore,
    StoreError,
    ValidationRecord,
    _write_turn,
    new_id,
)

# Holds the advisory lock on the file it is given until a line comes on its stdin.
HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
fcntl.flock(fd, fcntl.LOCK_UN)
print("released", flush=True)
"""


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "jurist.sqlite3"


@pytest.fixture
async def records(database: Path) -> AsyncIterator[RecordStore]:
    async with await RecordStore.open(f"sqlite:///{database}") as opened:
        yield opened


@pytest.fixture
def holder(database: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the database's write turn."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, f"{database}-writer"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "held"
    yield process
    process.kill()
    process.wait()


def _let_go(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    assert holder.stdout is not None
    holder.stdin.write("go\n")
    holder.stdin.flush()
    assert holder.stdout.readline().strip() == "released"


def _validation() -> ValidationRecord:
    return ValidationRecord(
        id=new_id(),
        request_sha256="ab" * 32,
        valid=True,
        confidence=1.0,
        quality_score=1.0,
        error_count=0,
        warning_count=0,
        duration_ms=1.0,
        request={},
        result={},
    )


async def test_a_write_waits_for_another_process_turn_and_lands_once_it_is_let_go(
    records: RecordStore, holder: subprocess.Popen[str]
) -> None:
    record = _validation()
    judgment = JudgmentRecord.of(Judgment.ok("fine"), judge="schema")
    writing = asyncio.ensure_future(records.save_validation(record, [judgment]))
    # The write is queued behind the other process: give the loop turns, it stays pending.
    for _ in range(50):
        await asyncio.sleep(0)
    assert not writing.done()
    _let_go(holder)
    await asyncio.wait_for(writing, timeout=30)
    stored = await records.get_validation(record.id)
    assert stored is not None
    assert stored.judgment_ids == (judgment.id,)


async def test_a_turn_held_too_long_fails_the_write_as_unavailable_and_names_why(
    records: RecordStore, holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_write_turn, "BUSY_TIMEOUT_S", 0.2)
    with pytest.raises(StoreError, match=re.escape("held the database's write turn for 0.2 s")):
        await asyncio.wait_for(records.save_validation(_validation()), timeout=30)
    # A write in a transaction of its own (a run) waits for the same turn.
    with pytest.raises(StoreError, match="write turn"):
        await asyncio.wait_for(records.create_run("eval"), timeout=30)
    # Once the turn is let go, the next write goes through.
    _let_go(holder)
    record = _validation()
    await records.save_validation(record)
    assert await records.get_validation(record.id) is not None
