"""The facts and hallucination layers read the judges' typed claims reports: their issues,
and an error issue for claims that could not be checked; a judgment with no such report
is unreadable, never a silent pass."""

import pytest

from jurist.core import Judgment
from jurist.judges import (
    ClaimIssue,
    ClaimsReport,
    Extraction,
    FactsReport,
    SourcesReport,
    Support,
)
from jurist.validation import IssueType, Severity, ValidationType
from jurist.validation._layers import read_facts, read_hallucination

ISSUE = ClaimIssue(
    severity="warning",
    type="unsupported_claim",
    message="Unsupported claim: the tower is blue",
    claim="the tower is blue",
    evidence="",
    verdict=Support.NOT_MENTIONED,
    p_supported=0.1,
    quote_found=False,
    suggestion="Remove the claim",
)

SOURCES = SourcesReport(count=1, min_sources=1, sources=("x",))


def claims(errored: int = 0) -> ClaimsReport:
    return ClaimsReport(
        mode="per_claim",
        extraction=Extraction.MODEL,
        total_claims=3,
        supported_claims=2 - errored,
        unsupported_claims=1,
        errored_claims=errored,
        invented_quotes=0,
        p_supported_mean=0.6,
        p_supported_min=0.1,
        claims=(),
        hallucination_count=1,
        issues=(ISSUE,),
    )


def test_hallucination_issues_come_from_the_report():
    judgment = Judgment.fail("1 of 3", confidence=2 / 3, metadata=claims().to_metadata())
    reading = read_hallucination(judgment)
    (issue,) = reading.issues
    assert (issue.severity, issue.type) == (Severity.WARNING, "unsupported_claim")
    assert issue.message == ISSUE.message
    assert issue.suggestion == "Remove the claim"
    assert issue.location is None
    assert reading.confidence == pytest.approx(2 / 3)


def test_claims_that_could_not_be_checked_are_a_layer_error():
    judgment = Judgment.fail("1 of 3", confidence=2 / 3, metadata=claims(errored=1).to_metadata())
    issues = read_hallucination(judgment).issues
    assert [i.type for i in issues] == ["unsupported_claim", IssueType.LAYER_ERROR]
    assert "1 of 3 claims could not be checked" in issues[1].message


def test_a_facts_report_with_nothing_unverified_has_no_issue():
    report = FactsReport(
        threshold=0.8,
        sources=("landmarks",),
        extraction=Extraction.MODEL,
        total_claims=0,
        verified_claims=0,
        unverified_claims=0,
        errored_claims=0,
        claims=(),
        issues=(),
    )
    reading = read_facts(Judgment.ok(confidence=1.0, metadata=report.to_metadata()))
    assert reading.issues == []
    assert reading.confidence == 1.0


@pytest.mark.parametrize(
    ("read", "judgment"),
    [
        (read_hallucination, Judgment.ok(metadata={"issues": [], "total_claims": 0})),
        (read_facts, Judgment.ok(metadata=claims().to_metadata())),
        (read_hallucination, Judgment.ok(metadata=SOURCES.to_metadata())),
    ],
)
def test_a_judgment_without_the_layers_report_is_unreadable(read, judgment):
    with pytest.raises(ValueError, match="holds no report of its claims"):
        read(judgment)


def test_the_layers_are_named_in_the_refusal():
    with pytest.raises(ValueError, match=ValidationType.FACTS.value):
        read_facts(Judgment.ok())
