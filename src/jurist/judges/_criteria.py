"""Acceptance criteria: yes/no questions about an output, decided on P(yes).

A small model states "yes" badly but ranks yes against no well, so with token
probabilities the decision is P(yes), renormalised over yes/no at the answer's token,
against a threshold. Without them it is the model's answer and its stated confidence.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import JsonValue

from jurist.core import (
    BaseJudge,
    BooleanScore,
    Cause,
    Check,
    Context,
    JudgeKind,
    Judgment,
    Name,
    NumericScore,
    Report,
    Score,
    Status,
    Text,
    Threshold,
    Usage,
    gather_ordered,
    run_judge,
    threshold_of,
)
from jurist.judges._ask import CallPolicy, ModelRef, ask, model_error_judgment
from jurist.judges._common import ReportRow, omitted_when_none
from jurist.judges._reading import (
    Unreadable,
    json_object,
    numbered_answers,
    stated_confidence,
)
from jurist.llm import Model, ModelError, Response, field_probabilities
from jurist.prompts import Prompt, PromptTemplate, answer_schema

YES_NO = ("yes", "no")
NAME_LENGTH = 80
# The reason is one short sentence: ~120 tokens hold one verdict with room to spare, and
# each further verdict of a together-mode answer adds about as much.
ONE_VERDICT_TOKENS = 120
VERDICTS_KEY = "verdicts"
REASON_CHARS = 300
# Why the answer comes first by default. On the 1.5B embedded model a one-sentence reason
# written first pushes P(yes) to the ends: on four clear toy pairs that helped (the good
# outputs' P(yes) 0.35-0.65 with the answer first, 0.97-1.00 with the reason first), but on
# real SummEval summaries it was confidently wrong (bench/criteria_modes.py, 2026-11-22:
# "The summary names the main person or organisation of the article" got P(yes) 0.00 for
# 7 of 8 summaries that all name one). With the answer first, P(yes) keeps its ranking
# information; `reason_first=True` is there for models that reason well.


def _criterion_text(value: object, argument: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{argument} must be a string, not {type(value).__name__}")
    text = value.strip()
    if not text:
        raise ValueError(f"{argument} is empty: a criterion needs a statement to check")
    return text


def short_name(text: str, limit: int = NAME_LENGTH) -> str:
    """A criterion as a check name: its text, cut at a word boundary when long."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 3].rsplit(" ", 1)[0] or text[: limit - 3]
    return cut.rstrip(" ,;:") + "..."


def _verdict_properties(
    shape: Mapping[str, Any], stated: bool, reason_first: bool
) -> dict[str, Any]:
    """The verdict's properties of the schema file, in the order the model writes them;
    the stated confidence only when the model has no token probabilities to read."""
    first, second = ("reason", "answer") if reason_first else ("answer", "reason")
    properties = {first: shape[first], second: shape[second]}
    if stated:
        properties["confidence"] = shape["confidence"]
    return properties


def criterion_schema(*, stated: bool, reason_first: bool = False) -> dict[str, JsonValue]:
    """The answer to one criterion (criterion.schema.json): `{"answer", "reason"}`, plus
    `"confidence"` when the model has no token probabilities to read."""
    schema: dict[str, Any] = answer_schema("criterion")
    schema["properties"] = _verdict_properties(schema["properties"], stated, reason_first)
    schema["required"] = list(schema["properties"])
    return schema


def criteria_schema(
    count: int, *, stated: bool, reason_first: bool = False
) -> dict[str, JsonValue]:
    """The answer to `count` criteria at once (criteria.schema.json): `{"verdicts": [...]}`
    with exactly one verdict per criterion, each naming its criterion's number (1-based)."""
    schema: dict[str, Any] = answer_schema("criteria")
    verdicts = schema["properties"][VERDICTS_KEY]
    item = verdicts["items"]
    shape = item["properties"]
    item["properties"] = {
        "criterion": {**shape["criterion"], "maximum": count},
        **_verdict_properties(shape, stated, reason_first),
    }
    item["required"] = list(item["properties"])
    verdicts["minItems"] = verdicts["maxItems"] = count
    return schema


