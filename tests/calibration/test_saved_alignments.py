"""A saved alignment applied to a rubric judge: the aligned scores live in the judgment's
rubric report, and a run's export reads them from there as its aligned columns."""

import json

import pytest

from jurist import Context, Judgment
from jurist.calibration import AlignedJudge, Alignment, FittedAlignment
from jurist.judges import RubricJudge, RubricReport
from jurist.llm import Capabilities, ErrorKind, ModelError
from jurist.rubrics import get_rubric
from jurist.runner import RunResult, RunSummary
from scripted import ScriptedModel, answer

RUBRIC = get_rubric("summarization").only("coherence")
CTX = Context("Summarise the article.", output="The council passed it.", context="It passed.")
LINEAR = FittedAlignment(
    rubric="summarization",
    dimension="coherence",
    model="test",
    dataset_sha256="0" * 64,
    n=10,
    alignment=Alignment(
        method="linear",
        signals=["coherence.expected"],
        intercept=0.5,
        coefficients={"coherence.expected": 2.0},
    ),
)


def scored(score: int) -> ScriptedModel:
    payload = {"reasoning": "Reads well.", "score": score, "confidence": 0.5}
    return ScriptedModel(script=[answer(json.dumps(payload))], capabilities=Capabilities())


async def test_the_aligned_scores_are_part_of_the_rubric_report_and_the_export_reads_them():
    judge = AlignedJudge(RubricJudge(RUBRIC, scored(4), methods="plain"), {"coherence": LINEAR})
    judgment = await judge.judge(CTX)
    report = RubricReport.of(judgment)
    assert report is not None
    assert report.aligned == {"coherence": pytest.approx(0.5 + 2.0 * 4)}
    assert report.rubric_result.criteria_results[0].score == 4

    run = RunResult(None, None, judge.name, {"1": judgment}, RunSummary.of([judgment]))
    (row,) = run.rows()
    assert row["aligned_coherence"] == pytest.approx(8.5)
    assert run.columns()[-1] == "aligned_coherence"


async def test_a_judgment_that_errs_is_left_as_it_is():
    model = ScriptedModel(script=[ModelError(ErrorKind.TIMEOUT, "slow")])
    judgment = await AlignedJudge(RubricJudge(RUBRIC, model), {"coherence": LINEAR}).judge(CTX)
    assert RubricReport.of(judgment) is None
    assert "aligned" not in judgment.metadata
    run = RunResult(None, None, "j", {"1": judgment}, RunSummary.of([judgment]))
    assert not any(key.startswith("aligned_") for key in run.rows()[0])


def test_an_export_of_judgments_without_a_rubric_report_has_no_aligned_columns():
    judgment = Judgment.ok("fine", metadata={"aligned": {"coherence": 3.0}})
    run = RunResult(None, None, "j", {"1": judgment}, RunSummary.of([judgment]))
    assert "aligned_coherence" not in run.rows()[0]
