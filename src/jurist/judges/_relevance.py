"""Relevance judges of a retrieval-augmented answer: were the passages worth retrieving, and
does the answer address the question? Both are yes/no questions decided on P(yes)."""

import asyncio
from typing import Any

from jurist.core import BaseJudge, Check, Context, JudgeKind, Judgment, NumericScore, Status, Usage
from jurist.judges import rag
from jurist.judges._criteria import (
    ONE_VERDICT_TOKENS,
    YES_NO,
    Verdict,
    criterion_schema,
    read_verdict,
)
from jurist.judges._model import ModelRef, parameters, request_for
from jurist.judges._reading import Unreadable, json_object
from jurist.llm import Model, ModelError
from jurist.llm._logprobs import field_probabilities
from jurist.prompts import PromptError, PromptTemplate

PASSAGE_NAME = 60


class _Asked:
    """One yes/no answer, or why there is none."""

    def __init__(
        self,
        verdict: Verdict | None,
        usage: Usage | None,
        metadata: dict[str, Any],
        cause: str | None = None,
        error: str = "",
    ) -> None:
        self.verdict, self.usage, self.metadata = verdict, usage, metadata
        self.cause, self.error = cause, error


async def ask_yes_no(model_ref: ModelRef, template: str, **variables: Any) -> _Asked:
    """Render `template` with `variables`, ask the model, read "answer" and P(yes)."""
    try:
        model = model_ref.get()
    except ModelError as exc:
        return _Asked(None, None, {}, exc.kind.value, str(exc.cause))
    try:
        rendered = PromptTemplate.named(template).render(None, **variables)
        system = PromptTemplate.named("system").render(None)
    except PromptError as exc:
        return _Asked(None, None, {}, "prompt", str(exc))
    stated = not model.capabilities.logprobs
    request = request_for(
        rendered,
        model,
        system=system,
        json_schema=criterion_schema(stated=stated),
        wants_logprobs=True,
        max_tokens=ONE_VERDICT_TOKENS,
    )
    metadata = {
        "template": template,
        "prompt_sha256": rendered.sha256,
        "model": model.name,
        "parameters": parameters(request),
    }
    try:
        response = await model.complete(request)
    except ModelError as exc:
        return _Asked(None, None, metadata, exc.kind.value, str(exc.cause))
    try:
        found = field_probabilities(response.logprobs, "answer", YES_NO)
        verdict = read_verdict(json_object(response), found[0] if found else None)
    except Unreadable as exc:
        return _Asked(None, response.usage, metadata, "unparseable", str(exc))
    return _Asked(verdict, response.usage, metadata)


def _p_yes(verdict: Verdict) -> float:
    if verdict.p_yes is not None:
        return verdict.p_yes
    return 1.0 if verdict.said_yes else 0.0


def _threshold(value: float, name: str) -> float:
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, not {value}")
    return value


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
        threshold: float = 0.5,
        min_score: float = 0.5,
        name: str | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.model = ModelRef(model)
        self.threshold = _threshold(threshold, "threshold")
        if not 0.0 <= min_score <= 1.0:
            raise ValueError(f"min_score must lie between 0 and 1, not {min_score}")
        self.min_score = min_score

    async def judge(self, ctx: Context) -> Judgment:
        inputs = rag.require(ctx, "question", "passages", judge=self.name)
        if isinstance(inputs, Judgment):
            return inputs
        question, passages = inputs.question, inputs.passages
        async with asyncio.TaskGroup() as group:
            tasks = [
                group.create_task(
                    ask_yes_no(self.model, "passage_relevance", question=question, passage=passage)
                )
                for passage in passages
            ]
        asked = [task.result() for task in tasks]
        usage = Usage.total(a.usage for a in asked)
        rows: list[dict[str, Any]] = []
        checks: list[Check] = []
        for index, (passage, answer) in enumerate(zip(passages, asked, strict=True)):
            label = f"passage {index + 1}: {' '.join(passage.split())[:PASSAGE_NAME]}"
            if answer.verdict is None:
                rows.append({"passage": index + 1, "cause": answer.cause, "error": answer.error})
                checks.append(Check(label, False, f"ERROR ({answer.cause}): {answer.error}"))
                continue
            p = _p_yes(answer.verdict)
            relevant = p >= self.threshold
            rows.append(
                {
                    "passage": index + 1,
                    "relevant": relevant,
                    "p_yes": answer.verdict.p_yes,
                    "reason": answer.verdict.reason,
                }
            )
            checks.append(Check(label, relevant, f"P(relevant) = {p:.2f}: {answer.verdict.reason}"))
        metadata = {
            "judge": self.name,
            **next((a.metadata for a in asked if a.metadata), {}),
            "passages": rows,
            "threshold": self.threshold,
            "min_score": self.min_score,
        }
        errored = [a for a in asked if a.verdict is None]
        if errored:
            causes = sorted({str(a.cause) for a in errored})
            return Judgment.error(
                f"{len(errored)} of {len(passages)} passages could not be judged "
                f"({', '.join(causes)}): {errored[0].error}",
                checks=checks,
                usage=usage,
                metadata={**metadata, "cause": causes[0] if len(causes) == 1 else "mixed"},
            )
        relevant_count = sum(1 for row in rows if row["relevant"])
        score = relevant_count / len(passages)
        return Judgment(
            Status.PASS if score >= self.min_score else Status.FAIL,
            NumericScore(score),
            f"{relevant_count} of {len(passages)} passages relevant to the question",
            tuple(checks),
            confidence=sum(
                max(_p_yes(a.verdict), 1 - _p_yes(a.verdict)) for a in asked if a.verdict
            )
            / len(asked),
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
        threshold: float = 0.5,
        name: str | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.model = ModelRef(model)
        self.threshold = _threshold(threshold, "threshold")

    async def judge(self, ctx: Context) -> Judgment:
        inputs = rag.require(ctx, "question", "answer", judge=self.name)
        if isinstance(inputs, Judgment):
            return inputs
        asked = await ask_yes_no(
            self.model, "answer_relevance", question=inputs.question, answer=inputs.answer
        )
        metadata = {"judge": self.name, **asked.metadata, "threshold": self.threshold}
        if asked.verdict is None:
            return Judgment.error(
                f"the answer's relevance could not be judged ({asked.cause}): {asked.error}",
                usage=asked.usage,
                metadata={**metadata, "cause": asked.cause},
            )
        p = _p_yes(asked.verdict)
        passed = p >= self.threshold
        return Judgment(
            Status.PASS if passed else Status.FAIL,
            NumericScore(p),
            asked.verdict.reason or ("relevant" if passed else "not relevant"),
            confidence=p if passed else 1.0 - p,
            usage=asked.usage,
            metadata={**metadata, "p_yes": asked.verdict.p_yes, "method": asked.verdict.method},
        )