# How a verdict's P(yes) was read: at the answer's token, or from the stated confidence.
VerdictMethod = Literal["logprobs", "stated"]


@dataclass(frozen=True)
class CriterionVerdict:
    """One criterion's answer: what the model said, why, and P(yes) when known."""

    said_yes: bool
    reason: str
    p_yes: float | None
    method: VerdictMethod


class CriterionReport(Report, kind="criterion"):
    """One criterion decided: the criterion, the answer the model gave, P(yes) (None when
    the model stated its answer without a confidence), how P(yes) was read, and the
    threshold it was held to."""

    criterion: str
    answer: Literal["yes", "no"]
    p_yes: float | None
    method: VerdictMethod
    threshold: float


class CriterionRow(ReportRow):
    """One criterion of a criteria judgment: its status, P(yes) and how it was read (None
    for one that could not be judged), the confidence in the side decided and the reason;
    `cause` only when it could not be judged, `prompt_sha256` when a call was made."""

    criterion: str
    status: Status
    p_yes: float | None
    confidence: float | None
    method: VerdictMethod | None
    reason: str
    cause: Cause | None = omitted_when_none()
    prompt_sha256: str | None = omitted_when_none()


class CriteriaReport(Report, kind="criteria"):
    """Every criterion's outcome: which were met, not met and not judged, one row each, how
    they were asked (one call each, or all together) and the threshold on P(yes). When some
    could not be judged (an ERROR judgment), `cause` says why (MIXED for several causes)
    and `causes` names each criterion's."""

    mode: Literal["separate", "together"]
    threshold: float
    passed_criteria: tuple[str, ...]
    failed_criteria: tuple[str, ...]
    errored_criteria: tuple[str, ...]
    criteria: tuple[CriterionRow, ...]
    cause: Cause | None = omitted_when_none()
    causes: dict[str, Cause] | None = omitted_when_none()


def read_verdict(
    item: Mapping[str, Any], probabilities: Mapping[str, float] | None, where: str = ""
) -> CriterionVerdict:
    """A verdict from one answer object and, when read, the yes/no probabilities at its
    "answer" token. Without probabilities, P(yes) comes from the stated confidence in the
    stated answer (None when none was stated)."""
    answer = item.get("answer")
    said = answer.strip().lower() if isinstance(answer, str) else None
    if said not in YES_NO:
        raise Unreadable(f'{where}"answer" is {answer!r}, not "yes" or "no"')
    said_yes = said == "yes"
    reason = item.get("reason")
    reason_text = reason.strip() if isinstance(reason, str) else ""
    if probabilities is not None:
        return CriterionVerdict(said_yes, reason_text, float(probabilities["yes"]), "logprobs")
    try:
        stated = stated_confidence(item, "confidence")
    except Unreadable as exc:
        raise Unreadable(f"{where}{exc}") from exc
    p_yes = None if stated is None else (stated if said_yes else 1.0 - stated)
    return CriterionVerdict(said_yes, reason_text, p_yes, "stated")


def _decision(verdict: CriterionVerdict, threshold: float) -> tuple[bool, Score, float | None]:
    """PASS or not, the score, and the confidence in the side decided."""
    if verdict.p_yes is None:
        return verdict.said_yes, BooleanScore(verdict.said_yes), None
    passed = verdict.p_yes >= threshold
    confidence = verdict.p_yes if passed else 1.0 - verdict.p_yes
    # A probability read from tokens is kept as the score, so calibration can rank by it.
    score: Score = (
        NumericScore(verdict.p_yes) if verdict.method == "logprobs" else BooleanScore(passed)
    )
    return passed, score, confidence


