"""Retention: what a purge deletes, what it keeps, in batches, on SQLite and PostgreSQL; and
the service applying JURIST_RETENTION_DAYS on its own."""

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from jurist import Judgment, NumericScore
from jurist.server import ConfigError, ServiceSettings, load_config
from jurist.server._service import Service
from jurist.settings import Settings
from jurist.store import (
    AuditRecord,
    JudgmentRecord,
    RecordStore,
    ValidationRecord,
    keep_for,
    purge_records,
    rate_limit_counts,
    runs,
)
from service_script import ServiceScript, scripted_model

NOW = datetime.now(UTC)
OLD = NOW - timedelta(days=40)
CUTOFF = NOW - timedelta(days=30)


@pytest.fixture
async def records(database_url) -> AsyncIterator[RecordStore]:
    async with await RecordStore.open(database_url) as opened:
        yield opened


class _Unchanged:
    """A redactor that takes no time to build: this test is about retention."""

    def redact(self, text: str) -> str:
        return text


def _validation(id: str, at: datetime) -> ValidationRecord:
    return ValidationRecord(
        id=id,
        request_sha256="ab" * 32,
        valid=True,
        confidence=0.9,
        quality_score=0.8,
        error_count=0,
        warning_count=0,
        duration_ms=1.0,
        request={"output": "x"},
        result={"valid": True},
        created_at=at,
    )


def _judgment(id: str, at: datetime, **where: str) -> JudgmentRecord:
    judgment = Judgment.fail("too long", score=NumericScore(2, 0, 10))
    record = JudgmentRecord.of(judgment, judge="tone", id=id, **where)
    return JudgmentRecord(**{**record.__dict__, "created_at": at})


def _audit(at: datetime) -> AuditRecord:
    return AuditRecord(method="POST", path="/validate", status_code=200, latency_ms=1.0, at=at)


async def _ids(store: RecordStore, table: str) -> set[str]:
    async with store.engine.connect() as connection:
        column = "bucket" if table == "rate_limit_counts" else "id"
        rows = await connection.execute(sa.text(f"SELECT {column} FROM {table}"))
        return {str(value) for value in rows.scalars()}


