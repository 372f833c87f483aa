"""What the store's write path sustains for the service: each "request" is what a schema-only
POST /validate writes (a validation record with its one judgment, then its audit entry),
made by `--callers` (64) concurrent callers until `--n` (3,000) requests are written, with
group commit (the store's calls, as the service makes them) and without it: each write in a
transaction of its own, as the store wrote before group commit (concurrently on PostgreSQL,
up to its pool; on SQLite one at a time, in the order of the engine's write turn).

Per row: requests/s, the P50 and P99 of a request's two writes, commits made, and this
process's CPU time per request (the store's threads included; PostgreSQL's own server
processes are not counted). Rows, by `--backends`:

- sqlite: WAL with synchronous=FULL (each commit synced to disk), as the store opens it;
- sqlite-normal: the same with synchronous=NORMAL (commits synced only at checkpoints: a
  power cut can lose the last ones), what the sync at each commit costs, for comparison;
- postgresql: a server of its own (the tests' helper) with the default durability (fsync,
  synchronous_commit on: each commit synced to disk);
- postgresql-nosync: the same server with fsync and synchronous_commit off, as the tests run.

The machine's other load shows in every figure: run it alone, under the bench lock on a
shared machine: flock /tmp/jurist-bench.lock python bench/store_group_commit.py

Printed: a markdown table with the machine and the command; appended: one JSON line per row
to bench/results/store_group_commit.jsonl.

Run: python bench/store_group_commit.py [--n 3000] [--callers 64]
     [--backends sqlite,sqlite-normal,postgresql,postgresql-nosync]
"""

import argparse
import asyncio
import contextlib
import dataclasses
import datetime
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from jurist import Judgment
from jurist.store import (
    AuditRecord,
    GroupCommit,
    JudgmentRecord,
    RecordStore,
    ValidationRecord,
    create_engine,
    metadata,
    migrate,
    new_id,
    writer,
)

sys.path.insert(0, str(Path(__file__).parent))
from machine_info import machine

BENCH = Path(__file__).parent
TESTS = BENCH.parent / "tests"
RESULTS = BENCH / "results" / "store_group_commit.jsonl"
TABLES = metadata.tables
BACKENDS = ("sqlite", "sqlite-normal", "postgresql", "postgresql-nosync")
HEADER = (
    "| backend | durability | commit | requests/s | P50 ms | P99 ms | commits | CPU ms/request |\n"
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
)


@dataclass(frozen=True)
class Row:
    backend: str
    durability: str  # as the database reports it
    grouped: bool
    requests: int
    callers: int
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    commits: int
    cpu_ms_per_request: float

    def markdown(self) -> str:
        return (
            f"| {self.backend} | {self.durability} | "
            f"{'grouped' if self.grouped else 'one per write'} | "
            f"{self.requests_per_s:,.0f} | {self.p50_ms:.1f} | {self.p99_ms:.1f} | "
            f"{self.commits:,} | {self.cpu_ms_per_request:.3f} |"
        )


def request_records(n: int) -> tuple[ValidationRecord, JudgmentRecord, AuditRecord]:
    """What the service stores for one schema-only request (redacted, nothing sealed)."""
    validation_id = new_id()
    judgment = JudgmentRecord.of(
        Judgment.ok("the output matches the schema", metadata={"report": "schema"}),
        judge="schema",
        layer="schema",
        validation_id=validation_id,
    )
    request = {
        "output": {"code": f"def f(): return {n}"},
        "validation_types": ["schema"],
        "expected_schema": {"type": "object", "required": ["code"]},
    }
    result = {
        "valid": True,
        "confidence": 1.0,
        "quality_score": None,
        "errors": [],
        "warnings": [],
        "metadata": {
            "validation_id": validation_id,
            "layers": {"schema": {"status": "PASS", "judgment_id": judgment.id}},
            "duration_ms": 0.4,
            "error_count": 0,
            "warning_count": 0,
        },
    }
    validation = ValidationRecord(
        id=validation_id,
        request_sha256=f"{n:064x}",
        valid=True,
        confidence=1.0,
        quality_score=1.0,
        error_count=0,
        warning_count=0,
        duration_ms=0.4,
        request=request,
        result=result,
    )
    audit = AuditRecord(
        method="POST",
        path="/validate",
        status_code=200,
        latency_ms=2.0,
        client="127.0.0.1",
        request_sha256=f"{n:064x}",
        verdict="valid",
        detail={"request": {"validation_types": ["schema"]}, "output_excerpt": "{}"},
    )
    return validation, judgment, audit


