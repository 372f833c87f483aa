"""The service's records: validations and the judgments behind them, runs, and the audit
log, in the store's database.

    async with await RecordStore.open() as records:       # SQLite under JURIST_HOME
        await records.save_validation(validation, [JudgmentRecord.of(j, judge="tone")])

The columns of a judgment (status, score, model, tokens, ...) are there to be queried; the
`judgment` column holds the whole `Judgment.to_dict()` and is the record of truth. Every
database failure is a `StoreError` naming the database (never its password), chained to the
driver's error; a key that is taken already is a `DuplicateRecordError`.
"""

import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Self

import sqlalchemy as sa

from jurist.core import Judgment, Status, normalize, to_json_safe
from jurist.store._errors import StoreError
from jurist.store._handle import Transactional

# `judgments` is save_validation's parameter.
from jurist.store._tables import audit_log, runs, validations
from jurist.store._tables import judgments as judgments_table

RUNNING = "running"  # the status of a run between create_run and finish_run

_STATUSES = frozenset(status.value for status in Status)


def new_id() -> str:
    """A record id: uuid4 as 32 hex digits."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class JudgmentRecord:
    """One judgment as stored. `JudgmentRecord.of(judgment, judge=...)` fills the columns
    from a `Judgment`; `created_at` None is set by the store."""

    id: str
    judge: str
    status: str
    judgment: dict[str, Any]
    validation_id: str | None = None
    run_id: str | None = None
    item_id: str | None = None
    layer: str | None = None
    score: float | None = None
    confidence: float | None = None
    prompt_sha256: str | None = None
    model: str | None = None
    parameters: dict[str, Any] | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float | None = None
    created_at: datetime | None = None
    key_id: str | None = None
    sealed: str | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        for name in ("id", "judge"):
            _check_text(owner, judgments_table, name, getattr(self, name), required=True)
        for name in (
            "validation_id",
            "run_id",
            "item_id",
            "layer",
            "prompt_sha256",
            "model",
            "key_id",
            "sealed",
        ):
            _check_text(owner, judgments_table, name, getattr(self, name))
        if self.status not in _STATUSES:
            raise ValueError(f"{owner}.status {self.status!r} is not one of {sorted(_STATUSES)}")
        for name in ("score", "confidence"):
            _check_number(owner, name, getattr(self, name), high=1.0, optional=True)
        for name in ("cost_usd", "latency_ms"):
            _check_number(owner, name, getattr(self, name), optional=True)
        for name in ("input_tokens", "output_tokens"):
            _check_count(owner, name, getattr(self, name))
        _check_time(owner, "created_at", self.created_at)
        _set_json(self, "judgment")
        _set_json(self, "parameters", optional=True)

    @classmethod
    def of(
        cls,
        judgment: Judgment,
        *,
        judge: str,
        layer: str | None = None,
        validation_id: str | None = None,
        run_id: str | None = None,
        item_id: str | None = None,
        id: str | None = None,
        key_id: str | None = None,
    ) -> Self:
        """`judgment` as a record. The score is normalised to 0..1 (None for a categorical
        score, which has no numbers without a category map); tokens, cost, latency and model
        come from its usage; the prompt's sha256, the model and its parameters from its
        metadata's top level, when a model-backed judge put them there (the metadata's
        model wins over the usage's). A metadata value that does not fit its column stays
        only in the stored judgment."""
        as_dict = judgment.to_dict()
        metadata: Mapping[str, Any] = as_dict.get("metadata") or {}
        usage = judgment.usage
        model = _fitting(metadata.get("model"), "model") or (usage.model if usage else None)
        parameters = metadata.get("parameters")
        return cls(
            id=id or new_id(),
            judge=judge,
            status=judgment.status.value,
            judgment=as_dict,
            validation_id=validation_id,
            run_id=run_id,
            item_id=item_id,
            layer=layer,
            score=_normalised(judgment),
            confidence=judgment.confidence,
            prompt_sha256=_fitting(metadata.get("prompt_sha256"), "prompt_sha256"),
            model=_fitting(model, "model"),
            parameters=dict(parameters) if isinstance(parameters, Mapping) else None,
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
            cost_usd=usage.cost_usd if usage else None,
            latency_ms=usage.latency_ms if usage else None,
            key_id=key_id,
        )


@dataclass(frozen=True)
class ValidationRecord:
    """One answered validation request; `created_at` None is set by the store."""

    id: str
    request_sha256: str
    valid: bool
    confidence: float
    quality_score: float
    error_count: int
    warning_count: int
    duration_ms: float
    request: dict[str, Any]
    result: dict[str, Any]
    key_id: str | None = None
    created_at: datetime | None = None
    sealed: str | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        for name in ("id", "request_sha256"):
            _check_text(owner, validations, name, getattr(self, name), required=True)
        _check_text(owner, validations, "key_id", self.key_id)
        _check_text(owner, validations, "sealed", self.sealed)
        if not isinstance(self.valid, bool):
            raise TypeError(f"{owner}.valid must be a bool, got {type(self.valid).__name__}")
        _check_number(owner, "confidence", self.confidence, high=1.0)
        _check_number(owner, "quality_score", self.quality_score, low=None)
        _check_number(owner, "duration_ms", self.duration_ms)
        for name in ("error_count", "warning_count"):
            _check_count(owner, name, getattr(self, name))
        _check_time(owner, "created_at", self.created_at)
        _set_json(self, "request")
        _set_json(self, "result")


@dataclass(frozen=True)
class AuditRecord:
    """One request the service answered (or refused). `detail` is the caller's redacted
    summary. An audit entry must never fail for a client's oddity, so a method, path or
    client longer than its column is cut to fit rather than refused; `at` None is set by
    the store."""

    method: str
    path: str
    status_code: int
    latency_ms: float
    key_id: str | None = None
    client: str | None = None
    request_sha256: str | None = None
    verdict: str | None = None
    detail: dict[str, Any] | None = None
    at: datetime | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        for name in ("method", "path", "client"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, value[: _length(audit_log, name)])
        _check_text(owner, audit_log, "method", self.method, required=True)
        _check_text(owner, audit_log, "path", self.path, required=True)
        for name in ("key_id", "client", "request_sha256", "verdict"):
            _check_text(owner, audit_log, name, getattr(self, name))
        if isinstance(self.status_code, bool) or not isinstance(self.status_code, int):
            raise TypeError(f"{owner}.status_code must be an int, got {self.status_code!r}")
        _check_number(owner, "latency_ms", self.latency_ms)
        _check_time(owner, "at", self.at)
        _set_json(self, "detail", optional=True)


@dataclass(frozen=True)
class StoredValidation:
    """A stored validation, with the ids of its judgments (oldest first)."""

    id: str
    request_sha256: str
    valid: bool
    confidence: float
    quality_score: float
    error_count: int
    warning_count: int
    duration_ms: float
    request: dict[str, Any]
    result: dict[str, Any]
    key_id: str | None
    created_at: datetime
    judgment_ids: tuple[str, ...]
    sealed: str | None = None


@dataclass(frozen=True)
class StoredJudgment:
    """A stored judgment, every column."""

    id: str
    judge: str
    status: str
    judgment: dict[str, Any]
    validation_id: str | None
    run_id: str | None
    item_id: str | None
    layer: str | None
    score: float | None
    confidence: float | None
    prompt_sha256: str | None
    model: str | None
    parameters: dict[str, Any] | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    latency_ms: float | None
    created_at: datetime
    key_id: str | None = None
    sealed: str | None = None

    def to_judgment(self) -> Judgment:
        """The `Judgment` as the judge returned it."""
        return Judgment.from_dict(self.judgment)


@dataclass(frozen=True)
class StoredAudit:
    """A stored audit entry; `id` counts up."""

    id: int
    at: datetime
    method: str
    path: str
    status_code: int
    latency_ms: float
    key_id: str | None
    client: str | None
    request_sha256: str | None
    verdict: str | None
    detail: dict[str, Any] | None


@dataclass(frozen=True)
class StoredRun:
    """A stored run: its status is `running` until `finish_run`."""

    id: str
    kind: str
    status: str
    name: str | None
    spec: dict[str, Any] | None
    summary: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime
    key_id: str | None = None


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
        async with self._writing(f"save validation {record.id}") as connection:
            await connection.execute(
                sa.insert(validations).values(_validation_row(record, created_at))
            )
            if rows:
                await connection.execute(sa.insert(judgments_table), rows)

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
        values["created_at"] = _utc(values["created_at"])
        return StoredValidation(**values, judgment_ids=judgment_ids)

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
        async with self._writing(action) as connection:
            await connection.execute(sa.insert(judgments_table), rows)

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
        values["created_at"] = _utc(values["created_at"])
        return StoredJudgment(**values)

    async def write_audit(self, record: AuditRecord) -> int:
        """Append an audit entry; its id."""
        values = {
            "at": _utc(record.at or datetime.now(UTC)),
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
        async with self._writing("write the audit log") as connection:
            key = await connection.scalar(
                sa.insert(audit_log).values(values).returning(audit_log.c.id)
            )
        if key is None:
            raise StoreError("the audit log returned no id for a new entry")
        return int(key)

    async def audit_entries(self, limit: int = 100) -> list[StoredAudit]:
        """The newest `limit` audit entries, newest first."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        statement = (
            sa.select(audit_log).order_by(audit_log.c.at.desc(), audit_log.c.id.desc()).limit(limit)
        )
        async with self._reading("read the audit log") as connection:
            rows = (await connection.execute(statement)).mappings().all()
        return [StoredAudit(**{**row, "at": _utc(row["at"])}) for row in rows]

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
        _check_text("run", runs, "id", key, required=True)
        _check_text("run", runs, "kind", kind, required=True)
        _check_text("run", runs, "name", name)
        _check_text("run", runs, "key_id", key_id)
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
        _check_text("run", runs, "status", status, required=True)
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
        return [StoredJudgment(**{**row, "created_at": _utc(row["created_at"])}) for row in rows]


