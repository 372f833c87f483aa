"""`sentences`: coherence and fluency from per-sentence yes/no checks.

Each dimension is 1 + 4 x the mean P(yes) of its checks (`jurist.judges.sentence_scores`, as
the rubric judge reads a `sentences` criterion), on the 1-5 scale of SummEval's human
ratings, instead of one "rate it 1-5" question that a small model answers with 4 whatever it
reads.
"""

from collections.abc import Sequence
from typing import ClassVar

from jurist.calibration._methods import (
    CalibrationMethod,
    MethodScores,
    chosen_dimensions,
    seconds_of,
)
from jurist.core import Judge, Judgment, Status
from jurist.judges import SentenceChecksJudge, SentencesReport, sentence_scores
from jurist.llm import Model
from jurist.rubrics import Rubric


class SentenceChecks(CalibrationMethod):
    """Coherence and fluency, whichever the dataset rates (or those asked), each from its
    sentence checks' mean P(yes). An output with no text has no score."""

    name = "sentences"
    description = "coherence and fluency from yes/no checks of each sentence, read as P(yes)"
    DIMENSIONS: ClassVar[tuple[str, ...]] = tuple(sorted(SentenceChecksJudge.DIMENSIONS))

    def dimensions(self, rubric: Rubric, rated: Sequence[str], asked: Sequence[str]) -> list[str]:
        return chosen_dimensions(f"the {self.name} method", self.DIMENSIONS, rated, asked)

    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        return SentenceChecksJudge(model, dimensions=tuple(dimensions))

    def read(self, judgment: Judgment) -> MethodScores | None:
        if judgment.status is Status.ERROR:
            return None
        read = sentence_scores(SentencesReport.of(judgment))
        return MethodScores(scores=read.scores, seconds=seconds_of(judgment), signals=read.signals)
