"""`jurist store purge` and `jurist store new-key` as a user runs them."""

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet
from typer.testing import CliRunner

from jurist.cli import app
from jurist.cli._inputs import BadInput
from jurist.cli._store import parse_age
from jurist.store import AuditRecord, RecordStore, ValidationRecord, runs

runner = CliRunner()
OLD = datetime.now(UTC) - timedelta(days=40)


def _validation(id: str, at: datetime) -> ValidationRecord:
    return ValidationRecord(
        id=id,
        request_sha256="ab" * 32,
        valid=True,
        confidence=1.0,
        quality_score=1.0,
        error_count=0,
        warning_count=0,
        duration_ms=1.0,
        request={},
        result={},
        created_at=at,
    )


@pytest.fixture
def database(tmp_path) -> str:
    """A store with an old and a new validation, an old audit entry and an old finished run."""
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"

    async def plant() -> None:
        async with await RecordStore.open(url) as store:
            await store.save_validation(_validation("old", OLD))
            await store.save_validation(_validation("new", datetime.now(UTC)))
            await store.write_audit(
                AuditRecord(method="GET", path="/x", status_code=200, latency_ms=1.0, at=OLD)
            )
            await store.create_run("eval", id="run-old")
            await store.finish_run("run-old", "finished")
            async with store.engine.begin() as connection:
                await connection.execute(sa.update(runs).values(updated_at=OLD))

    asyncio.run(plant())
    return url


def _count(url: str, table: str) -> int:
    async def count() -> int:
        async with await RecordStore.open(url) as store, store.engine.connect() as connection:
            return int(
                (await connection.execute(sa.text(f"SELECT count(*) FROM {table}"))).scalar_one()
            )

    return asyncio.run(count())


def test_purge_deletes_what_is_older_and_says_so_per_table(database):
    result = runner.invoke(app, ["store", "purge", "--older-than", "30d", "--database", database])
    assert result.exit_code == 0, result.output
    assert "validations        deleted 1" in result.output
    assert "audit_log          deleted 1" in result.output
    assert "runs               kept (--runs deletes them)" in result.output
    assert _count(database, "validations") == 1
    assert _count(database, "audit_log") == 0
    assert _count(database, "runs") == 1


def test_a_dry_run_deletes_nothing(database):
    result = runner.invoke(
        app, ["store", "purge", "--older-than", "30d", "--database", database, "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert "validations        would delete 1" in result.output
    assert _count(database, "validations") == 2
    assert _count(database, "audit_log") == 1


def test_runs_go_only_with_the_flag_and_json_counts_every_table(database):
    result = runner.invoke(
        app,
        ["store", "purge", "--older-than", "30d", "--database", database, "--runs", "--json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["deleted"] == {
        "validations": 1,
        "judgments": 0,
        "audit_log": 1,
        "rate_limit_counts": 0,
        "runs": 1,
    }
    assert report["dry_run"] is False
    assert _count(database, "runs") == 0


def test_an_age_far_enough_back_deletes_nothing(database):
    result = runner.invoke(
        app, ["store", "purge", "--older-than", "8w", "--database", database, "--json"]
    )
    assert result.exit_code == 0, result.output
    assert sum(json.loads(result.output)["deleted"].values()) == 0
    assert _count(database, "validations") == 2


@pytest.mark.parametrize("age", ["30", "30 days", "-3d", "0d", "d"])
def test_an_age_without_its_unit_is_refused_naming_the_option(age, database):
    result = runner.invoke(app, ["store", "purge", "--older-than", age, "--database", database])
    assert result.exit_code == 2
    assert "--older-than" in result.output
    assert _count(database, "validations") == 2


def test_ages_read_in_hours_days_and_weeks():
    assert parse_age("12h") == timedelta(hours=12)
    assert parse_age(" 30D ") == timedelta(days=30)
    assert parse_age("1.5w") == timedelta(weeks=1.5)
    with pytest.raises(BadInput):
        parse_age("30m")


def test_a_database_it_cannot_use_is_bad_input():
    result = runner.invoke(
        app, ["store", "purge", "--older-than", "30d", "--database", "nosuch://host/db"]
    )
    assert result.exit_code == 2
    assert "--database" in result.output


def test_new_key_prints_a_fernet_key():
    result = runner.invoke(app, ["store", "new-key"])
    assert result.exit_code == 0
    key = result.output.strip()
    assert Fernet(key.encode()).decrypt(Fernet(key.encode()).encrypt(b"x")) == b"x"
    assert runner.invoke(app, ["store", "new-key"]).output.strip() != key
