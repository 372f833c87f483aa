"""How a calibration turns a judge's judgment into a score per human dimension.

`plain` asks the G-Eval rubric its criteria, one call each: the floor the other methods are
measured against. `claims` scores consistency from the output's claims: each is checked
against the source with a quote and P(supported), and the score aggregates the claims
(by default the least supported one) instead of asking one holistic question. `rubric`
scores each criterion as the rubric judge does by default, by the method its rubric names.

The decomposed methods read their judgments on the 1-5 scale with the readings the rubric
judge scores its criteria by (`jurist.judges.claims_scores` and the others), so what is
calibrated is what judges. A method also names the signals an alignment may use (`jurist
align`).
"""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from jurist.core import Judge, Judgment, Status
from jurist.data import LabelledDataset
from jurist.judges import (
    ClaimsReport,
    CoverageJudge,
    CoverageReport,
    DimensionScores,
    FaithfulnessJudge,
    FocusJudge,
    FocusReport,
    RubricJudge,
    RubricResult,
    claims_scores,
    coverage_scores,
    focus_scores,
)
from jurist.llm import Model
from jurist.rubrics import Rubric


@dataclass(frozen=True)
class MethodScores:
    """What one judgment says on the human scale: a score per dimension (None: it could not
    tell), the seconds it took, and the signals an alignment may map."""

    scores: dict[str, float | None]
    seconds: float | None = None
    signals: dict[str, float] = field(default_factory=dict)


class CalibrationMethod(ABC):
    name: ClassVar[str]
    description: ClassVar[str]

    @abstractmethod
    def dimensions(self, rubric: Rubric, rated: Sequence[str], asked: Sequence[str]) -> list[str]:
        """The dimensions this method scores here; a ValueError names what cannot be."""

    @abstractmethod
    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        """The judge that scores one item."""

    @abstractmethod
    def read(self, judgment: Judgment) -> MethodScores | None:
        """The judgment's reading; None for a judgment that errored."""

    def prepare(self, dataset: LabelledDataset) -> None:  # noqa: B027 - most methods need nothing
        """Called with the rated dataset before any item is judged: a method that learns
        from the other documents' human ratings (anchors) keeps what it needs here, and must
        never show an item its own document's ratings."""


class PlainRubric(CalibrationMethod):
    name = "plain"
    description = "the rubric's criteria asked plainly, one G-Eval call each (the floor)"
    METHODS: ClassVar[Literal["rubric", "plain"]] = "plain"

    def dimensions(self, rubric: Rubric, rated: Sequence[str], asked: Sequence[str]) -> list[str]:
        criteria = [c.name for c in rubric.criteria]
        return chosen_dimensions(
            f"rubric {rubric.id}", criteria, rated, asked, hint="; name one with --dimension"
        )

    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        return RubricJudge(rubric, model, criteria=list(dimensions), methods=self.METHODS)

    def read(self, judgment: Judgment) -> MethodScores | None:
        if judgment.status is Status.ERROR:
            return None
        try:
            result = RubricResult.from_judgment(judgment)
        except KeyError:
            return None
        signals = {"overall": result.overall_score}
        for criterion in result.criteria_results:
            signals[f"{criterion.criterion_name}.expected"] = criterion.expected_score
            if criterion.confidence is not None:
                signals[f"{criterion.criterion_name}.confidence"] = criterion.confidence
        return MethodScores(
            scores={c.criterion_name: c.expected_score for c in result.criteria_results},
            seconds=result.evaluation_time_ms / 1000,
            signals=signals,
        )


class ClaimConsistency(CalibrationMethod):
    """Consistency from claims: 1 + 4 x the aggregate of the claims' P(supported), on the
    1-5 scale of human consistency ratings. `aggregate` is `min` (one unsupported claim
    makes a summary inconsistent, which is how raters read it), `mean`, or `share` (the
    share of claims judged supported). A summary that makes no factual claim has no score."""

    name = "claims"
    description = "consistency from the output's claims, each checked against the source"
    DIMENSION: ClassVar[str] = "consistency"
    AGGREGATES: ClassVar[tuple[str, ...]] = ("min", "mean", "share")

    def __init__(self, aggregate: str = "min") -> None:
        if aggregate not in self.AGGREGATES:
            raise ValueError(f"aggregate must be one of {self.AGGREGATES}, got {aggregate!r}")
        self.aggregate = aggregate

    def dimensions(self, rubric: Rubric, rated: Sequence[str], asked: Sequence[str]) -> list[str]:
        return _only(self.name, self.DIMENSION, rated, asked)

    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        return FaithfulnessJudge(model)

    def read(self, judgment: Judgment) -> MethodScores | None:
        if judgment.status is Status.ERROR:
            return None
        return _method_scores(claims_scores(ClaimsReport.of(judgment), self.aggregate), judgment)


