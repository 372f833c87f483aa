"""The five layers: each runs one judge and reads its judgment as the service's issues.

A layer's confidence is the API's: the share of what it checked that held (schema
1 or 0, facts verified / claims, criteria met / criteria, 1 - unsupported / claims, the
quality score), not the judge's certainty, which stays in the judgment.

A layer never passes silently when it could not do its work: a judge that errs or abstains,
a claim or criterion that could not be checked, or an exception, becomes an error issue of
type `layer_error` with the cause.
"""

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from jurist.core import Cause, Context, Judge, Judgment, NumericScore, Status, normalize
from jurist.judges import (
    ClaimsReport,
    CriteriaReport,
    CriterionRow,
    FactsReport,
    ReportedIssue,
    RubricResult,
)
from jurist.rubrics import Rubric
from jurist.validation._models import IssueType, Severity, ValidationIssue, ValidationType


@dataclass(frozen=True)
class LayerReading:
    """What a layer makes of its judge's judgment."""

    issues: list[ValidationIssue]
    confidence: float
    passed_criteria: list[str] = field(default_factory=list)
    failed_criteria: list[str] = field(default_factory=list)
    quality_score: float | None = None


@dataclass(frozen=True)
class LayerOutcome:
    layer: ValidationType
    reading: LayerReading
    judgment: Judgment | None
    duration_ms: float
    cause: Cause | None = None  # why the layer broke, when it did

    @property
    def broke(self) -> bool:
        return self.cause is not None


Reader = Callable[[Judgment], LayerReading]


async def run_layer(
    layer: ValidationType, judge: Judge, ctx: Context, read: Reader
) -> LayerOutcome:
    started = time.perf_counter()
    try:
        judgment = await judge.judge(ctx)
    except Exception as exc:  # noqa: BLE001 - a judge's bug must not take the other layers down
        return _broken(layer, f"{type(exc).__name__}: {exc}", Cause.EXCEPTION, None, started)
    if judgment.status is Status.ERROR:
        cause = judgment.cause or Cause.ERROR
        return _broken(layer, judgment.reasoning, cause, judgment, started)
    if judgment.status is Status.ABSTAIN:
        return _broken(layer, judgment.reasoning, Cause.ABSTAINED, judgment, started)
    try:
        reading = read(judgment)
    except (KeyError, TypeError, ValueError) as exc:
        message = f"unreadable judgment: {exc}"
        return _broken(layer, message, Cause.UNREADABLE, judgment, started)
    return LayerOutcome(layer, reading, judgment, _since(started))


def layer_error(layer: ValidationType, message: str, cause: Cause) -> ValidationIssue:
    return ValidationIssue(
        severity=Severity.ERROR,
        type=IssueType.LAYER_ERROR,
        message=f"The {layer.value} layer could not complete ({cause}): {message}",
        location=f"layer:{layer.value}",
        suggestion="The output was not validated by this layer; retry, and if it fails "
        "again check the model and the knowledge base",
    )


def _broken(
    layer: ValidationType, message: str, cause: Cause, judgment: Judgment | None, started: float
) -> LayerOutcome:
    reading = LayerReading([layer_error(layer, message, cause)], confidence=0.0)
    return LayerOutcome(layer, reading, judgment, _since(started), cause)


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


# -- schema ------------------------------------------------------------------------------

_REQUIRED = re.compile(r"^(['\"])(?P<name>.+)\1 is a required property$")


def read_schema(judgment: Judgment) -> LayerReading:
    if judgment.passed:
        return LayerReading([], confidence=1.0)
    issues = [
        ValidationIssue(
            severity=Severity.ERROR,
            type=IssueType.SCHEMA_VIOLATION,
            message=f"Schema validation failed: {check.message}",
            location=check.name,
            suggestion=_schema_suggestion(check.name, check.message),
        )
        for check in judgment.checks
        if not check.passed
    ]
    return LayerReading(issues, confidence=0.0)


def _schema_suggestion(location: str, message: str) -> str:
    required = _REQUIRED.match(message)
    if required:
        return f"Add the {required['name']!r} field at {location}"
    return f"Make the value at {location} match the expected schema"


# -- facts and hallucination -------------------------------------------------------------


def read_facts(judgment: Judgment) -> LayerReading:
    return _claims_reading(ValidationType.FACTS, judgment, FactsReport.of(judgment))


def read_hallucination(judgment: Judgment) -> LayerReading:
    return _claims_reading(ValidationType.HALLUCINATION, judgment, ClaimsReport.of(judgment))


