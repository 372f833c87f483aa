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
    threshold_of,
)
from jurist.judges._addressed import masked
from jurist.judges._ask import CallPolicy, ModelRef, ask, model_error_judgment
from jurist.judges._common import omitted_when_none
from jurist.judges._computed import miscalculations
from jurist.judges._criterion_checks import ExactVerdict, exact_verdict
from jurist.judges._reading import (
    Unreadable,
    json_object,
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
# real SummEval summaries it was confidently wrong (the SummEval bench, 2026-11-22:
# "The summary names the main person or organisation of the article" got P(yes) 0.00 for
# 7 of 8 summaries that all name one). With the answer first, P(yes) keeps its ranking
# information; `reason_first=True` is there for models that reason well.


def criterion_text(value: object, argument: str) -> str:
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
# How a criterion was decided: a verdict's reading, or "exact" when a program decided it.
DecisionMethod = Literal["logprobs", "stated", "exact"]


@dataclass(frozen=True)
class CriterionVerdict:
    """One criterion's answer: what the model said, why, and P(yes) when known."""

    said_yes: bool
    reason: str
    p_yes: float | None
    method: VerdictMethod


class CriterionReport(Report, kind="criterion"):
    """One criterion decided: the criterion, the answer given, P(yes) (None when the model
    stated its answer without a confidence), how it was decided (P(yes) read at the token,
    stated, or "exact"), and the threshold it was held to. `exact` is set when a program
    decided the criterion without a model (method "exact"): what it counted or found; P(yes)
    is then 1 or 0. `masked` lists the output's sentences
    addressed to the judge that the model was shown masked."""

    criterion: str
    answer: Literal["yes", "no"]
    p_yes: float | None
    method: DecisionMethod
    threshold: float
    exact: str | None = omitted_when_none()
    computed: tuple[str, ...] | None = omitted_when_none()
    masked: tuple[str, ...] | None = omitted_when_none()


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


def exact_judgment(found: ExactVerdict, criterion: str, threshold: float) -> Judgment:
    """A criterion a program decided: certain, so P(yes) is 1 or 0 and no call is made."""
    report = CriterionReport(
        criterion=criterion,
        answer="yes" if found.met else "no",
        p_yes=1.0 if found.met else 0.0,
        method="exact",
        threshold=threshold,
        exact=found.found,
    )
    return Judgment(
        Status.PASS if found.met else Status.FAIL,
        BooleanScore(found.met),
        f"decided exactly ({found.shape}): {found.found}",
        confidence=1.0,
        metadata=report.to_metadata(),
    )


def computed_evidence(ctx: Context) -> tuple[str, ...]:
    """What a program finds wrong in the output's arithmetic and in the counts it states
    over the task and the sources: a small model checks neither, so the model is shown
    these as evidence before it decides."""
    over = "\n".join([ctx.goal, *ctx.context])
    return tuple(m.reason for m in miscalculations(ctx.output_text(), over))


def with_notes(
    result: Judgment, *, computed: Sequence[str] = (), masked: Sequence[str] = ()
) -> Judgment:
    """The judgment naming what the model was shown besides the output: the program's
    findings (`computed`) and the sentences addressed to the judge it saw masked."""
    verdict = CriterionReport.of(result)
    pairs = (("computed", computed), ("masked", masked))
    notes = {key: tuple(value) for key, value in pairs if value}
    if not notes or verdict is None:
        return result
    return _with(result, **verdict.model_copy(update=notes).to_metadata())


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
    computed: Sequence[str] = (),
) -> Judgment:
    """One criterion, one call: PASS when P(yes) reaches `threshold`. `computed` is what a
    program found wrong in the output (`computed_evidence`), shown to the model; the
    caller notes it in the report (`with_notes`)."""
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
            "computed": list(computed),
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
        exact: bool = True,
        mask_addressed: bool = True,
        template: PromptTemplate | str | Path = "criterion",
        name: Name | None = None,
        description: str = "",
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name, description)
        self.criterion = criterion_text(criterion, "criterion")
        self.threshold = threshold_of(threshold)
        self.reason_first = reason_first
        self.exact = exact
        self.mask_addressed = mask_addressed
        self.template = PromptTemplate.of(template)
        self.model = ModelRef(model)
        self.policy = policy or CallPolicy.from_settings()

    async def judge(self, ctx: Context) -> Judgment:
        found = exact_verdict(self.criterion, ctx.output_text()) if self.exact else None
        if found is not None:
            return exact_judgment(found, self.criterion, self.threshold)
        shown, hidden = masked(ctx) if self.mask_addressed else (ctx, ())
        computed = computed_evidence(ctx) if self.exact else ()
        result = await judge_criterion(
            shown,
            self.criterion,
            self.model,
            threshold=self.threshold,
            judge=self.name,
            policy=self.policy,
            reason_first=self.reason_first,
            template=self.template,
            computed=computed,
        )
        return with_notes(result, computed=computed, masked=hidden)