def verdict_judgment(
    verdict: CriterionVerdict,
    criterion: str,
    threshold: float,
    *,
    usage: Usage | None,
    metadata: Mapping[str, Any],
) -> Judgment:
    passed, score, confidence = _decision(verdict, threshold)
    report = CriterionReport(
        criterion=criterion,
        answer="yes" if verdict.said_yes else "no",
        p_yes=verdict.p_yes,
        method=verdict.method,
        threshold=threshold,
    )
    return Judgment(
        Status.PASS if passed else Status.FAIL,
        score,
        verdict.reason or f"the model answered {report.answer}",
        confidence=confidence,
        usage=usage,
        metadata={**metadata, **report.to_metadata()},
    )


def _with(judgment: Judgment, **extra: Any) -> Judgment:
    return judgment.evolve(metadata={**judgment.metadata, **extra})


def _read_verdict(response: Response) -> CriterionVerdict:
    found = field_probabilities(response.logprobs, "answer", YES_NO)
    return read_verdict(json_object(response), found[0] if found else None)


async def judge_criterion(
    ctx: Context,
    criterion: str,
    model_ref: ModelRef,
    *,
    threshold: float,
    judge: str,
    policy: CallPolicy,
    max_tokens: int = ONE_VERDICT_TOKENS,
    reason_first: bool = False,
    template: PromptTemplate | None = None,
) -> Judgment:
    """One criterion, one call: PASS when P(yes) reaches `threshold`."""
    try:
        model = model_ref.get()
    except ModelError as exc:
        return _with(model_error_judgment(exc, judge=judge, prompt=None), criterion=criterion)
    stated = not model.capabilities.logprobs
    prompt = Prompt(
        template or PromptTemplate.named("criterion"),
        criterion_schema(stated=stated, reason_first=reason_first),
    )
    got = await ask(
        model,
        prompt.reading(_read_verdict, logprobs=True),
        ctx,
        policy=policy.but(max_tokens=max_tokens),
        judge=judge,
        variables={
            "criterion": criterion,
            "stated_confidence": stated,
            "reason_first": reason_first,
        },
    )
    if isinstance(got, Judgment):
        return _with(got, criterion=criterion)
    return verdict_judgment(
        got.value, criterion, threshold, usage=got.usage, metadata=got.metadata(judge)
    )


