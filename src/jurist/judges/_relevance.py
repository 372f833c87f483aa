"""Relevance judges of a retrieval-augmented answer: were the passages worth retrieving, and
does the answer address the question? Both are yes/no questions decided on P(yes), asked the
way an acceptance criterion is (the question as the goal, the passage or answer as the
output), with their own templates."""

from jurist.core import (
    BaseJudge,
    Cause,
    Check,
    Context,
    JudgeKind,
    Judgment,
    MinScore,
    Name,
    NumericScore,
    Report,
    Status,
    Threshold,
    Usage,
    gather_ordered,
    min_score_of,
    threshold_of,
)
from jurist.judges import rag
from jurist.judges._ask import CallPolicy, ModelRef
from jurist.judges._common import ReportRow, omitted_when_none
from jurist.judges._criteria import CriterionReport, judge_criterion
from jurist.llm import Model
from jurist.prompts import PromptTemplate

PASSAGE_NAME = 60
PASSAGE_RELEVANT = "The passage contains information that helps answer the question"
ANSWER_RELEVANT = "The answer addresses the question directly"


class PassageVerdict(ReportRow):
    """A passage judged: its number (from 1), whether it is relevant, P(yes) (None when the
    model stated its answer without a confidence) and the reason."""

    passage: int
    relevant: bool
    p_yes: float | None
    reason: str


class PassageFailure(ReportRow):
    """A passage that could not be judged: its number, the cause and what went wrong."""

    passage: int
    cause: Cause | None
    error: str


class ContextRelevanceReport(Report, kind="context_relevance"):
    """Each retrieved passage judged relevant to the question or not (or why it could not
    be), with the threshold on P(yes) and the share of relevant passages needed to pass;
    `cause` when some passage could not be judged (MIXED for several causes)."""

    passages: tuple[PassageVerdict | PassageFailure, ...]
    threshold: float
    min_score: float
    cause: Cause | None = omitted_when_none()


def _shown(verdict: CriterionReport | None) -> str:
    if verdict is None:
        return "None"
    return f"{verdict.p_yes:.2f}" if verdict.p_yes is not None else verdict.answer


class ContextRelevanceJudge(BaseJudge):
    """Is each retrieved passage relevant to the question?

    One yes/no question per passage (P(yes) against `threshold`); the score is the share of
    relevant passages (context precision), PASS when it reaches `min_score`. ABSTAIN without
    a question or without passages.
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        threshold: Threshold = 0.5,
        min_score: MinScore = 0.5,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.model = ModelRef(model)
        self.threshold = threshold_of(threshold)
        self.min_score = min_score_of(min_score)
        self.template = PromptTemplate.named("passage_relevance")
        self.policy = CallPolicy.from_settings()

    async def judge(self, ctx: Context) -> Judgment:
        inputs = rag.require(ctx, "question", "passages", judge=self.name)
        if isinstance(inputs, Judgment):
            return inputs
        passages = inputs.passages
        results = await gather_ordered(
            judge_criterion(
                Context(inputs.question, output=passage),
                PASSAGE_RELEVANT,
                self.model,
                threshold=self.threshold,
                judge=self.name,
                policy=self.policy,
                template=self.template,
            )
            for passage in passages
        )
        rows: list[PassageVerdict | PassageFailure] = []
        checks: list[Check] = []
        for index, (passage, result) in enumerate(zip(passages, results, strict=True)):
            label = f"passage {index + 1}: {' '.join(passage.split())[:PASSAGE_NAME]}"
            if result.status not in (Status.PASS, Status.FAIL):
                cause = result.cause
                rows.append(PassageFailure(passage=index + 1, cause=cause, error=result.reasoning))
                checks.append(Check(label, False, f"ERROR ({cause}): {result.reasoning}"))
                continue
            verdict = CriterionReport.of(result)
            rows.append(
                PassageVerdict(
                    passage=index + 1,
                    relevant=result.passed,
                    p_yes=verdict.p_yes if verdict is not None else None,
                    reason=result.reasoning,
                )
            )
            checks.append(
                Check(label, result.passed, f"P(relevant) = {_shown(verdict)}: {result.reasoning}")
            )
        first_call = next((r.metadata for r in results if "model" in r.metadata), {})
        call = {
            k: first_call[k]
            for k in ("template", "prompt_sha256", "model", "parameters")
            if k in first_call
        }
        report = ContextRelevanceReport(
            passages=tuple(rows), threshold=self.threshold, min_score=self.min_score
        )
        usage = Usage.total(r.usage for r in results)
        errored = [r for r in results if r.status not in (Status.PASS, Status.FAIL)]
        if errored:
            causes = sorted({r.cause or Cause.ERROR for r in errored})
            report = report.model_copy(
                update={"cause": causes[0] if len(causes) == 1 else Cause.MIXED}
            )
            return Judgment.error(
                f"{len(errored)} of {len(passages)} passages could not be judged "
                f"({', '.join(causes)}): {errored[0].reasoning}",
                checks=checks,
                usage=usage,
                metadata={"judge": self.name, **call, **report.to_metadata()},
            )
        relevant_count = sum(1 for r in results if r.passed)
        score = relevant_count / len(passages)
        confidences = [r.confidence for r in results if r.confidence is not None]
        return Judgment(
            Status.PASS if score >= self.min_score else Status.FAIL,
            NumericScore(score),
            f"{relevant_count} of {len(passages)} passages relevant to the question",
            tuple(checks),
            confidence=sum(confidences) / len(confidences) if confidences else None,
            usage=usage,
            metadata={"judge": self.name, **call, **report.to_metadata()},
        )


class AnswerRelevanceJudge(BaseJudge):
    """Does the answer address the question? PASS when P(yes) reaches `threshold`; the score
    is P(yes). Truth is not judged here (that is faithfulness). ABSTAIN without a question
    or an answer."""

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        threshold: Threshold = 0.5,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.model = ModelRef(model)
        self.threshold = threshold_of(threshold)
        self.template = PromptTemplate.named("answer_relevance")
        self.policy = CallPolicy.from_settings()

    async def judge(self, ctx: Context) -> Judgment:
        inputs = rag.require(ctx, "question", "answer", judge=self.name)
        if isinstance(inputs, Judgment):
            return inputs
        return await judge_criterion(
            Context(inputs.question, output=inputs.answer),
            ANSWER_RELEVANT,
            self.model,
            threshold=self.threshold,
            judge=self.name,
            policy=self.policy,
            template=self.template,
        )