class Coverage(CalibrationMethod):
    """Relevance from coverage: 1 + 4 x the mean P(covered) of the source's key facts
    (extracted once per source), on the 1-5 scale of human relevance ratings. With
    `off_topic`, 1 + 4 x the harmonic mean of that coverage and the focus (the mean P(on
    topic) of the output's claims, asked against the same key facts)."""

    name = "coverage"
    description = "relevance from the source's key facts the output covers"
    DIMENSION: ClassVar[str] = "relevance"

    def __init__(self, off_topic: bool = False) -> None:
        self.off_topic = off_topic

    def dimensions(self, rubric: Rubric, rated: Sequence[str], asked: Sequence[str]) -> list[str]:
        return _only(self.name, self.DIMENSION, rated, asked)

    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        return CoverageJudge(model, off_topic=self.off_topic)

    def read(self, judgment: Judgment) -> MethodScores | None:
        if judgment.status is Status.ERROR:
            return None
        return _method_scores(coverage_scores(CoverageReport.of(judgment)), judgment)


class Focus(CalibrationMethod):
    """Relevance from focus alone: 1 + 4 x the mean P(on topic) of the output's claims,
    each asked whether it is about one of the source's key facts. An output with no claim
    to check has no score."""

    name = "focus"
    description = "relevance from the output's claims that are about the source's key facts"
    DIMENSION: ClassVar[str] = "relevance"

    def dimensions(self, rubric: Rubric, rated: Sequence[str], asked: Sequence[str]) -> list[str]:
        return _only(self.name, self.DIMENSION, rated, asked)

    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        return FocusJudge(model)

    def read(self, judgment: Judgment) -> MethodScores | None:
        if judgment.status is Status.ERROR:
            return None
        return _method_scores(focus_scores(FocusReport.of(judgment)), judgment)


class RubricMethod(PlainRubric):
    """Each criterion by the method its rubric names (the rubric judge's default): read as
    the plain rubric is, criterion by criterion."""

    name = "rubric"
    description = "each criterion by the method the rubric names for it (claims, coverage, ...)"
    METHODS: ClassVar[Literal["rubric", "plain"]] = "rubric"


def _method_scores(read: DimensionScores, judgment: Judgment) -> MethodScores:
    return MethodScores(scores=read.scores, seconds=seconds_of(judgment), signals=read.signals)


def seconds_of(judgment: Judgment) -> float | None:
    """The seconds the judgment's model calls took, when it says."""
    usage = judgment.usage
    return usage.latency_ms / 1000 if usage is not None and usage.latency_ms else None


def chosen_dimensions(
    scorer: str, offered: Sequence[str], rated: Sequence[str], asked: Sequence[str], hint: str = ""
) -> list[str]:
    """The dimensions asked for (or, when none are, every one `scorer` offers that the
    dataset rates); a ValueError names one it cannot score or the dataset does not rate."""
    for name in asked:
        if name not in offered:
            raise ValueError(f"--dimension {name!r}: {scorer} scores only {list(offered)}")
        if name not in rated:
            raise ValueError(f"--dimension {name!r}: the dataset rates only {list(rated)}")
    chosen = list(dict.fromkeys(asked)) or [name for name in offered if name in rated]
    if not chosen:
        raise ValueError(
            f"{scorer} scores {list(offered)}, none of which the dataset rates (it rates "
            f"{list(rated)}){hint}"
        )
    return chosen


def _only(method: str, dimension: str, rated: Sequence[str], asked: Sequence[str]) -> list[str]:
    return chosen_dimensions(f"the {method} method", [dimension], rated, asked)
