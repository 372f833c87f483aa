"""The rubric judge's decomposed criteria: a criterion whose method is not `plain` is scored
by the judge that asks its smaller questions (claims, coverage, sentence checks), read on
1..5 by `jurist.judges._decomposed_scores`, the readings calibration measures.

One judge per kind of judgment, shared by the criteria that read it: coherence and fluency
on sentence checks are one SentenceChecksJudge asking both, and the claims' aggregates all
read one claims judgment.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from jurist.core import Context, Judge, Judgment, Status, gather_ordered
from jurist.judges._ask import CallPolicy
from jurist.judges._common import shorten
from jurist.judges._coverage import CoverageJudge, CoverageReport
from jurist.judges._decomposed_scores import (
    DimensionScores,
    claims_scores,
    coverage_scores,
    sentence_scores,
)
from jurist.judges._grounding import ClaimsReport, FaithfulnessJudge
from jurist.judges._rubric_result import CriterionResult
from jurist.judges._sentences import SentenceChecksJudge, SentencesReport
from jurist.llm import Model
from jurist.rubrics import CriterionMethod, RubricCriterion

# Which judge a criterion reads: claims, coverage, coverage with focus, sentences.
JudgeKey = Literal["claims", "coverage", "coverage:focus", "sentences"]


def judge_key(criterion: RubricCriterion) -> JudgeKey | None:
    """The judge a decomposed criterion reads; None for a plain one."""
    if criterion.method is CriterionMethod.CLAIMS:
        return "claims"
    if criterion.method is CriterionMethod.COVERAGE:
        return "coverage:focus" if criterion.option == "focus" else "coverage"
    if criterion.method is CriterionMethod.SENTENCES:
        return "sentences"
    return None


@dataclass(frozen=True)
class Decided:
    """A decomposed criterion's score."""

    result: CriterionResult


@dataclass(frozen=True)
class Undecided:
    """The decomposed judgment cannot score the criterion (no source, no claim, no
    sentence): the criterion is asked plainly instead, and says why."""

    reason: str


@dataclass(frozen=True)
class Errored:
    """The decomposed judgment errored: the criterion failed to score."""

    judgment: Judgment


Outcome = Decided | Undecided | Errored


class DecomposedCriteria:
    """The decomposed judges of a rubric's criteria, built once (a coverage judge keeps the
    key facts of a source for the next output of that source)."""

    def __init__(
        self,
        criteria: Sequence[RubricCriterion],
        model: Model | str | None,
        policy: CallPolicy,
    ) -> None:
        self.criteria = tuple(c for c in criteria if judge_key(c) is not None)
        self.judges: dict[JudgeKey, Judge] = {}
        questions = tuple(
            dict.fromkeys(c.sentence_question for c in self.criteria if judge_key(c) == "sentences")
        )
        for criterion in self.criteria:
            key = judge_key(criterion)
            if key is None or key in self.judges:
                continue
            if key == "claims":
                self.judges[key] = FaithfulnessJudge(model, name="claims")
            elif key == "sentences":
                self.judges[key] = SentenceChecksJudge(model, dimensions=questions, policy=policy)
            else:
                self.judges[key] = CoverageJudge(model, off_topic=key == "coverage:focus", name=key)

    async def judge(self, ctx: Context) -> dict[JudgeKey, Judgment]:
        """Every decomposed judge's judgment of `ctx`, one each, concurrently."""
        keys = list(self.judges)
        judged = await gather_ordered(self.judges[key].judge(ctx) for key in keys)
        return dict(zip(keys, judged, strict=True))

    @staticmethod
    def read(criterion: RubricCriterion, judgment: Judgment) -> Outcome:
        """The criterion's score from its judge's judgment."""
        if judgment.status is Status.ERROR:
            return Errored(judgment)
        scored = _scores(criterion, judgment)
        dimension = _dimension(criterion)
        value = scored.scores.get(dimension)
        if value is None:
            return Undecided(
                f"{criterion.method_name} could not score it ({judgment.reasoning}); asked plainly"
            )
        return Decided(
            CriterionResult(
                criterion_name=criterion.name,
                score=rounded(value),
                expected_score=value,
                confidence=judgment.confidence,
                reasoning=_reasoning(criterion, judgment, scored),
                is_essential=criterion.essential,
                passed_threshold=value >= criterion.threshold,
                weight=criterion.weight,
                threshold=criterion.threshold,
                method=_reading_method(judgment),
                criterion_method=criterion.method,
                method_option=criterion.option or None,
                signals={k.partition(".")[2]: v for k, v in scored.signals.items()},
                prompt_sha256=None,
                reasoning_first=None,
            )
        )