async def one_row(backend: str, url: str, n: int, callers: int, grouped: bool) -> Row:
    engine = create_engine(url)
    if backend == "sqlite-normal":
        # After the store's own settings on each new connection, so this one wins.
        sa.event.listen(engine.sync_engine, "connect", _synchronous_normal)
    commits = 0

    def counted(_connection: Any) -> None:
        nonlocal commits
        commits += 1

    try:
        await migrate(engine)
        durability = await durability_of(engine)
        store = RecordStore(engine) if grouped else Ungrouped(engine)
        work = [request_records(index) for index in range(n)]
        for validation, judgment, audit in work[:50]:  # warm-up: connections, statements
            await store.save_validation(validation, [judgment])
            await store.write_audit(audit)
        timed = work[50:]
        latencies: list[float] = []
        queue = iter(timed)

        async def caller() -> None:
            for validation, judgment, audit in queue:
                started = time.perf_counter()
                await store.save_validation(validation, [judgment])
                await store.write_audit(audit)
                latencies.append(time.perf_counter() - started)

        sa.event.listen(engine.sync_engine, "commit", counted)
        cpu = time.process_time()
        wall = time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(callers)))
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu
    finally:
        await engine.dispose()
    latencies.sort()
    return Row(
        backend=backend,
        durability=durability,
        grouped=grouped,
        requests=len(timed),
        callers=callers,
        requests_per_s=len(timed) / wall,
        p50_ms=statistics.median(latencies) * 1000,
        p99_ms=latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        commits=commits,
        cpu_ms_per_request=cpu / len(timed) * 1000,
    )


async def durability_of(engine: AsyncEngine) -> str:
    """When a commit is on disk, as the database's settings say."""
    async with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            level = await connection.scalar(sa.text("PRAGMA synchronous"))
            return "synchronous=" + {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[level]
        fsync = await connection.scalar(sa.text("SHOW fsync"))
        synchronous = await connection.scalar(sa.text("SHOW synchronous_commit"))
        return f"fsync={fsync}, synchronous_commit={synchronous}"


class Ungrouped:
    """The baseline: each write in a transaction of its own, the rows the store writes."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def save_validation(
        self, validation: ValidationRecord, judgments: Sequence[JudgmentRecord]
    ) -> None:
        now = datetime.datetime.now(datetime.UTC)
        async with self._transaction() as connection:
            await connection.execute(sa.insert(TABLES["validations"]), _row(validation, now))
            rows = [_row(judgment, now) for judgment in judgments]
            await connection.execute(sa.insert(TABLES["judgments"]), rows)

    async def write_audit(self, audit: AuditRecord) -> int:
        table = TABLES["audit_log"]
        async with self._transaction() as connection:
            statement = sa.insert(table).values(_row(audit, None)).returning(table.c.id)
            return int((await connection.execute(statement)).scalar_one())

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncConnection]:
        async with contextlib.AsyncExitStack() as stack:
            turn = GroupCommit.of(self._engine).turn  # SQLite's one writer at a time
            if turn is not None:
                await stack.enter_async_context(turn)
            yield await stack.enter_async_context(writer(self._engine).begin())


def _row(record: Any, now: datetime.datetime | None) -> dict[str, Any]:
    values = {field.name: getattr(record, field.name) for field in dataclasses.fields(record)}
    for name in ("created_at", "at"):
        if name in values and values[name] is None:
            values[name] = now or datetime.datetime.now(datetime.UTC)
    return values


def _synchronous_normal(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


@contextlib.contextmanager
def postgres(durable: bool) -> Iterator[str]:
    """A PostgreSQL server of this run's own (the tests' helper), with its default durability
    when `durable`, else fsync and synchronous_commit off as the tests run it."""
    sys.path.insert(0, str(TESTS))
    from postgres import own_server

    with own_server("jurist-bench-pg-") as server:
        server.stop()
        options = server.options.replace("-c fsync=off", "")
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off"
        server.options = options
        server.start()
        yield server.url()


async def rows_of(backend: str, args: argparse.Namespace, directory: Path) -> list[Row]:
    rows = []
    with contextlib.ExitStack() as stack:
        if backend.startswith("postgresql"):
            url = stack.enter_context(postgres(durable=backend == "postgresql"))
        for grouped in (True, False):
            if backend.startswith("sqlite"):
                url = f"sqlite:///{directory / f'{backend}-{grouped}.sqlite3'}"
            row = await one_row(backend, url, args.n + 50, args.callers, grouped)
            print(row.markdown(), flush=True)
            rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000, help="requests written per row")
    parser.add_argument("--callers", type=int, default=64, help="concurrent callers")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    args = parser.parse_args(argv)
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    unknown = sorted(set(backends) - set(BACKENDS))
    if unknown or not backends:
        parser.error(f"--backends: expected some of {','.join(BACKENDS)}, got {args.backends!r}")
    if args.n < 1 or args.callers < 1:
        parser.error("--n and --callers must be 1 or more")

    command = " ".join(["python", "bench/store_group_commit.py", *(argv or sys.argv[1:])])
    run = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    print(f"machine: {machine()}\ncommand: {command}\n")
    print(HEADER, flush=True)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="jurist-group-commit-") as directory:
        for backend in backends:
            rows += asyncio.run(rows_of(backend, args, Path(directory)))
    RESULTS.parent.mkdir(exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps({"run": run, "machine": machine(), **asdict(row)}) + "\n")


if __name__ == "__main__":
    main()