async def _plant(store: RecordStore) -> None:
    """Old and new records of every kind a purge looks at."""
    await store.save_validation(
        _validation("v-old", OLD), [_judgment("j-v-old-1", OLD), _judgment("j-v-old-2", OLD)]
    )
    await store.save_validation(_validation("v-new", NOW), [_judgment("j-v-new", NOW)])
    await store.save_judgments([_judgment("j-old", OLD), _judgment("j-new", NOW)])
    for run_id in ("r-old", "r-running", "r-new"):
        await store.create_run("eval", id=run_id)
    await store.finish_run("r-old", "finished")
    await store.finish_run("r-new", "finished")
    await store.save_judgments(
        [
            _judgment("j-r-old", OLD, run_id="r-old", item_id="1"),
            _judgment("j-r-running", OLD, run_id="r-running", item_id="1"),
        ]
    )
    for at in (OLD, NOW):
        await store.write_audit(_audit(at))
    async with store.engine.begin() as connection:
        # An old run is one last updated before the cutoff; a run still running is never old.
        await connection.execute(
            sa.update(runs).where(runs.c.id.in_(["r-old", "r-running"])).values(updated_at=OLD)
        )
        await connection.execute(
            sa.insert(rate_limit_counts),
            [
                {"bucket": "b-old", "window_start": int(OLD.timestamp()), "hits": 3},
                {"bucket": "b-new", "window_start": int(NOW.timestamp()) // 60 * 60, "hits": 1},
            ],
        )


async def test_a_purge_deletes_the_services_old_records_and_keeps_runs_and_new_ones(records):
    await _plant(records)
    report = await purge_records(records, CUTOFF)
    assert report.deleted == {
        "validations": 1,
        "judgments": 3,  # the old validation's two and the old POST /judge one
        "audit_log": 1,
        "rate_limit_counts": 1,
        "runs": 0,
    }
    assert not report.dry_run
    assert report.total == 6
    assert await _ids(records, "validations") == {"v-new"}
    assert await _ids(records, "judgments") == {"j-v-new", "j-new", "j-r-old", "j-r-running"}
    assert await _ids(records, "runs") == {"r-old", "r-running", "r-new"}
    assert await _ids(records, "rate_limit_counts") == {"b-new"}
    assert [entry.at > CUTOFF for entry in await records.audit_entries()] == [True]
    # Nothing old is left: a second purge finds nothing.
    assert (await purge_records(records, CUTOFF)).total == 0


async def test_runs_go_only_when_asked_and_never_while_running(records):
    await _plant(records)
    report = await purge_records(records, CUTOFF, runs=True)
    assert report.deleted["runs"] == 1
    assert report.deleted["judgments"] == 4  # three of the service's, the old run's one
    assert await _ids(records, "runs") == {"r-running", "r-new"}
    assert await _ids(records, "judgments") == {"j-v-new", "j-new", "j-r-running"}


async def test_a_dry_run_counts_what_a_purge_deletes_and_deletes_nothing(records):
    await _plant(records)
    counted = await purge_records(records, CUTOFF, runs=True, dry_run=True)
    assert counted.dry_run
    assert await _ids(records, "validations") == {"v-old", "v-new"}
    assert len(await _ids(records, "judgments")) == 7
    assert len(await records.audit_entries()) == 2
    deleted = await purge_records(records, CUTOFF, runs=True)
    assert counted.deleted == deleted.deleted
    assert counted.batches == 0


async def test_a_backlog_goes_in_batches_of_the_size_asked_until_none_is_left(records):
    for n in range(5):
        await records.save_validation(_validation(f"v{n}", OLD), [_judgment(f"j{n}", OLD)])
    for _ in range(3):
        await records.write_audit(_audit(OLD))
    report = await purge_records(records, CUTOFF, batch_size=2)
    assert report.deleted["validations"] == 5
    assert report.deleted["judgments"] == 5
    assert report.deleted["audit_log"] == 3
    assert report.batches == 3 + 2  # validations 2+2+1, audit entries 2+1
    assert await _ids(records, "validations") == set()
    assert await _ids(records, "judgments") == set()


async def test_a_cutoff_must_be_aware_and_a_batch_hold_a_row(records):
    with pytest.raises(ValueError, match="timezone-aware"):
        await purge_records(records, datetime(2020, 1, 1))
    with pytest.raises(ValueError, match="batch_size"):
        await purge_records(records, CUTOFF, batch_size=0)


async def test_the_retention_loop_purges_at_once_and_says_what_it_did(records):
    await _plant(records)
    passes: list[object] = []
    done = asyncio.Event()

    def on_pass(report: object) -> None:
        passes.append(report)
        done.set()

    task = asyncio.create_task(keep_for(records, timedelta(days=30), on_pass=on_pass))
    try:
        await asyncio.wait_for(done.wait(), 30)
    finally:
        task.cancel()
    assert len(passes) == 1
    assert await _ids(records, "validations") == {"v-new"}


async def test_the_service_applies_its_retention_when_it_starts(records, database_url, tmp_path):
    await _plant(records)
    settings = Settings(
        JURIST_HOME=str(tmp_path / "home"), JURIST_CACHE="0", JURIST_DATABASE_URL=database_url
    )
    # A key: sealed content on PostgreSQL needs one (on SQLite it spares a key file).
    config = ServiceSettings(
        JURIST_RETENTION_DAYS="30",
        JURIST_RATE_LIMIT="none",
        JURIST_ENCRYPTION_KEY=Fernet.generate_key().decode(),
    )
    service = Service(
        settings,
        config,
        model=scripted_model(ServiceScript()),
        store=records,
        redactor=_Unchanged(),
    )
    await service.start()
    try:
        await asyncio.wait_for(service.purged.wait(), 30)
    finally:
        await service.stop()
    assert service.retention is not None
    assert service.retention.cancelled()
    assert service.last_purge is not None
    assert service.last_purge.deleted["validations"] == 1
    assert service.last_purge.deleted["runs"] == 0  # the user's runs are not the service's
    assert await _ids(records, "validations") == {"v-new"}
    assert await _ids(records, "runs") == {"r-old", "r-running", "r-new"}


def test_retention_is_off_by_default_and_named_when_wrong(monkeypatch):
    assert ServiceSettings().retention_days is None
    assert ServiceSettings(JURIST_RETENTION_DAYS="none").retention_days is None
    assert ServiceSettings(JURIST_RETENTION_DAYS="7").retention_days == 7
    monkeypatch.setenv("JURIST_RETENTION_DAYS", "-1")
    with pytest.raises(ConfigError, match="JURIST_RETENTION_DAYS"):
        load_config()