def _claims_reading(
    layer: ValidationType, judgment: Judgment, report: ClaimsReport | FactsReport | None
) -> LayerReading:
    if report is None:
        raise ValueError(f"the {layer.value} judgment holds no report of its claims")
    issues = [_issue(found) for found in report.issues or ()]
    if report.errored_claims:
        causes = {row.cause for row in report.claims if row.cause is not None}
        cause = causes.pop() if len(causes) == 1 else Cause.MIXED
        issues.append(
            layer_error(
                layer,
                f"{report.errored_claims} of {report.total_claims} claims could not be checked",
                cause,
            )
        )
    confidence = judgment.confidence if judgment.confidence is not None else 0.0
    return LayerReading(issues, confidence=confidence)


def _issue(found: ReportedIssue) -> ValidationIssue:
    return ValidationIssue(
        severity=Severity(found.severity),
        type=found.type,
        message=found.message,
        location=found.location,
        suggestion=found.suggestion,
    )


# -- criteria ----------------------------------------------------------------------------


def read_criteria(judgment: Judgment) -> LayerReading:
    report = CriteriaReport.of(judgment)
    if report is None:
        raise ValueError("the criteria judgment holds no report of its criteria")
    passed = list(report.passed_criteria)
    failed = list(report.failed_criteria)
    errored = list(report.errored_criteria)
    rows = {row.criterion: row for row in report.criteria}
    issues = [_criterion_issue(c, rows.get(c)) for c in failed]
    issues += [_unjudged_issue(c, rows.get(c)) for c in errored]
    total = len(passed) + len(failed) + len(errored)
    return LayerReading(
        issues,
        confidence=len(passed) / total if total else 1.0,
        passed_criteria=passed,
        failed_criteria=failed,
    )


def _unjudged_issue(criterion: str, row: CriterionRow | None) -> ValidationIssue:
    reason = row.reason if row is not None else ""
    cause = row.cause if row is not None and row.cause is not None else Cause.ERROR
    return layer_error(
        ValidationType.CRITERIA, f"criterion {criterion!r} could not be judged: {reason}", cause
    )


def _criterion_issue(criterion: str, row: CriterionRow | None) -> ValidationIssue:
    p_yes = row.p_yes if row is not None else None
    shown = f" (P(yes) = {p_yes:.2f})" if p_yes is not None else ""
    reason = (row.reason if row is not None else "").strip()
    return ValidationIssue(
        severity=Severity.ERROR,
        type=IssueType.CRITERIA_NOT_MET,
        message=f"Acceptance criterion not met: {criterion}{shown}",
        suggestion="Review the output and make sure it meets this requirement"
        + (f"; the judge's reason: {reason}" if reason else ""),
    )


# -- quality -----------------------------------------------------------------------------

_QUALITY_TYPES = {
    "completeness": IssueType.LOW_COMPLETENESS,
    "clarity": IssueType.LOW_CLARITY,
    "consistency": IssueType.LOW_CONSISTENCY,
}


def quality_reader(rubric: Rubric, min_score: float) -> Reader:
    """Reads a rubric judgment: the score is the rubric's normalised overall score; each
    criterion whose normalised expected score falls below `min_score` is a warning whose
    suggestion is the rubric's description of a top score."""
    best = {c.name: c.anchors[5] for c in rubric.criteria}

    def read(judgment: Judgment) -> LayerReading:
        result = RubricResult.from_judgment(judgment)
        issues = []
        for criterion in result.criteria_results:
            score = round(normalize(NumericScore(criterion.expected_score, 1.0, 5.0)), 4)
            if score < min_score:
                issues.append(
                    ValidationIssue(
                        severity=Severity.WARNING,
                        type=_QUALITY_TYPES.get(criterion.criterion_name, IssueType.LOW_QUALITY),
                        message=f"{criterion.criterion_name} scored {score:.2f}, below the "
                        f"minimum {min_score:.2f}: {criterion.reasoning.strip()}",
                        location=f"quality:{criterion.criterion_name}",
                        suggestion=f"Aim for: {best[criterion.criterion_name]}",
                    )
                )
        return LayerReading(
            issues, confidence=result.normalized_score, quality_score=result.normalized_score
        )

    return read


def merged_issues(outcomes: Sequence[LayerOutcome]) -> list[ValidationIssue]:
    return [issue for outcome in outcomes for issue in outcome.reading.issues]
