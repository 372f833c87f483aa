"""The service's records: validations and the judgments behind them, runs, and the audit
log, in the store's database.

    async with await RecordStore.open() as records:       # SQLite under JURIST_HOME
        await records.save_validation(validation, [JudgmentRecord.of(j, judge="tone")])

The columns of a judgment (status, score, model, tokens, ...) are there to be queried; the
`judgment` column holds the whole `Judgment.to_dict()` and is the record of truth. Every
database failure is a `StoreError` naming the database (never its password), chained to the
driver's error; a key that is taken already is a `DuplicateRecordError`.
"""

from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from jurist.core import to_json_safe
from jurist.store._columns import check_text, utc
from jurist.store._handle import Transactional
from jurist.store._records import AuditRecord, JudgmentRecord, ValidationRecord, new_id
from jurist.store._run_compare import RunComparison, compared_runs
from jurist.store._run_queries import (
    ItemSort,
    RunSort,
    counted_statuses,
    dataset_runs,
    items_judgments,
    paged_items,
    paged_runs,
    run_judges,
)
from jurist.store._stored import (
    RUNNING,
    StoredAudit,
    StoredJudgment,
    StoredRun,
    StoredValidation,
    ValidationSummary,
)

# `judgments` is save_validation's parameter.
from jurist.store._tables import audit_log, runs, validations
from jurist.store._tables import judgments as judgments_table