def rounded(value: float) -> int:
    """The integer score of an expected one: half up, not Python's banker's rounding (2.5
    is a 3)."""
    return min(5, max(1, int(value + 0.5)))


def _dimension(criterion: RubricCriterion) -> str:
    if criterion.method is CriterionMethod.SENTENCES:
        return criterion.sentence_question
    return criterion.name


def _scores(criterion: RubricCriterion, judgment: Judgment) -> DimensionScores:
    name = criterion.name
    if criterion.method is CriterionMethod.CLAIMS:
        aggregate = criterion.option or "min"
        return claims_scores(ClaimsReport.of(judgment), aggregate, dimension=name)
    if criterion.method is CriterionMethod.COVERAGE:
        return coverage_scores(CoverageReport.of(judgment), dimension=name)
    return sentence_scores(SentencesReport.of(judgment))


def _reading_method(judgment: Judgment) -> str:
    """How the small answers were read: from token probabilities or as stated."""
    methods: set[str] = set()
    for report in (
        ClaimsReport.of(judgment),
        CoverageReport.of(judgment),
        SentencesReport.of(judgment),
    ):
        if isinstance(report, ClaimsReport):
            methods |= {row.method for row in report.claims}
        elif isinstance(report, CoverageReport):
            methods |= {row.method for row in report.facts}
        elif isinstance(report, SentencesReport):
            methods |= {row.method for row in report.checks or ()}
    methods.discard("none")
    if len(methods) == 1:
        return methods.pop()
    return "mixed" if methods else "none"


def _reasoning(criterion: RubricCriterion, judgment: Judgment, scored: DimensionScores) -> str:
    """What the small answers found, in a sentence, with the weakest one named."""
    if criterion.method is CriterionMethod.CLAIMS:
        report = ClaimsReport.of(judgment)
        assert report is not None  # a score was read from it
        weakest = min(
            (c for c in report.claims if c.p_supported is not None),
            key=lambda c: c.p_supported or 0.0,
            default=None,
        )
        text = f"{report.supported_claims} of {report.total_claims} claims supported by the source"
        if report.p_supported_min is not None and report.p_supported_mean is not None:
            text += (
                f" (P(supported): least {report.p_supported_min:.2f}, "
                f"mean {report.p_supported_mean:.2f})"
            )
        if weakest is not None:
            text += f"; weakest: {shorten(weakest.claim, 120)!r}"
        return text
    if criterion.method is CriterionMethod.COVERAGE:
        coverage = CoverageReport.of(judgment)
        assert coverage is not None
        missed = [f.claim for f in coverage.facts if not f.supported]
        text = (
            f"{coverage.covered_facts} of {coverage.key_facts} key facts of the source "
            f"covered (mean P(covered) {coverage.p_covered_mean:.2f})"
        )
        if coverage.relevance is not None and coverage.p_on_topic_mean is not None:
            text += f", focus {coverage.p_on_topic_mean:.2f}"
        if missed:
            text += f"; missed: {shorten(missed[0], 120)!r}"
        return text
    sentences = SentencesReport.of(judgment)
    question = criterion.sentence_question
    row = sentences.dimension(question) if sentences is not None else None
    assert sentences is not None
    assert row is not None
    weakest_text = next(
        (
            c.text
            for c in sentences.checks or ()
            if c.dimension == question and c.sentence == row.weakest_sentence
        ),
        "",
    )
    text = (
        f"{row.checks} {question} checks of the sentences, mean P(yes) {row.p_mean:.2f}, "
        f"lowest {row.p_min:.2f}"
    )
    if weakest_text:
        text += f" (sentence {row.weakest_sentence}: {shorten(weakest_text, 120)!r})"
    return text