class CriterionJudge(BaseJudge):
    """Does the output meet one acceptance criterion? Asks the model yes or no.

    With token probabilities, PASS when P(yes) (renormalised over yes/no) reaches
    `threshold`; the score is P(yes) and the confidence is the probability of the side
    decided. Without them, the model's answer and stated confidence decide. A model failure
    is ERROR with its kind as cause, an unreadable answer ERROR with cause "unparseable".
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        criterion: Text,
        model: Model | str | None = None,
        *,
        threshold: Threshold = 0.5,
        reason_first: bool = False,
        template: PromptTemplate | str | Path = "criterion",
        name: Name | None = None,
        description: str = "",
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name, description)
        self.criterion = _criterion_text(criterion, "criterion")
        self.threshold = threshold_of(threshold)
        self.reason_first = reason_first
        self.template = PromptTemplate.of(template)
        self.model = ModelRef(model)
        self.policy = policy or CallPolicy.from_settings()

    async def judge(self, ctx: Context) -> Judgment:
        return await judge_criterion(
            ctx,
            self.criterion,
            self.model,
            threshold=self.threshold,
            judge=self.name,
            policy=self.policy,
            reason_first=self.reason_first,
            template=self.template,
        )


class CriteriaJudge(BaseJudge):
    """Does the output meet every acceptance criterion? One check per criterion.

    By default each criterion is its own call, all in flight together (the model layer
    bounds how many run at once, and they share the prompt up to the criterion). With
    `together=True` one call answers them all as a JSON array. Any criterion failed makes
    FAIL; otherwise any criterion that could not be judged makes ERROR; otherwise PASS.
    The score is the fraction of criteria met.
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        criteria: Sequence[str],
        model: Model | str | None = None,
        *,
        threshold: Threshold = 0.5,
        together: bool = False,
        reason_first: bool = False,
        template: PromptTemplate | str | Path | None = None,
        name: Name | None = None,
        description: str = "",
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name, description)
        if isinstance(criteria, str):
            raise ValueError("criteria must be a list of criteria, not one string")
        texts = [_criterion_text(c, f"criteria[{i}]") for i, c in enumerate(criteria)]
        if not texts:
            raise ValueError("criteria is empty: give at least one criterion")
        for index, text in enumerate(texts):
            if text in texts[:index]:
                raise ValueError(
                    f"criteria[{index}] repeats criteria[{texts.index(text)}]: {text!r}"
                )
        self.criteria = tuple(texts)
        self.threshold = threshold_of(threshold)
        self.together = together
        self.reason_first = reason_first
        self.template = PromptTemplate.of(
            template if template is not None else ("criteria" if together else "criterion")
        )
        self.model = ModelRef(model)
        self.policy = policy or CallPolicy.from_settings()
        self.judges = tuple(
            CriterionJudge(
                text,
                threshold=self.threshold,
                reason_first=reason_first,
                template=self.template,
                name=self.name,
                policy=self.policy,
            )
            for text in texts
        )
        for judge in self.judges:
            # One lazy reference for all: the model is resolved once, on first use.
            judge.model = self.model

    async def judge(self, ctx: Context) -> Judgment:
        if self.together:
            return await self._together(ctx)
        return await self._separate(ctx)

    async def _separate(self, ctx: Context) -> Judgment:
        results = await gather_ordered(run_judge(judge, ctx) for judge in self.judges)
        first_call = next((r.metadata for r in results if "model" in r.metadata), {})
        extra = {key: first_call[key] for key in ("model", "parameters") if key in first_call}
        usage = Usage.total(r.usage for r in results)
        return self._aggregate(results, usage, {"template": self.template.name, **extra})

    async def _together(self, ctx: Context) -> Judgment:
        count = len(self.criteria)
        try:
            model = self.model.get()
        except ModelError as exc:
            return self._all_errored(model_error_judgment(exc, judge=self.name, prompt=None), {})
        stated = not model.capabilities.logprobs
        prompt = Prompt(
            self.template, criteria_schema(count, stated=stated, reason_first=self.reason_first)
        )
        got = await ask(
            model,
            prompt.reading(lambda response: read_verdicts(response, count), logprobs=True),
            ctx,
            policy=self.policy.but(max_tokens=ONE_VERDICT_TOKENS * count + 40),
            judge=self.name,
            variables={
                "criteria": list(self.criteria),
                "stated_confidence": stated,
                "reason_first": self.reason_first,
            },
        )
        if isinstance(got, Judgment):
            # The error already holds what is known of the call.
            return self._all_errored(got, {})
        call = got.metadata(self.name)
        results = [
            verdict_judgment(verdict, criterion, self.threshold, usage=None, metadata=call)
            for verdict, criterion in zip(got.value, self.criteria, strict=True)
        ]
        return self._aggregate(results, got.usage, call)

    def _all_errored(self, failed: Judgment, call: Mapping[str, Any]) -> Judgment:
        """The one call for every criterion failed: each criterion errored with its cause."""
        each = [failed.evolve(usage=None) for _ in self.criteria]
        return self._aggregate(each, failed.usage, {**call, **failed.metadata})

    def _aggregate(
        self, results: Sequence[Judgment], usage: Usage | None, extra: Mapping[str, Any]
    ) -> Judgment:
        outcomes = list(zip(self.criteria, results, strict=True))
        passed = [c for c, r in outcomes if r.status is Status.PASS]
        failed = [c for c, r in outcomes if r.status is Status.FAIL]
        errored = [c for c, r in outcomes if r.status not in (Status.PASS, Status.FAIL)]
        checks = [_check(c, r) for c, r in outcomes]
        confidences = [r.confidence for r in results if r.confidence is not None]
        # The call's metadata, without what belonged to one criterion's judgment.
        metadata: dict[str, Any] = {
            key: value
            for key, value in extra.items()
            if key not in ("cause", "error", "answer", "criterion")
        }
        metadata["judge"] = self.name
        report = CriteriaReport(
            mode="together" if self.together else "separate",
            threshold=self.threshold,
            passed_criteria=tuple(passed),
            failed_criteria=tuple(failed),
            errored_criteria=tuple(errored),
            criteria=tuple(_row(c, r) for c, r in outcomes),
        )
        total = len(self.criteria)
        confidence = sum(confidences) / len(confidences) if confidences else None
        if failed:
            reasons = "; ".join(
                f"{short_name(c)}: {r.reasoning}" for c, r in outcomes if r.status is Status.FAIL
            )
            return Judgment(
                Status.FAIL,
                NumericScore(len(passed) / total),
                f"{len(failed)} of {total} criteria not met: {reasons}",
                tuple(checks),
                confidence=confidence,
                usage=usage,
                metadata={**metadata, **report.to_metadata()},
            )
        if errored:
            causes = {c: r.cause or Cause.ERROR for c, r in outcomes if c in errored}
            distinct = sorted(set(causes.values()))
            report = report.model_copy(
                update={
                    "cause": distinct[0] if len(distinct) == 1 else Cause.MIXED,
                    "causes": causes,
                }
            )
            metadata.update(report.to_metadata())
            first = next(r for c, r in outcomes if c in errored)
            if first.error_info is not None:
                metadata["error"] = dict(first.error_info)
            # The unreadable answer itself, to see what the model wrote.
            if first.cause is Cause.UNPARSEABLE and "answer" in first.metadata:
                metadata["answer"] = first.metadata["answer"]
            return Judgment.error(
                f"{len(errored)} of {total} criteria could not be judged "
                f"({', '.join(distinct)}): {first.reasoning}",
                checks=checks,
                usage=usage,
                metadata=metadata,
            )
        return Judgment(
            Status.PASS,
            NumericScore(1.0),
            f"all {total} criteria met",
            tuple(checks),
            confidence=confidence,
            usage=usage,
            metadata={**metadata, **report.to_metadata()},
        )


