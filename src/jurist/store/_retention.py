"""Retention: the service's records older than a cutoff deleted, in batches.

    report = await purge_records(store, older_than=datetime.now(UTC) - timedelta(days=30))
    report.deleted        # {"validations": 12, "judgments": 40, "audit_log": 95, ...}

What the service made is purged: validations with their judgments, the judgments of
POST /judge (no validation, no run), the audit log and the rate-limit counts. Runs and their
judgments are the user's own results (`jurist eval`, calibrations): they go only when asked
(`runs=True`), by when they were last updated, and never while one is still running.
"""

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.store._errors import StoreError
from jurist.store._handle import EngineHandle, Transactional
from jurist.store._stored import RUNNING
from jurist.store._tables import audit_log, judgments, rate_limit_counts, validations
from jurist.store._tables import runs as runs_table

DEFAULT_BATCH = 500
EVERY_S = 3600.0  # how often the service applies its retention

log = logging.getLogger("jurist.store.retention")

# In the order they are purged, which is the order a report lists them in.
TABLES = ("validations", "judgments", "audit_log", "rate_limit_counts", "runs")


@dataclass
class PurgeReport:
    """Rows deleted per table (or that would be, on a dry run), and the write transactions
    it took."""

    cutoff: datetime
    dry_run: bool = False
    deleted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))
    batches: int = 0

    @property
    def total(self) -> int:
        return sum(self.deleted.values())


