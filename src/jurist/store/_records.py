"""The records the service writes: a judgment, an answered validation, an audit entry, each
checked against its columns when made."""

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Self

from jurist.core import Judgment, Status, normalize
from jurist.store._columns import (
    check_count,
    check_number,
    check_text,
    check_time,
    column_length,
    set_json,
    set_json_list,
)
from jurist.store._tables import audit_log, validations
from jurist.store._tables import judgments as judgments_table

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
    # The prompts and raw answers of the calls behind the judgment, in call order, each a
    # dict (see `jurist.llm.RecordedCall.to_dict`); None when they were not kept.
    calls: list[dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        for name in ("id", "judge"):
            check_text(owner, judgments_table, name, getattr(self, name), required=True)
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
            check_text(owner, judgments_table, name, getattr(self, name))
        if self.status not in _STATUSES:
            raise ValueError(f"{owner}.status {self.status!r} is not one of {sorted(_STATUSES)}")
        for name in ("score", "confidence"):
            check_number(owner, name, getattr(self, name), high=1.0, optional=True)
        for name in ("cost_usd", "latency_ms"):
            check_number(owner, name, getattr(self, name), optional=True)
        for name in ("input_tokens", "output_tokens"):
            check_count(owner, name, getattr(self, name))
        check_time(owner, "created_at", self.created_at)
        set_json(self, "judgment")
        set_json(self, "parameters", optional=True)
        set_json_list(self, "calls")

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
        calls: Sequence[Mapping[str, Any]] | None = None,
    ) -> Self:
        """`judgment` as a record. The score is normalised to 0..1 (None for a categorical
        score, which has no numbers without a category map); tokens, cost, latency and model
        come from its usage; the prompt's sha256, the model and its parameters from its
        metadata's top level, when a model-backed judge put them there (the metadata's
        model wins over the usage's). A metadata value that does not fit its column stays
        only in the stored judgment. `calls` are the calls behind it, kept as given."""
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
            calls=None if calls is None else [dict(call) for call in calls],
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
            check_text(owner, validations, name, getattr(self, name), required=True)
        check_text(owner, validations, "key_id", self.key_id)
        check_text(owner, validations, "sealed", self.sealed)
        if not isinstance(self.valid, bool):
            raise TypeError(f"{owner}.valid must be a bool, got {type(self.valid).__name__}")
        check_number(owner, "confidence", self.confidence, high=1.0)
        check_number(owner, "quality_score", self.quality_score, low=None)
        check_number(owner, "duration_ms", self.duration_ms)
        for name in ("error_count", "warning_count"):
            check_count(owner, name, getattr(self, name))
        check_time(owner, "created_at", self.created_at)
        set_json(self, "request")
        set_json(self, "result")


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
                object.__setattr__(self, name, value[: column_length(audit_log, name)])
        check_text(owner, audit_log, "method", self.method, required=True)
        check_text(owner, audit_log, "path", self.path, required=True)
        for name in ("key_id", "client", "request_sha256", "verdict"):
            check_text(owner, audit_log, name, getattr(self, name))
        if isinstance(self.status_code, bool) or not isinstance(self.status_code, int):
            raise TypeError(f"{owner}.status_code must be an int, got {self.status_code!r}")
        check_number(owner, "latency_ms", self.latency_ms)
        check_time(owner, "at", self.at)
        set_json(self, "detail", optional=True)


def _normalised(judgment: Judgment) -> float | None:
    if judgment.score is None:
        return None
    try:
        return normalize(judgment.score)
    except ValueError:  # categorical, and no category map to give it a number
        return None


def _fitting(value: Any, column: str) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    limit = column_length(judgments_table, column)
    return value if limit is None or len(value) <= limit else None
