"""The records as the store reads them back, every column."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jurist.core import Judgment

RUNNING = "running"  # the status of a run between create_run and finish_run


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
class ValidationSummary:
    """A stored validation as a list shows it: its columns without the content, the
    layers it ran and its count of info-severity issues (None: a result that does not say)."""

    id: str
    created_at: datetime
    key_id: str | None
    valid: bool
    confidence: float
    quality_score: float
    error_count: int
    warning_count: int
    info_count: int | None
    duration_ms: float
    layers: tuple[str, ...]
    sealed: bool


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
    # The calls behind the judgment, in call order, when its run kept them (else None):
    # each {"messages": [{"role", "content"}, ...], "answer", "model", "input_tokens",
    # "output_tokens", "cost_usd", "latency_ms", "cached", "judge", "error"}.
    calls: list[dict[str, Any]] | None = None

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
