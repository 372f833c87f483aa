"""Relevance judges of a retrieval-augmented answer: were the passages worth retrieving, and
does the answer address the question? Both are yes/no questions decided on P(yes), asked the
way an acceptance criterion is (the question as the goal, the passage or answer as the
output), with their own templates."""

from typing import Any

from jurist.core import (
    BaseJudge,
    Check,
    Context,
    JudgeKind,
    Judgment,
    MinScore,
    Name,
    NumericScore,
    Status,
    Threshold,
    Usage,
    gather_ordered,
    min_score_of,
    threshold_of,
)
from jurist.judges import rag
from jurist.judges._ask import CallPolicy, ModelRef
from jurist.judges._criteria import judge_criterion
from jurist.llm import Model
from jurist.prompts import PromptTemplate

PASSAGE_NAME = 60
PASSAGE_RELEVANT = "The passage contains information that helps answer the question"
ANSWER_RELEVANT = "The answer addresses the question directly"


def _shown(result: Judgment) -> str:
    p_yes = result.metadata.get("p_yes")
    return f"{p_yes:.2f}" if isinstance(p_yes, float) else str(result.metadata.get("answer"))


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
        rows: list[dict[str, Any]] = []
        checks: list[Check] = []
        for index, (passage, result) in enumerate(zip(passages, results, strict=True)):
            label = f"passage {index + 1}: {' '.join(passage.split())[:PASSAGE_NAME]}"
            if result.status not in (Status.PASS, Status.FAIL):
                cause = result.metadata.get("cause")
                rows.append({"passage": index + 1, "cause": cause, "error": result.reasoning})
                checks.append(Check(label, False, f"ERROR ({cause}): {result.reasoning}"))
                continue
            rows.append(
                {
                    "passage": index + 1,
                    "relevant": result.passed,
                    "p_yes": result.metadata.get("p_yes"),
                    "reason": result.reasoning,
                }
            )
            checks.append(
                Check(label, result.passed, f"P(relevant) = {_shown(result)}: {result.reasoning}")
            )
        first_call = next((r.metadata for r in results if "model" in r.metadata), {})
        metadata = {
            "judge": self.name,
            **{
                k: first_call[k]
                for k in ("template", "prompt_sha256", "model", "parameters")
                if k in first_call
            },
            "passages": rows,
            "threshold": self.threshold,
            "min_score": self.min_score,
        }
        usage = Usage.total(r.usage for r in results)
        errored = [r for r in results if r.status not in (Status.PASS, Status.FAIL)]
        if errored:
            causes = sorted({str(r.metadata.get("cause")) for r in errored})
            return Judgment.error(
                f"{len(errored)} of {len(passages)} passages could not be judged "
                f"({', '.join(causes)}): {errored[0].reasoning}",
                checks=checks,
                usage=usage,
                metadata={**metadata, "cause": causes[0] if len(causes) == 1 else "mixed"},
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
            metadata=metadata,
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
