"""The five layers: each runs one judge and reads its judgment as the service's issues.

A layer's confidence is the API's: the share of what it checked that held (schema
1 or 0, facts verified / claims, criteria met / criteria, 1 - unsupported / claims, the
quality score), not the judge's certainty, which stays in the judgment.

A layer never passes silently when it could not do its work: a judge that errs or abstains,
a claim or criterion that could not be checked, or an exception, becomes an error issue of
type `layer_error` with the cause.

The readers name what they found (the issue's type); the severity policy then gives each
issue its severity (`with_policy`), and the layer's verdict follows from those severities.
"""

import dataclasses
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from jurist.core import Cause, Context, Judge, Judgment, NumericScore, Status, normalize
from jurist.judges import (
    ClaimIssue,
    ClaimRow,
    ClaimsReport,
    CriteriaReport,
    CriterionRow,
    FactIssue,
    FactsReport,
    RubricResult,
    Support,
)
from jurist.rubrics import Rubric
from jurist.validation._models import LayerVerdict, ValidationIssue, ValidationType
from jurist.validation._policy import DEFAULT_POLICY, IssueType, Severity, SeverityPolicy


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

    @property
    def verdict(self) -> LayerVerdict:
        """`fail` for an error-severity finding, `error` when the layer could not complete
        (wholly or for some claims or criteria), `warn` for warnings only, else `pass`."""
        issues = self.reading.issues
        if any(i.severity is Severity.ERROR and i.type != IssueType.LAYER_ERROR for i in issues):
            return "fail"
        if self.broke or any(i.type == IssueType.LAYER_ERROR for i in issues):
            return "error"
        if any(i.severity is Severity.WARNING for i in issues):
            return "warn"
        return "pass"

    def with_policy(self, policy: SeverityPolicy) -> "LayerOutcome":
        """This outcome with each issue's severity the policy's for its type."""
        if not self.reading.issues:
            return self
        issues = [
            issue.model_copy(update={"severity": policy.of(issue.type)})
            for issue in self.reading.issues
        ]
        return dataclasses.replace(self, reading=dataclasses.replace(self.reading, issues=issues))


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
            severity=DEFAULT_POLICY.of(IssueType.SCHEMA_VIOLATION),
            type=IssueType.SCHEMA_VIOLATION,
            message=f"Schema validation failed: {check.message}",
            location=check.name,
            suggestion=_schema_suggestion(check.name, check.message),
        )
        for check in judgment.checks
        if not check.passed
    ]
    if not issues:  # a failed judgment always says why: never a silent pass
        issues = [
            ValidationIssue(
                severity=DEFAULT_POLICY.of(IssueType.SCHEMA_VIOLATION),
                type=IssueType.SCHEMA_VIOLATION,
                message=f"Schema validation failed: {judgment.reasoning}",
                suggestion="Make the output match the expected schema",
            )
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
    rows: dict[str, ClaimRow] = {row.claim: row for row in report.claims}
    issues = [_claim_issue(found, rows.get(found.claim)) for found in report.issues or ()]
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


# A contradicted claim is its own kind of finding (shown wrong, not merely unconfirmed):
# its type, the start of its message and its suggestion say so.
_CONTRADICTED = {
    IssueType.UNVERIFIED_FACT: (
        IssueType.CONTRADICTED_FACT,
        "Cannot verify fact: ",
        "Contradicted fact: ",
        "Correct the statement to agree with the trusted sources, or remove it",
    ),
    IssueType.UNSUPPORTED_CLAIM: (
        IssueType.CONTRADICTED_CLAIM,
        "Unsupported claim: ",
        "Contradicted claim: ",
        "Correct the claim to agree with the context, or remove it",
    ),
}


_SOURCES_CONTRADICT = "the trusted sources contradict it"


def _claim_issue(found: ClaimIssue | FactIssue, row: ClaimRow | None) -> ValidationIssue:
    kind, message, suggestion = found.type, found.message, found.suggestion
    verdict = row.verdict if row is not None else getattr(found, "verdict", None)
    # A fact with no passage found was never checked against anything: unverified.
    searched = found.searched.documents if isinstance(found, FactIssue) else True
    if verdict is Support.CONTRADICTED and kind in _CONTRADICTED:
        if searched and _shown_wrong(row):
            kind, unverified, contradicted, suggestion = _CONTRADICTED[IssueType(kind)]
            message = contradicted + message.removeprefix(unverified)
        elif row is not None and row.exact:
            # The exact checks found the claim's number, month or name absent from the
            # sources, not a different one: say so rather than "contradict".
            absent = "; ".join(finding.reason for finding in row.exact)
            message = message.replace(_SOURCES_CONTRADICT, absent)
    return ValidationIssue(
        severity=DEFAULT_POLICY.of(kind),
        type=kind,
        message=message,
        location=found.location,
        suggestion=suggestion,
    )


def _shown_wrong(row: ClaimRow | None) -> bool:
    """Whether a contradicted claim is shown wrong: the model said so, or an exact check
    found the source stating something else (another number, month, doer, the negation).
    An exact finding with nothing found in the source (a name it never mentions, a number
    it does not state) leaves the claim unverified, not contradicted."""
    if row is None or row.method != "exact":
        return True
    return any(finding.found for finding in row.exact or ())


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
        severity=DEFAULT_POLICY.of(IssueType.CRITERIA_NOT_MET),
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
                kind = _QUALITY_TYPES.get(criterion.criterion_name, IssueType.LOW_QUALITY)
                issues.append(
                    ValidationIssue(
                        severity=DEFAULT_POLICY.of(kind),
                        type=kind,
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
