"""The criteria layer reads the criteria judge's typed report: an error issue per criterion
not met (with its P(yes) and reason), a layer error per criterion that could not be judged
(with its cause); a judgment with no criteria report is unreadable, never a silent pass."""

import pytest

from jurist.core import Cause, Judgment, Status
from jurist.judges import CriteriaReport, CriterionReport, CriterionRow
from jurist.validation import IssueType, Severity
from jurist.validation._layers import read_criteria

MET, UNMET, UNJUDGED = "It sorts", "It has tests", "It is named well"


def row(criterion: str, status: Status, **fields) -> CriterionRow:
    values = {"p_yes": None, "confidence": None, "method": None, "reason": "", **fields}
    return CriterionRow(criterion=criterion, status=status, **values)


def test_each_criterion_not_met_is_an_issue_and_each_not_judged_a_layer_error():
    report = CriteriaReport(
        mode="separate",
        threshold=0.5,
        passed_criteria=(MET,),
        failed_criteria=(UNMET,),
        errored_criteria=(UNJUDGED,),
        criteria=(
            row(MET, Status.PASS, p_yes=0.9, method="logprobs", reason="it does"),
            row(UNMET, Status.FAIL, p_yes=0.2, method="logprobs", reason="none found"),
            row(UNJUDGED, Status.ERROR, reason="the model failed", cause=Cause.TIMEOUT),
        ),
    )
    reading = read_criteria(Judgment.fail("1 of 3 not met", metadata=report.to_metadata()))
    assert reading.passed_criteria == [MET]
    assert reading.failed_criteria == [UNMET]
    assert reading.confidence == pytest.approx(1 / 3)
    unmet, unjudged = reading.issues
    assert (unmet.severity, unmet.type) == (Severity.ERROR, IssueType.CRITERIA_NOT_MET)
    assert unmet.message == f"Acceptance criterion not met: {UNMET} (P(yes) = 0.20)"
    assert unmet.suggestion is not None
    assert unmet.suggestion.endswith("the judge's reason: none found")
    assert unjudged.type == IssueType.LAYER_ERROR
    assert "(timeout)" in unjudged.message
    assert "the model failed" in unjudged.message


@pytest.mark.parametrize(
    "judgment",
    [
        Judgment.ok("all met"),
        Judgment.ok(
            "met",
            metadata=CriterionReport(
                criterion=MET, answer="yes", p_yes=0.9, method="logprobs", threshold=0.5
            ).to_metadata(),
        ),
    ],
)
def test_a_judgment_without_the_criteria_report_is_unreadable(judgment):
    with pytest.raises(ValueError, match="holds no report of its criteria"):
        read_criteria(judgment)
