"""The alignments `jurist align` saves, one file per rubric dimension, and the judge that
applies them: a rubric judge whose judgments also carry each aligned dimension's score on
the human scale."""

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from jurist.calibration._align import Alignment
from jurist.calibration._methods import CalibrationMethod, PlainRubric
from jurist.core import BaseJudge, Context, Judgment
from jurist.judges import RubricJudge, RubricReport
from jurist.runner import JudgeChoice, RunResult
from jurist.settings import Settings, get_settings


def alignment_path(rubric_id: str, dimension: str, settings: Settings | None = None) -> Path:
    """Where the alignment of a rubric's dimension is kept: JURIST_HOME/alignments (the
    built-in rubrics live in the installed package, which is no place to write)."""
    home = (settings or get_settings()).home
    return home / "alignments" / f"{rubric_id}.{dimension}.json"


def item_signals(
    judgment: Judgment, method: CalibrationMethod | None = None
) -> dict[str, float] | None:
    """What a judgment offers an alignment (for the plain rubric: each criterion's expected
    score and confidence, and the overall score). None for an item that errored."""
    reading = (method or PlainRubric()).read(judgment)
    return None if reading is None else dict(reading.signals)


class FittedAlignment(BaseModel):
    """An alignment with what it was fitted on, so it is never scored on its own data, and
    how the rubric was scored (`methods`: each criterion by its method, or `plain`): the
    signals of one scoring mean nothing on the other's scale, so a judge applies only the
    alignments of its own. Files saved before `methods` was recorded were fitted plain."""

    rubric: str
    dimension: str
    model: str
    dataset_sha256: str
    n: int
    alignment: Alignment
    methods: Literal["rubric", "plain"] = "plain"


def load_alignment(
    rubric_id: str, dimension: str, settings: Settings | None = None
) -> FittedAlignment | None:
    """The saved alignment of a rubric's dimension, if `jurist align` made one."""
    path = alignment_path(rubric_id, dimension, settings)
    if not path.is_file():
        return None
    return FittedAlignment.model_validate_json(path.read_text(encoding="utf-8"))


def aligned_scores(
    run: RunResult, alignments: Mapping[str, FittedAlignment]
) -> dict[str, dict[str, float | None]]:
    """Per item, each aligned dimension's score on the human scale (None when the item
    errored or lacks a signal the alignment needs)."""
    return {
        item_id: _aligned(item_signals(judgment), alignments)
        for item_id, judgment in run.judgments.items()
    }


def _aligned(
    signals: Mapping[str, float] | None, alignments: Mapping[str, FittedAlignment]
) -> dict[str, float | None]:
    row: dict[str, float | None] = {}
    for dimension, fitted in alignments.items():
        usable = signals is not None and all(n in signals for n in fitted.alignment.signals)
        row[dimension] = fitted.alignment.apply(signals) if usable and signals else None
    return row


class AlignedJudge(BaseJudge):
    """A rubric judge whose judgments' rubric reports also carry, in `aligned`, the score on
    the human scale of each saved alignment of the rubric (None where the judgment lacks a
    signal the alignment needs). The verdict and score stay the rubric's own."""

    def __init__(self, judge: RubricJudge, alignments: Mapping[str, FittedAlignment]) -> None:
        super().__init__(judge.name, judge.description)
        self.kind = judge.kind
        self.inner = judge
        self.alignments = dict(alignments)

    async def judge(self, ctx: Context) -> Judgment:
        judgment = await self.inner.judge(ctx)
        signals = item_signals(judgment)
        report = RubricReport.of(judgment)
        if signals is None or report is None:
            return judgment
        aligned = report.model_copy(update={"aligned": _aligned(signals, self.alignments)})
        return judgment.evolve(metadata={**judgment.metadata, **aligned.to_metadata()})


def with_saved_alignments(choice: JudgeChoice, settings: Settings | None = None) -> JudgeChoice:
    """`choice` with the saved alignments of its rubric applied to its judgments, and the
    aligned dimensions recorded in its details; unchanged when it is no library rubric
    (`rubric:ID`) or none of the rubric's dimensions has a saved alignment fitted on the
    judge's scoring (method-scored or plain)."""
    rubric_id = choice.details.get("rubric")
    if choice.form != "rubric" or not isinstance(choice.judge, RubricJudge):
        return choice
    if not isinstance(rubric_id, str):
        return choice
    criteria = [c.name for c in choice.judge.rubric.criteria]
    found = {d: load_alignment(rubric_id, d, settings) for d in criteria}
    methods = choice.judge.methods
    fitted = {
        d: alignment
        for d, alignment in found.items()
        if alignment is not None and alignment.methods == methods
    }
    if not fitted:
        return choice
    return dataclasses.replace(
        choice,
        judge=AlignedJudge(choice.judge, fitted),
        details={**choice.details, "aligned": list(fitted)},
    )