class RecordStore(Transactional):
    """The service's records. `RecordStore(engine)` uses a migrated engine it does not own;
    `await RecordStore.open(url)` makes, migrates and owns one."""

    async def ping(self) -> None:
        """Return when the database answers; raise `StoreError` with the cause when not."""
        async with self._reading("reach the store") as connection:
            await connection.execute(sa.text("SELECT 1"))

    async def save_validation(
        self, record: ValidationRecord, judgments: Sequence[JudgmentRecord] = ()
    ) -> None:
        """Store a validation and its judgments, all or nothing. A judgment without a
        validation_id gets the validation's; one naming another validation is an error."""
        for item in judgments:
            if item.validation_id not in (None, record.id):
                raise ValueError(
                    f"judgment {item.id} belongs to validation {item.validation_id}, "
                    f"not {record.id}"
                )
        now = datetime.now(UTC)
        created_at = record.created_at or now
        rows = [_judgment_row(item, now, record.id) for item in judgments]
        saved = (_validation_row(record, created_at), rows)
        await self._grouped(_insert_validations, saved, f"save validation {record.id}")

    async def get_validation(self, id: str) -> StoredValidation | None:
        """The validation stored under `id`, or None."""
        async with self._reading(f"read validation {id}") as connection:
            row = (
                (await connection.execute(sa.select(validations).where(validations.c.id == id)))
                .mappings()
                .first()
            )
            if row is None:
                return None
            ids = await connection.scalars(
                sa.select(judgments_table.c.id)
                .where(judgments_table.c.validation_id == id)
                .order_by(judgments_table.c.created_at, judgments_table.c.id)
            )
            judgment_ids = tuple(ids)
        values = dict(row)
        values["created_at"] = utc(values["created_at"])
        return StoredValidation(**values, judgment_ids=judgment_ids)

    async def list_validations(
        self,
        *,
        key_id: str | None = None,
        valid: bool | None = None,
        severity: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> tuple[int, list[ValidationSummary]]:
        """How many stored validations match, and the `limit` of them after `offset`,
        newest first, without their content. Given, `key_id` keeps the validations that
        key asked for; `valid` those with that verdict; `severity` (error, warning, info)
        those with at least one issue of it; `since` and `until` those made in [since,
        until)."""
        if limit < 1 or offset < 0:
            raise ValueError(f"limit must be at least 1 and offset 0 or more: {limit}, {offset}")
        conditions: list[sa.ColumnElement[bool]] = []
        if key_id is not None:
            conditions.append(validations.c.key_id == key_id)
        if valid is not None:
            conditions.append(validations.c.valid == valid)
        if severity is not None:
            conditions.append(_has_severity(severity))
        if since is not None:
            conditions.append(validations.c.created_at >= utc(since))
        if until is not None:
            conditions.append(validations.c.created_at < utc(until))
        counted = sa.select(sa.func.count()).select_from(validations).where(*conditions)
        listed = (
            sa.select(
                *(validations.c[name] for name in _SUMMARY_COLUMNS),
                validations.c.result[("metadata", "info_count")].label("info_count"),
                validations.c.result[("metadata", "validation_types_run")].label("layers"),
                validations.c.sealed.is_not(None).label("sealed"),
            )
            .where(*conditions)
            .order_by(validations.c.created_at.desc(), validations.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        async with self._reading("list validations") as connection:
            total = int((await connection.execute(counted)).scalar_one())
            rows = (await connection.execute(listed)).mappings().all()
        return total, [_validation_summary(row) for row in rows]

    async def save_judgment(self, record: JudgmentRecord) -> None:
        """Store one judgment."""
        await self.save_judgments([record])

    async def save_judgments(self, records: Sequence[JudgmentRecord]) -> None:
        """Store judgments, all or nothing."""
        if not records:
            return
        now = datetime.now(UTC)
        rows = [_judgment_row(record, now) for record in records]
        action = f"save judgment {records[0].id}" if len(records) == 1 else "save judgments"
        await self._grouped(_insert_judgments, rows, action)

    async def get_judgment(self, id: str) -> StoredJudgment | None:
        """The judgment stored under `id`, or None."""
        async with self._reading(f"read judgment {id}") as connection:
            result = await connection.execute(
                sa.select(judgments_table).where(judgments_table.c.id == id)
            )
            row = result.mappings().first()
        if row is None:
            return None
        values = dict(row)
        values["created_at"] = utc(values["created_at"])
        return StoredJudgment(**values)

    async def write_audit(self, record: AuditRecord) -> None:
        """Append an audit entry. Its id is the table's next; `audit_entries` reads it
        back (asking the database for ids as entries are written costs a third of the
        entries' write)."""
        values = {
            "at": utc(record.at or datetime.now(UTC)),
            "key_id": record.key_id,
            "client": record.client,
            "method": record.method,
            "path": record.path,
            "status_code": record.status_code,
            "request_sha256": record.request_sha256,
            "verdict": record.verdict,
            "latency_ms": record.latency_ms,
            "detail": record.detail,
        }
        await self._grouped(_insert_audit, values, "write the audit log")

    async def audit_entries(self, limit: int = 100) -> list[StoredAudit]:
        """The newest `limit` audit entries, newest first."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        statement = (
            sa.select(audit_log).order_by(audit_log.c.at.desc(), audit_log.c.id.desc()).limit(limit)
        )
        async with self._reading("read the audit log") as connection:
            rows = (await connection.execute(statement)).mappings().all()
        return [StoredAudit(**{**row, "at": utc(row["at"])}) for row in rows]

    async def create_run(
        self,
        kind: str,
        *,
        name: str | None = None,
        spec: Mapping[str, Any] | None = None,
        id: str | None = None,
        key_id: str | None = None,
    ) -> str:
        """Start a run (status `running`); its id. A name names one run only; `key_id` is
        the API key that started it (None: the operator)."""
        key = id or new_id()
        check_text("run", runs, "id", key, required=True)
        check_text("run", runs, "kind", kind, required=True)
        check_text("run", runs, "name", name)
        check_text("run", runs, "key_id", key_id)
        now = datetime.now(UTC)
        values = {
            "id": key,
            "name": name,
            "kind": kind,
            "status": RUNNING,
            "spec": None if spec is None else to_json_safe(spec, "spec"),
            "created_at": now,
            "updated_at": now,
            "key_id": key_id,
        }
        async with self._writing(f"create run {name or key}") as connection:
            await connection.execute(sa.insert(runs).values(values))
        return key

    async def finish_run(
        self,
        id: str,
        status: str,
        summary: Mapping[str, Any] | None = None,
    ) -> None:
        """Set a run's final status, and its summary when one is given. A run that does not
        exist is a `LookupError`."""
        check_text("run", runs, "status", status, required=True)
        values: dict[str, Any] = {"status": status, "updated_at": datetime.now(UTC)}
        if summary is not None:
            values["summary"] = to_json_safe(summary, "summary")
        async with self._writing(f"finish run {id}") as connection:
            result = await connection.execute(sa.update(runs).where(runs.c.id == id).values(values))
            found = result.rowcount
        if found == 0:
            raise LookupError(f"no run with id {id!r}")

    async def get_run(self, id_or_name: str) -> StoredRun | None:
        """The run with this id, else the run with this name, else None."""
        statement = (
            sa.select(runs)
            .where(sa.or_(runs.c.id == id_or_name, runs.c.name == id_or_name))
            # An id beats a name that happens to equal it.
            .order_by(sa.case((runs.c.id == id_or_name, 0), else_=1))
            .limit(1)
        )
        async with self._reading(f"read run {id_or_name}") as connection:
            row = (await connection.execute(statement)).mappings().first()
        return None if row is None else _stored_run(row)

    async def list_runs(self, limit: int = 100, kind: str | None = None) -> list[StoredRun]:
        """The newest `limit` runs (of one `kind`, when given), newest first."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        statement = sa.select(runs).order_by(runs.c.created_at.desc(), runs.c.id.desc())
        if kind is not None:
            statement = statement.where(runs.c.kind == kind)
        async with self._reading("list runs") as connection:
            rows = (await connection.execute(statement.limit(limit))).mappings().all()
        return [_stored_run(row) for row in rows]

    async def judged_items(self, run_id: str, judge: str) -> set[str]:
        """The ids of the items `judge` has a stored judgment for in run `run_id`: what a
        resumed run skips."""
        statement = sa.select(judgments_table.c.item_id).where(
            judgments_table.c.run_id == run_id,
            judgments_table.c.judge == judge,
            judgments_table.c.item_id.is_not(None),
        )
        async with self._reading(f"read the items of run {run_id}") as connection:
            return {str(item) for item in await connection.scalars(statement)}

    async def run_judgments(self, run_id: str) -> list[StoredJudgment]:
        """Every judgment stored for run `run_id`, oldest first."""
        statement = (
            sa.select(judgments_table)
            .where(judgments_table.c.run_id == run_id)
            .order_by(judgments_table.c.created_at, judgments_table.c.id)
        )
        async with self._reading(f"read the judgments of run {run_id}") as connection:
            rows = (await connection.execute(statement)).mappings().all()
        return [StoredJudgment(**{**row, "created_at": utc(row["created_at"])}) for row in rows]

    async def page_runs(
        self,
        *,
        key_id: str | None = None,
        kind: str | None = None,
        status: str | None = None,
        search: str | None = None,
        summary_key: str | None = None,
        summary_holds: bool = True,
        sort: RunSort = "started",
        descending: bool = True,
        limit: int = 50,
        offset: int = 0,
    ) -> tuple[int, list[StoredRun]]:
        """How many runs match, and the `limit` of them after `offset` in the order `sort`
        (started, name, cost, duration). Given, `key_id` keeps the runs that key made;
        `search` is sought, ignoring case, in the name, the id and the dataset's path;
        `summary_key` keeps the runs whose summary holds that key (`summary_holds=False`:
        those whose summary lacks it)."""
        _check_page(limit, offset)
        async with self._reading("list runs") as connection:
            return await paged_runs(
                connection,
                key_id=key_id,
                kind=kind,
                status=status,
                search=search,
                summary_key=summary_key,
                summary_holds=summary_holds,
                sort=sort,
                descending=descending,
                limit=limit,
                offset=offset,
            )

    async def status_counts(self, run_id: str, judge: str | None) -> dict[str, int]:
        """How many items of run `run_id` `judge` judged with each status (None: every
        judgment of an item, whoever stored it)."""
        async with self._reading(f"count the items of run {run_id}") as connection:
            return await counted_statuses(connection, run_id, judge)

    async def run_items(
        self,
        run_id: str,
        *,
        judge: str | None,
        status: str | None = None,
        search: str | None = None,
        among: Collection[str] | None = None,
        sort: ItemSort = "item",
        descending: bool = False,
        limit: int = 50,
        offset: int = 0,
    ) -> tuple[int, list[str]]:
        """How many items of run `run_id` match, and the ids of `limit` of them after
        `offset`: the items `judge` judged (with `status`), whose id or reasoning holds
        `search`, or that are `among` the ids found by their inputs."""
        _check_page(limit, offset)
        async with self._reading(f"read the items of run {run_id}") as connection:
            return await paged_items(
                connection,
                run_id,
                judge=judge,
                status=status,
                search=search,
                among=among,
                sort=sort,
                descending=descending,
                limit=limit,
                offset=offset,
            )

    async def judgments_of_items(
        self, run_id: str, item_ids: Collection[str]
    ) -> list[StoredJudgment]:
        """Every judgment of run `run_id` stored for the items `item_ids`, oldest first."""
        async with self._reading(f"read the judgments of run {run_id}") as connection:
            return await items_judgments(connection, run_id, item_ids)

    async def judge_names(self, run_id: str) -> list[str]:
        """The names of the judges that stored judgments in run `run_id`, sorted."""
        async with self._reading(f"read the judges of run {run_id}") as connection:
            return await run_judges(connection, run_id)

    async def dataset_runs(
        self, sha256: str, *, key_id: str | None = None, limit: int = 50
    ) -> list[StoredRun]:
        """The newest `limit` runs of the dataset with this sha256 (of `key_id`, given)."""
        _check_page(limit, 0)
        async with self._reading("list the runs of a dataset") as connection:
            return await dataset_runs(connection, sha256, key_id=key_id, limit=limit)

    async def item_judgments(self, run_id: str, item_id: str) -> list[StoredJudgment]:
        """Every judgment stored for item `item_id` of run `run_id` (the run's verdict, a
        jury's votes, any other judge's), oldest first."""
        statement = (
            sa.select(judgments_table)
            .where(judgments_table.c.run_id == run_id, judgments_table.c.item_id == item_id)
            .order_by(judgments_table.c.created_at, judgments_table.c.id)
        )
        async with self._reading(f"read item {item_id} of run {run_id}") as connection:
            rows = (await connection.execute(statement)).mappings().all()
        return [StoredJudgment(**{**row, "created_at": utc(row["created_at"])}) for row in rows]

    async def compare_runs(
        self,
        a: tuple[str, str],
        b: tuple[str, str],
        *,
        only: str = "all",
        limit: int = 50,
        offset: int = 0,
    ) -> RunComparison:
        """Runs `a` and `b`, each (run id, its verdict judge), item by item: one page of the
        items (`only`: all, changed, or one change kind: status, score, added, removed,
        same), with the count of each change kind over every item, computed in the
        database."""
        if limit < 1 or offset < 0:
            raise ValueError(f"limit must be at least 1 and offset 0 or more: {limit}, {offset}")
        async with self._reading(f"compare runs {a[0]} and {b[0]}") as connection:
            return await compared_runs(connection, a, b, only=only, limit=limit, offset=offset)


# The kinds of write the group commit batches (see `GroupCommit`): each takes the rows of
# many callers at once, one statement for each table, on the writer's (synchronous)
# connection. The statements are made once: each execution then finds its compiled form by
# the statement's memoized cache key, instead of building the statement and its key again
# for every batch.

_INSERT_VALIDATIONS = sa.insert(validations)
_INSERT_JUDGMENTS = sa.insert(judgments_table)
_INSERT_AUDIT = sa.insert(audit_log)


def _insert_validations(
    connection: sa.Connection, saved: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]]
) -> list[None]:
    connection.execute(_INSERT_VALIDATIONS, [validation for validation, _ in saved])
    rows = [row for _, judgments in saved for row in judgments]
    if rows:
        connection.execute(_INSERT_JUDGMENTS, rows)
    return [None] * len(saved)


def _insert_judgments(
    connection: sa.Connection, saved: Sequence[list[dict[str, Any]]]
) -> list[None]:
    connection.execute(_INSERT_JUDGMENTS, [row for rows in saved for row in rows])
    return [None] * len(saved)


def _insert_audit(connection: sa.Connection, entries: Sequence[dict[str, Any]]) -> list[None]:
    connection.execute(_INSERT_AUDIT, list(entries))
    return [None] * len(entries)


def _validation_row(record: ValidationRecord, created_at: datetime) -> dict[str, Any]:
    return {
        "id": record.id,
        "created_at": utc(created_at),
        "key_id": record.key_id,
        "request_sha256": record.request_sha256,
        "valid": record.valid,
        "confidence": record.confidence,
        "quality_score": record.quality_score,
        "error_count": record.error_count,
        "warning_count": record.warning_count,
        "duration_ms": record.duration_ms,
        "request": record.request,
        "result": record.result,
        "sealed": record.sealed,
    }


def _judgment_row(
    record: JudgmentRecord, now: datetime, validation_id: str | None = None
) -> dict[str, Any]:
    return {
        "id": record.id,
        "created_at": utc(record.created_at or now),
        "validation_id": record.validation_id or validation_id,
        "run_id": record.run_id,
        "item_id": record.item_id,
        "judge": record.judge,
        "layer": record.layer,
        "status": record.status,
        "score": record.score,
        "confidence": record.confidence,
        "prompt_sha256": record.prompt_sha256,
        "model": record.model,
        "parameters": record.parameters,
        "input_tokens": record.input_tokens,
        "output_tokens": record.output_tokens,
        "cost_usd": record.cost_usd,
        "latency_ms": record.latency_ms,
        "judgment": record.judgment,
        "key_id": record.key_id,
        "sealed": record.sealed,
        "calls": record.calls,
    }


_SUMMARY_COLUMNS = (
    "id",
    "created_at",
    "key_id",
    "valid",
    "confidence",
    "quality_score",
    "error_count",
    "warning_count",
    "duration_ms",
)
SEVERITIES = ("error", "warning", "info")


def _has_severity(severity: str) -> sa.ColumnElement[bool]:
    """Validations with an issue of `severity`. Errors and warnings are counted in columns;
    info issues only in the result's metadata, read by a JSON path both SQLite and
    PostgreSQL index."""
    if severity == "error":
        return validations.c.error_count > 0
    if severity == "warning":
        return validations.c.warning_count > 0
    if severity == "info":
        info: sa.ColumnElement[int] = validations.c.result[("metadata", "info_count")].as_integer()
        return info > 0
    raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, got {severity!r}")


def _validation_summary(row: sa.RowMapping) -> ValidationSummary:
    values = {name: row[name] for name in _SUMMARY_COLUMNS}
    values["created_at"] = utc(values["created_at"])
    info = row["info_count"]
    layers = row["layers"]
    return ValidationSummary(
        **values,
        info_count=info if isinstance(info, int) and not isinstance(info, bool) else None,
        layers=tuple(str(layer) for layer in layers) if isinstance(layers, list) else (),
        sealed=bool(row["sealed"]),
    )


def _stored_run(row: sa.RowMapping) -> StoredRun:
    values = dict(row)
    for name in ("created_at", "updated_at"):
        values[name] = utc(values[name])
    return StoredRun(**values)


def _check_page(limit: int, offset: int) -> None:
    if limit < 1 or offset < 0:
        raise ValueError(f"limit must be at least 1 and offset 0 or more: {limit}, {offset}")
