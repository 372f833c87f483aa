"""What the viewer shows of the service's stored validations, as the models the JSON answers
are: the list's rows, and one validation with its request, layers, issues and the judgments
behind them.

What the service stores is one of two things, and the viewer shows what is there, never
more: with JURIST_STORE_CONTENT=redacted the redacted copy of the request and the result;
with sealed content (the default) a content-free outline (verdicts, counts, each issue's
severity and type, no message, output or criterion), the content itself encrypted in the
`sealed` column, which the viewer does not open.
"""

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from jurist.store import StoredJudgment, StoredValidation, ValidationSummary
from jurist.validation import IssueType, ValidationType

Validity = Literal["all", "valid", "invalid"]
SeverityFilter = Literal["error", "warning", "info"]
Content = Literal["redacted", "outline"]

# The layer each kind of finding comes from; a layer error names its layer in its location.
_LAYER_OF: dict[str, str] = {
    IssueType.SCHEMA_VIOLATION: ValidationType.SCHEMA,
    IssueType.CONTRADICTED_FACT: ValidationType.FACTS,
    IssueType.UNVERIFIED_FACT: ValidationType.FACTS,
    IssueType.CONTRADICTED_CLAIM: ValidationType.HALLUCINATION,
    IssueType.UNSUPPORTED_CLAIM: ValidationType.HALLUCINATION,
    IssueType.CRITERIA_NOT_MET: ValidationType.CRITERIA,
    IssueType.LOW_COMPLETENESS: ValidationType.QUALITY,
    IssueType.LOW_CLARITY: ValidationType.QUALITY,
    IssueType.LOW_CONSISTENCY: ValidationType.QUALITY,
    IssueType.LOW_QUALITY: ValidationType.QUALITY,
}
_LAYER_PLACE = "layer:"


class ValidationFilters(BaseModel):
    """The list's filters as they were applied."""

    validity: Validity = Field(description="all, valid or invalid")
    severity: SeverityFilter | None = Field(
        description="only validations with at least one issue of this severity"
    )
    since: datetime | None = Field(description="made at or after this time (UTC)")
    until: datetime | None = Field(description="made before this time (UTC)")
    key: str | None = Field(description="only the validations this API key asked for")


class ValidationRow(BaseModel):
    """One stored validation in the list."""

    id: str
    created_at: datetime
    valid: bool
    confidence: float
    quality_score: float
    error_count: int
    warning_count: int
    info_count: int | None = Field(description="None: the stored result does not say")
    duration_ms: float
    layers: list[str] = Field(description="the layers that ran, in the pipeline's order")
    sealed: bool = Field(description="whether the raw content is also kept, encrypted")
    key_id: str | None = Field(
        description="the API key that asked (shown to a viewer of every key's records)"
    )


class ValidationList(BaseModel):
    """A page of the stored validations the viewer may read, newest first."""

    total: int = Field(description="validations matching the filters, on every page")
    page: int
    per_page: int
    pages: int
    filters: ValidationFilters
    shows_keys: bool = Field(description="whether the viewer reads every key's validations")
    validations: list[ValidationRow]


class CheckView(BaseModel):
    name: str
    passed: bool
    message: str


class JudgmentView(BaseModel):
    """The judgment behind a layer. `outline`: only what the service itself decided is
    stored in the clear (status, score, counts, usage), so no reasoning nor checks."""

    id: str
    judge: str
    layer: str | None
    status: str
    score: float | None = Field(description="normalised to 0..1")
    confidence: float | None
    reasoning: str | None
    checks: list[CheckView]
    check_count: int
    cause: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    latency_ms: float | None
    outline: bool


class LayerView(BaseModel):
    """One layer as the result summarised it, with its judgment when it was stored."""

    name: str
    status: str = Field(description="ok, or error when it could not complete")
    verdict: str = Field(description="pass, warn, fail or error under the severity policy")
    cause: str | None
    judge_status: str | None
    confidence: float | None
    issues: int
    duration_ms: float | None
    usage: dict[str, Any]
    judgment_id: str | None
    judgment: JudgmentView | None


class IssueView(BaseModel):
    """One issue; message, location and suggestion are None in an outline."""

    severity: str
    type: str
    layer: str | None
    message: str | None
    location: str | None = Field(description="where in the output: a JSON path, a criterion")
    suggestion: str | None


class ValidationDetail(BaseModel):
    """One stored validation: what was asked, each layer with its judgment, every issue."""

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
    request_sha256: str
    content: Content = Field(
        description="what the store holds in the clear: the redacted copy, or an outline"
    )
    sealed: bool = Field(description="the raw request and result are kept encrypted")
    request: dict[str, Any] = Field(description="the request as stored")
    layers: list[LayerView]
    issues: list[IssueView]
    passed_criteria: list[str]
    failed_criteria: list[str]
    passed_count: int
    failed_count: int