async def purge_records(
    store: EngineHandle,
    older_than: datetime,
    *,
    runs: bool = False,
    batch_size: int = DEFAULT_BATCH,
    dry_run: bool = False,
) -> PurgeReport:
    """Delete the records made before `older_than` (timezone-aware) from `store`'s database,
    `batch_size` rows of a table per transaction, so that the service keeps writing in
    between and no transaction grows with the backlog. `dry_run` counts instead."""
    if older_than.tzinfo is None or older_than.utcoffset() is None:
        raise ValueError(f"older_than must be timezone-aware (UTC, say), got {older_than}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    purger = _Purger(store.engine)
    cutoff = older_than.astimezone(UTC)
    report = PurgeReport(cutoff=cutoff, dry_run=dry_run)
    if dry_run:
        await purger.count(report, runs=runs)
    else:
        await purger.purge(report, runs=runs, batch_size=batch_size)
    return report


async def keep_for(
    store: EngineHandle,
    age: timedelta,
    *,
    every_s: float = EVERY_S,
    on_pass: Callable[[PurgeReport], None] | None = None,
) -> None:
    """Purge the records older than `age` now, then every `every_s` seconds, until
    cancelled. A pass that fails is logged, and the next one tries again."""
    while True:
        try:
            report = await purge_records(store, datetime.now(UTC) - age)
        except StoreError as exc:
            log.warning("the retention purge failed: %s", exc)
        except Exception:  # retention must outlive one bad pass: logged, and retried
            log.exception("the retention purge failed")
        else:
            if report.total:
                log.info(
                    "retention purge",
                    extra={"cutoff": report.cutoff.isoformat(), "deleted": report.deleted},
                )
            if on_pass is not None:
                on_pass(report)
        await asyncio.sleep(every_s)


class _Purger(Transactional):
    """Borrows the store's engine; its writes queue behind none of the store's own, but each
    is one short batch."""

    async def purge(self, report: PurgeReport, *, runs: bool, batch_size: int) -> None:
        cutoff = report.cutoff
        while ids := await self._oldest(_old_validations(cutoff), batch_size):
            async with self._writing("purge validations") as connection:
                report.deleted["judgments"] += await _delete(
                    connection, judgments, judgments.c.validation_id.in_(ids)
                )
                report.deleted["validations"] += await _delete(
                    connection, validations, validations.c.id.in_(ids)
                )
            report.batches += 1
        while ids := await self._oldest(_old_service_judgments(cutoff), batch_size):
            async with self._writing("purge judgments") as connection:
                report.deleted["judgments"] += await _delete(
                    connection, judgments, judgments.c.id.in_(ids)
                )
            report.batches += 1
        while ids := await self._oldest(_old_audit(cutoff), batch_size):
            async with self._writing("purge the audit log") as connection:
                report.deleted["audit_log"] += await _delete(
                    connection, audit_log, audit_log.c.id.in_(ids)
                )
            report.batches += 1
        while keys := await self._oldest(_old_counts(cutoff), batch_size):
            in_batch = sa.tuple_(rate_limit_counts.c.bucket, rate_limit_counts.c.window_start)
            async with self._writing("purge rate-limit counts") as connection:
                report.deleted["rate_limit_counts"] += await _delete(
                    connection, rate_limit_counts, in_batch.in_(keys)
                )
            report.batches += 1
        if not runs:
            return
        while ids := await self._oldest(_old_runs(cutoff), batch_size):
            # A run may hold many judgments: they go in batches of their own, then the runs.
            of_runs = sa.select(judgments.c.id).where(judgments.c.run_id.in_(ids))
            while chosen := await self._oldest(of_runs, batch_size):
                async with self._writing("purge the judgments of runs") as connection:
                    report.deleted["judgments"] += await _delete(
                        connection, judgments, judgments.c.id.in_(chosen)
                    )
                report.batches += 1
            async with self._writing("purge runs") as connection:
                report.deleted["runs"] += await _delete(
                    connection, runs_table, runs_table.c.id.in_(ids)
                )
            report.batches += 1

    async def count(self, report: PurgeReport, *, runs: bool) -> None:
        cutoff = report.cutoff
        old_validations = _old_validations(cutoff).subquery()
        counts: dict[str, list[sa.Select[Any]]] = {
            "validations": [_count(old_validations)],
            "judgments": [
                _count(
                    sa.select(judgments.c.id)
                    .where(judgments.c.validation_id.in_(sa.select(old_validations.c[0])))
                    .subquery()
                ),
                _count(_old_service_judgments(cutoff).subquery()),
            ],
            "audit_log": [_count(_old_audit(cutoff).subquery())],
            "rate_limit_counts": [_count(_old_counts(cutoff).subquery())],
        }
        if runs:
            old_runs = _old_runs(cutoff).subquery()
            counts["runs"] = [_count(old_runs)]
            counts["judgments"].append(
                _count(
                    sa.select(judgments.c.id)
                    .where(judgments.c.run_id.in_(sa.select(old_runs.c[0])))
                    .subquery()
                )
            )
        async with self._reading("count the records to purge") as connection:
            for table, statements in counts.items():
                for statement in statements:
                    report.deleted[table] += int(await connection.scalar(statement) or 0)

    async def _oldest(self, statement: sa.Select[Any], batch_size: int) -> list[Any]:
        async with self._reading("find the records to purge") as connection:
            rows = (await connection.execute(statement.limit(batch_size))).all()
        return [row[0] if len(row) == 1 else tuple(row) for row in rows]


def _old_validations(cutoff: datetime) -> sa.Select[Any]:
    return (
        sa.select(validations.c.id)
        .where(validations.c.created_at < cutoff)
        .order_by(validations.c.created_at, validations.c.id)
    )


def _old_service_judgments(cutoff: datetime) -> sa.Select[Any]:
    # A validation's judgments go with it, and a run's with the run.
    return (
        sa.select(judgments.c.id)
        .where(
            judgments.c.created_at < cutoff,
            judgments.c.validation_id.is_(None),
            judgments.c.run_id.is_(None),
        )
        .order_by(judgments.c.created_at, judgments.c.id)
    )


def _old_audit(cutoff: datetime) -> sa.Select[Any]:
    return sa.select(audit_log.c.id).where(audit_log.c.at < cutoff).order_by(audit_log.c.id)


def _old_counts(cutoff: datetime) -> sa.Select[Any]:
    # A count's window starts at a Unix time in whole seconds.
    return (
        sa.select(rate_limit_counts.c.bucket, rate_limit_counts.c.window_start)
        .where(rate_limit_counts.c.window_start < int(cutoff.timestamp()))
        .order_by(rate_limit_counts.c.window_start, rate_limit_counts.c.bucket)
    )


def _old_runs(cutoff: datetime) -> sa.Select[Any]:
    return (
        sa.select(runs_table.c.id)
        .where(runs_table.c.updated_at < cutoff, runs_table.c.status != RUNNING)
        .order_by(runs_table.c.updated_at, runs_table.c.id)
    )


def _count(rows: sa.Subquery) -> sa.Select[Any]:
    return sa.select(sa.func.count()).select_from(rows)


async def _delete(
    connection: AsyncConnection, table: sa.Table, condition: sa.ColumnElement[bool]
) -> int:
    result = await connection.execute(sa.delete(table).where(condition))
    return int(result.rowcount)