def read_verdicts(response: Response, count: int) -> list[CriterionVerdict]:
    """The verdicts of a together-mode answer, in the order of the criteria.

    Exactly one verdict per criterion number 1..count; a missing, repeated or unknown
    number is unreadable. P(yes) of the k-th verdict written is read at the k-th "answer"
    token; if the answer's tokens do not show one "answer" per verdict, the stated answers
    are used instead.
    """
    answers = numbered_answers(
        response,
        key=VERDICTS_KEY,
        number="criterion",
        count=count,
        items_named="criteria",
        field="answer",
        labels=YES_NO,
    )
    return [read_verdict(a.item, a.probabilities, a.where) for a in answers]


def _check(criterion: str, result: Judgment) -> Check:
    verdict = CriterionReport.of(result)
    if result.status in (Status.PASS, Status.FAIL):
        p_yes = verdict.p_yes if verdict is not None else None
        shown = f" (P(yes) = {p_yes:.2f})" if p_yes is not None else ""
        answer = "yes" if result.passed else "no"
        return Check(short_name(criterion), result.passed, f"{answer}{shown}: {result.reasoning}")
    return Check(short_name(criterion), False, f"{result.status.value}: {result.reasoning}")


def _row(criterion: str, result: Judgment) -> CriterionRow:
    verdict = CriterionReport.of(result)
    sha256 = result.metadata.get("prompt_sha256")
    return CriterionRow(
        criterion=criterion,
        status=result.status,
        p_yes=verdict.p_yes if verdict is not None else None,
        confidence=result.confidence,
        method=verdict.method if verdict is not None else None,
        reason=result.reasoning,
        cause=result.cause,
        prompt_sha256=sha256 if isinstance(sha256, str) else None,
    )