def _validation_row(record: ValidationRecord, created_at: datetime) -> dict[str, Any]:
    return {
        "id": record.id,
        "created_at": _utc(created_at),
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
        "created_at": _utc(record.created_at or now),
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
    }


def _stored_run(row: sa.RowMapping) -> StoredRun:
    values = dict(row)
    for name in ("created_at", "updated_at"):
        values[name] = _utc(values[name])
    return StoredRun(**values)


def _utc(value: datetime) -> datetime:
    # SQLite keeps no time zone: the store writes UTC there, so a naive value read is UTC.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _normalised(judgment: Judgment) -> float | None:
    if judgment.score is None:
        return None
    try:
        return normalize(judgment.score)
    except ValueError:  # categorical, and no category map to give it a number
        return None


def _length(table: sa.Table, name: str) -> int | None:
    kind = table.c[name].type
    return kind.length if isinstance(kind, sa.String) else None


def _fitting(value: Any, column: str) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    limit = _length(judgments_table, column)
    return value if limit is None or len(value) <= limit else None


def _check_text(
    owner: str, table: sa.Table, name: str, value: Any, *, required: bool = False
) -> None:
    if value is None:
        if required:
            raise ValueError(f"{owner}.{name} is required")
        return
    if not isinstance(value, str):
        raise TypeError(f"{owner}.{name} must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise ValueError(f"{owner}.{name} must not be empty")
    limit = _length(table, name)
    if limit is not None and len(value) > limit:
        raise ValueError(
            f"{owner}.{name} has {len(value)} characters; the column holds at most {limit}"
        )


def _check_number(
    owner: str,
    name: str,
    value: Any,
    *,
    low: float | None = 0.0,
    high: float | None = None,
    optional: bool = False,
) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{owner}.{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{owner}.{name} must be a finite number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
        raise ValueError(f"{owner}.{name} {value!r} lies outside {bounds}")


def _check_count(owner: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}.{name} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{owner}.{name} cannot be negative, got {value}")


def _check_time(owner: str, name: str, value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, datetime):
        raise TypeError(f"{owner}.{name} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{owner}.{name} must be timezone-aware (UTC, say), got {value}")


def _set_json(record: object, name: str, *, optional: bool = False) -> None:
    # Stored as plain JSON (tuples become lists, ...), so what is read back equals the record.
    value = getattr(record, name)
    if value is None and optional:
        return
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{type(record).__name__}.{name} must be a mapping, got {type(value).__name__}"
        )
    object.__setattr__(record, name, to_json_safe(value, f"{type(record).__name__}.{name}"))
