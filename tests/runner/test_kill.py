"""A run whose process is killed with SIGKILL mid-way (no handler runs, nothing is
flushed on the way out) resumes with every item stored exactly once."""

import asyncio
import os
import selectors
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from batch_fakes import Gate, dataset

from jurist.runner import evaluate
from jurist.store import RecordStore

SCRIPT = Path(__file__).with_name("killed_run.py")
DEADLINE_S = 60  # a guard against a hung child, not a timing assumption


def kill_once_stored(url: str, n: int, k: int, log: Path, concurrency: int = 4) -> list[str]:
    """Run killed_run.py until it has stored k judgments, then SIGKILL it; what it printed
    (it must have died of the signal)."""
    environment = {**os.environ, "PYTHONPATH": str(SCRIPT.parent)}
    with log.open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, str(SCRIPT), url, str(n), str(k), str(concurrency)],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=environment,
        )
        assert process.stdout is not None
        try:
            lines = read_until(process, f"stored {k}")
        finally:
            process.kill()
            process.wait()
            process.stdout.close()
    assert lines, log.read_text()
    assert process.returncode == -signal.SIGKILL
    return lines


def read_until(process: subprocess.Popen[str], wanted: str) -> list[str]:
    """The child's lines up to and including `wanted`; [] if it exits or hangs first."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    lines: list[str] = []
    pending = b""
    # Read from the descriptor itself: a buffered readline can take in more lines than it
    # returns, and the selector then waits for data that already arrived.
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        deadline = time.monotonic() + DEADLINE_S
        while wanted not in lines:
            if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                return []
            chunk = os.read(descriptor, 65536)
            if not chunk:
                return []
            *complete, pending = (pending + chunk).split(b"\n")
            lines.extend(line.decode().strip() for line in complete)
    return lines[: lines.index(wanted) + 1]


async def resume(url: str, n: int, gate: Gate) -> tuple[str, int, Counter[str | None], str]:
    async with await RecordStore.open(url) as store:
        run = await store.get_run("killed")
        assert run is not None
        status_after_kill = run.status
        stored_after_kill = len(await store.run_judgments(run.id))
        await evaluate(dataset(n), gate, store=store, run="killed", resume=True)
        stored = Counter(s.item_id for s in await store.run_judgments(run.id))
        finished = await store.get_run(run.id)
    assert finished is not None
    return status_after_kill, stored_after_kill, stored, finished.status


def test_a_killed_run_resumes_with_each_item_stored_once(sqlite_url, tmp_path):
    n, k = 40, 9
    kill_once_stored(sqlite_url, n, k, tmp_path / "stderr.log")

    gate = Gate()
    status_after_kill, stored_after_kill, stored, status = asyncio.run(resume(sqlite_url, n, gate))

    assert status_after_kill == "running"  # nobody lived to mark it
    assert stored_after_kill == k
    assert len(gate.calls) == n - k
    assert stored == Counter(str(i) for i in range(1, n + 1))
    assert status == "done"


def test_a_run_killed_between_group_commits_loses_no_stored_item_and_repeats_none(
    sqlite_url, tmp_path
):
    # Sixteen items answered at once are committed together (group commit): the kill comes
    # after several such transactions, each holding many judgments.
    n, k = 120, 64
    lines = kill_once_stored(sqlite_url, n, k, tmp_path / "stderr.log", concurrency=16)
    run_commits = lines[lines.index("started killed") :].count("commit")
    assert 0 < run_commits < k / 4  # judgments shared transactions

    gate = Gate()
    status_after_kill, stored_after_kill, stored, status = asyncio.run(resume(sqlite_url, n, gate))

    assert status_after_kill == "running"
    assert stored_after_kill == k  # every judgment reported stored was committed
    assert len(gate.calls) == n - k  # and none of them was judged again
    assert stored == Counter(str(i) for i in range(1, n + 1))
    assert status == "done"


def test_ctrl_c_marks_the_run_interrupted_with_what_it_stored(sqlite_url, tmp_path):
    n, k = 40, 5
    environment = {**os.environ, "PYTHONPATH": str(SCRIPT.parent)}
    with (tmp_path / "stderr.log").open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, str(SCRIPT), sqlite_url, str(n), str(k)],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=environment,
        )
        assert process.stdout is not None
        try:
            lines = read_until(process, f"stored {k}")
            process.send_signal(signal.SIGINT)
            process.wait(timeout=DEADLINE_S)
        finally:
            process.kill()
            process.wait()
            process.stdout.close()
    assert lines, (tmp_path / "stderr.log").read_text()
    assert "KeyboardInterrupt" in (tmp_path / "stderr.log").read_text()

    async def stored() -> tuple[str, dict[str, object] | None, int]:
        async with await RecordStore.open(sqlite_url) as store:
            run = await store.get_run("killed")
            assert run is not None
            return run.status, run.summary, len(await store.run_judgments(run.id))

    status, summary, count = asyncio.run(stored())
    assert status == "interrupted"
    assert count == k
    assert summary is not None
    assert summary["n"] == k