def validation_row(summary: ValidationSummary, shows_keys: bool) -> ValidationRow:
    return ValidationRow(
        id=summary.id,
        created_at=summary.created_at,
        valid=summary.valid,
        confidence=summary.confidence,
        quality_score=summary.quality_score,
        error_count=summary.error_count,
        warning_count=summary.warning_count,
        info_count=summary.info_count,
        duration_ms=summary.duration_ms,
        layers=list(summary.layers),
        sealed=summary.sealed,
        key_id=summary.key_id if shows_keys else None,
    )


def validation_detail(
    stored: StoredValidation, judgments: Mapping[str, StoredJudgment], shows_keys: bool
) -> ValidationDetail:
    """`stored` as the page shows it; `judgments` by id, those the viewer may read."""
    result = stored.result
    metadata = _mapping(result.get("metadata"))
    outline = result.get("outline") is True or stored.request.get("outline") is True
    passed, failed = result.get("passed_criteria"), result.get("failed_criteria")
    return ValidationDetail(
        id=stored.id,
        created_at=stored.created_at,
        key_id=stored.key_id if shows_keys else None,
        valid=stored.valid,
        confidence=stored.confidence,
        quality_score=stored.quality_score,
        error_count=stored.error_count,
        warning_count=stored.warning_count,
        info_count=_count(metadata.get("info_count")),
        duration_ms=stored.duration_ms,
        request_sha256=stored.request_sha256,
        content="outline" if outline else "redacted",
        sealed=stored.sealed is not None,
        request=stored.request,
        layers=_layers(metadata, judgments),
        issues=[_issue(item) for item in _list(result.get("issues"))],
        passed_criteria=_texts(passed),
        failed_criteria=_texts(failed),
        passed_count=_count(passed) or len(_texts(passed)),
        failed_count=_count(failed) or len(_texts(failed)),
    )


def _layers(
    metadata: Mapping[str, Any], judgments: Mapping[str, StoredJudgment]
) -> list[LayerView]:
    layers = _mapping(metadata.get("layers"))
    order = [layer.value for layer in ValidationType]
    shown = []
    for name in sorted(layers, key=lambda n: order.index(n) if n in order else len(order)):
        summary = _mapping(layers[name])
        judgment_id = _text(summary.get("judgment_id"))
        found = judgments.get(judgment_id) if judgment_id else None
        shown.append(
            LayerView(
                name=str(name),
                status=_text(summary.get("status")) or "unknown",
                verdict=_text(summary.get("verdict")) or "unknown",
                cause=_text(summary.get("cause")),
                judge_status=_text(summary.get("judge_status")),
                confidence=_number(summary.get("confidence")),
                issues=_count(summary.get("issues")) or 0,
                duration_ms=_number(summary.get("duration_ms")),
                usage=dict(_mapping(summary.get("usage"))),
                judgment_id=judgment_id,
                judgment=None if found is None else judgment_view(found),
            )
        )
    return shown


def judgment_view(stored: StoredJudgment) -> JudgmentView:
    body = stored.judgment
    outline = body.get("outline") is True
    checks = [] if outline else [_check(item) for item in _list(body.get("checks"))]
    metadata = _mapping(body.get("metadata"))
    return JudgmentView(
        id=stored.id,
        judge=stored.judge,
        layer=stored.layer,
        status=stored.status,
        score=stored.score,
        confidence=stored.confidence,
        reasoning=None if outline else _text(body.get("reasoning")),
        checks=checks,
        check_count=(_count(body.get("checks")) or 0) if outline else len(checks),
        cause=_text(body.get("cause") if outline else metadata.get("cause")),
        model=stored.model,
        input_tokens=stored.input_tokens,
        output_tokens=stored.output_tokens,
        cost_usd=stored.cost_usd,
        latency_ms=stored.latency_ms,
        outline=outline,
    )


def _issue(item: Any) -> IssueView:
    issue = _mapping(item)
    kind = _text(issue.get("type")) or "unknown"
    location = _text(issue.get("location"))
    layer = _LAYER_OF.get(kind)
    if layer is None and location is not None and location.startswith(_LAYER_PLACE):
        layer = location.removeprefix(_LAYER_PLACE)
    return IssueView(
        severity=_text(issue.get("severity")) or "unknown",
        type=kind,
        layer=None if layer is None else str(layer),
        message=_text(issue.get("message")),
        location=location,
        suggestion=_text(issue.get("suggestion")),
    )


def _check(item: Any) -> CheckView:
    check = _mapping(item)
    return CheckView(
        name=_text(check.get("name")) or "",
        passed=check.get("passed") is True,
        message=_text(check.get("message")) or "",
    )


# What is stored is JSON the service wrote, but read as it is: a field of an unexpected
# type is shown as absent rather than failing the page.


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _texts(value: Any) -> list[str]:
    return [str(item) for item in _list(value)]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
