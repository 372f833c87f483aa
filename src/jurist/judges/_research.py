"""The research verdict: is a research result ready to present, worth another round, or
insufficient? And what a research loop does next with that verdict.

`ResearchVerdictJudge` asks a model four questions about the findings (coverage, relevance,
constraint compliance, whether the reported confidence is acceptable) and for a verdict.
`decide` turns a verdict into the next step, and `refine_until_pass` runs the
produce-judge-decide loop.
"""

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import ConfigDict, Field

from jurist.core import (
    BaseJudge,
    CategoricalScore,
    Cause,
    Check,
    Context,
    JsonRoundTrip,
    Judge,
    JudgeKind,
    Judgment,
    JuristError,
    Name,
    Report,
    Status,
    record,
    run_judge,
)
from jurist.judges._ask import CallPolicy, ModelRef, ask
from jurist.judges._common import ReportRow
from jurist.judges._reading import Unreadable, json_object, words
from jurist.llm import Model, Response, field_probabilities
from jurist.prompts import Prompt, PromptTemplate, answer_schema

#: `Context.metadata` key of the constraints the research had to respect: a str or a list
#: of str. Absent or None means none were stated.
CONSTRAINTS_KEY = "constraints"
#: `Context.metadata` key of the confidence the researcher reported: a number in 0..1.
#: Absent or None means none was reported.
CONFIDENCE_KEY = "confidence"

VERDICTS = ("PASS", "NEEDS_REFINEMENT", "INSUFFICIENT")
GRADES = ("yes", "partial", "no")
YES_NO = ("yes", "no")
#: The four signals and the labels each may take, in the order the model answers them.
SIGNALS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "coverage": GRADES,
        "relevance": GRADES,
        "constraint_compliance": GRADES,
        "confidence_acceptable": YES_NO,
    }
)

Grade = Literal["yes", "partial", "no"]
YesNo = Literal["yes", "no"]
VerdictLabel = Literal["PASS", "NEEDS_REFINEMENT", "INSUFFICIENT"]

# The answer's free-text fields are bounded in research_verdict.schema.json: a small model
# left to itself writes a paragraph of hint, which costs a minute of generation on two
# cores and can outrun the token limit.
_MAX_TOKENS = 400

# What a researcher is told to do about each weak signal when the model gave no hint.
# Fixed phrases: data, not a prompt.
_HINT_PHRASES: Mapping[str, str] = MappingProxyType(
    {
        "coverage": "cover the parts of the request the findings leave out",
        "relevance": "keep to the subject of the request",
        "constraint_compliance": "respect the constraints: {constraints}",
        "confidence_acceptable": "back the findings with stronger evidence",
    }
)
_FALLBACK_HINT = "revise the findings so they answer the request fully"


class ResearchSignals(ReportRow):
    """The four signals of a research verdict, as settled."""

    coverage: Grade
    relevance: Grade
    constraint_compliance: Grade
    confidence_acceptable: YesNo


class ResearchAdjustment(ReportRow):
    """A rule the model's answer broke and the change it made: `field` went `from` -> `to`."""

    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)

    rule: Literal["min_confidence", "off_topic", "pass_with_no"]
    field: str
    from_: str = Field(alias="from")
    to: str


class ResearchReport(Report, kind="research"):
    """What a research verdict rests on: the settled `signals` and `verdict`, the hint for
    the researcher and where it came from (the model, or built from the weak signals), the
    labels' probabilities and the labels `stated`, every `adjustment` a rule made, and the
    constraints and confidence the researcher reported."""

    method: Literal["logprobs", "stated"]
    signals: ResearchSignals
    verdict: VerdictLabel
    refinement_hint: str
    hint_source: Literal["model", "signals"]
    probabilities: dict[str, dict[str, float]]
    stated: dict[str, str]
    adjustments: tuple[ResearchAdjustment, ...]
    constraints: tuple[str, ...]
    reported_confidence: float | None


class _BadInput(JuristError, ValueError):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field} {problem}")
        self.field = field


@dataclass(frozen=True)
class _Inputs:
    query: str
    findings: str
    constraints: tuple[str, ...]
    confidence: float | None


def _inputs(ctx: Context) -> _Inputs:
    if not ctx.goal.strip():
        raise _BadInput("goal", "is empty: the research query goes in Context.goal")
    raw = ctx.metadata.get(CONSTRAINTS_KEY)
    where = f"metadata[{CONSTRAINTS_KEY!r}]"
    constraints: tuple[str, ...]
    if raw is None:
        constraints = ()
    elif isinstance(raw, str):
        constraints = (raw.strip(),) if raw.strip() else ()
    elif isinstance(raw, Sequence):
        for index, item in enumerate(raw):
            if not isinstance(item, str):
                raise _BadInput(f"{where}[{index}]", f"is a {type(item).__name__}, not a str")
        constraints = tuple(item.strip() for item in raw if item.strip())
    else:
        raise _BadInput(where, f"is a {type(raw).__name__}, not a str or a list of str")
    value = ctx.metadata.get(CONFIDENCE_KEY)
    confidence: float | None = None
    if value is not None:
        where = f"metadata[{CONFIDENCE_KEY!r}]"
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _BadInput(where, f"is {value!r}, not a number in 0..1")
        if not math.isfinite(value) or not 0.0 <= value <= 1.0:
            raise _BadInput(where, f"is {value}, outside 0..1")
        confidence = float(value)
    return _Inputs(ctx.goal.strip(), ctx.output_text(), constraints, confidence)


def _label(value: Any, labels: Sequence[str], field: str) -> str:
    """The label `value` spells, case and separators aside ("Needs refinement")."""
    if isinstance(value, str):
        spelled = "_".join(words(value))
        for label in labels:
            if "_".join(words(label)) == spelled:
                return label
    raise Unreadable(f"{field!r} is {value!r}, not one of {list(labels)}")


@dataclass
class _Answer:
    signals: dict[str, str]
    verdict: str
    reasoning: str
    hint: str
    stated: dict[str, str]
    probabilities: dict[str, dict[str, float]]


def _read(response: Response) -> _Answer:
    """The signals and verdict of an answer: from token probabilities where the answer has
    them (the most probable label of each field), else as stated."""
    answer = json_object(response)
    fields = {**SIGNALS, "verdict": VERDICTS}
    stated: dict[str, str] = {}
    for field, labels in fields.items():
        if field not in answer:
            raise Unreadable(f"the answer has no {field!r} field")
        stated[field] = _label(answer[field], labels, field)
    probabilities: dict[str, dict[str, float]] = {}
    chosen = dict(stated)
    for field, labels in fields.items():
        found = field_probabilities(response.logprobs, field, labels)
        if found and found[0] is not None:
            distribution = found[0]
            probabilities[field] = distribution
            chosen[field] = max(labels, key=lambda label: distribution[label])
    hint = answer.get("refinement_hint")
    return _Answer(
        signals={signal: chosen[signal] for signal in SIGNALS},
        verdict=chosen["verdict"],
        reasoning=str(answer.get("reasoning") or "").strip(),
        hint=str(hint).strip() if hint is not None else "",
        stated=stated,
        probabilities=probabilities,
    )


def _hint_from(signals: Mapping[str, str], constraints: Sequence[str], reasoning: str) -> str:
    listed = "; ".join(constraints) if constraints else "those of the request"
    phrases = [
        _HINT_PHRASES[signal].format(constraints=listed)
        for signal in SIGNALS
        if signals[signal] != "yes"
    ]
    if phrases:
        return "; ".join(phrases)
    return f"{_FALLBACK_HINT}: {reasoning}" if reasoning else _FALLBACK_HINT


@dataclass
class _Settled:
    signals: dict[str, str]
    verdict: str
    confidence: float | None
    adjustments: list[ResearchAdjustment]
    forced: set[str]


def _settle(answer: _Answer, reported: float | None, minimum: float | None) -> _Settled:
    """The answer with the rules applied that a small model may break; each change is
    recorded. The confidence follows the verdict: when a rule changed it, the probability of
    the signal that forced the change."""
    signals = dict(answer.signals)
    verdict = answer.verdict
    confidence = answer.probabilities.get("verdict", {}).get(verdict)
    adjustments: list[ResearchAdjustment] = []
    forced: set[str] = set()

    def certainty(signal: str) -> float | None:
        if signal in forced:
            return 1.0
        distribution = answer.probabilities.get(signal)
        return distribution[signals[signal]] if distribution else None

    def change(rule: str, field: str, to: str) -> None:
        before = verdict if field == "verdict" else signals[field]
        adjustments.append(
            ResearchAdjustment.model_validate(
                {"rule": rule, "field": field, "from": before, "to": to}
            )
        )

    if minimum is not None and reported is not None:
        required = "yes" if reported >= minimum else "no"
        forced.add("confidence_acceptable")
        if signals["confidence_acceptable"] != required:
            change("min_confidence", "confidence_acceptable", required)
            signals["confidence_acceptable"] = required
    if signals["relevance"] == "no" and verdict != "INSUFFICIENT":
        change("off_topic", "verdict", "INSUFFICIENT")
        verdict = "INSUFFICIENT"
        confidence = certainty("relevance")
    elif verdict == "PASS" and "no" in signals.values():
        change("pass_with_no", "verdict", "NEEDS_REFINEMENT")
        verdict = "NEEDS_REFINEMENT"
        known = [c for s in SIGNALS if signals[s] == "no" and (c := certainty(s)) is not None]
        confidence = max(known) if known else None
    return _Settled(signals, verdict, confidence, adjustments, forced)


class ResearchVerdictJudge(BaseJudge):
    """Is a research result ready to present? PASS, NEEDS_REFINEMENT or INSUFFICIENT.

    Reads the query from `ctx.goal`, the findings from `ctx.output`, the constraints from
    `ctx.metadata["constraints"]` and the reported confidence from
    `ctx.metadata["confidence"]` (see CONSTRAINTS_KEY, CONFIDENCE_KEY); a malformed one is
    the caller's mistake and ABSTAIN names it. With token probabilities each field is its
    most probable label and the confidence is the verdict's probability.

    Rules the model may break are enforced, and each change is recorded in
    metadata["adjustments"]: with `min_confidence`, confidence_acceptable is "yes" exactly
    when the reported confidence reaches it; relevance "no" makes the verdict INSUFFICIENT;
    a PASS with any signal "no" becomes NEEDS_REFINEMENT. Rules only ever lower a verdict.
    A NEEDS_REFINEMENT without a hint gets one built from the weak signals.
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        min_confidence: float | None = None,
        template: PromptTemplate | str | Path = "research_verdict",
        name: Name | None = None,
        description: str = "",
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name or "research_verdict", description)
        if min_confidence is not None and (
            isinstance(min_confidence, bool)
            or not isinstance(min_confidence, int | float)
            or not 0.0 <= min_confidence <= 1.0
        ):
            raise ValueError(f"min_confidence must be a number in 0..1, not {min_confidence!r}")
        self.model = ModelRef(model)
        self.min_confidence = None if min_confidence is None else float(min_confidence)
        self.template = PromptTemplate.of(template)
        self.system = PromptTemplate.named("system")
        self.policy = (policy or CallPolicy.from_settings()).but(max_tokens=_MAX_TOKENS)

    async def judge(self, ctx: Context) -> Judgment:
        try:
            inputs = _inputs(ctx)
        except _BadInput as exc:
            return Judgment.abstain(
                f"cannot judge the research: {exc}",
                metadata={"judge": self.name, "cause": Cause.BAD_INPUT, "field": exc.field},
            )
        got = await ask(
            self.model,
            Prompt(self.template, answer_schema("research_verdict")).reading(_read, logprobs=True),
            ctx,
            policy=self.policy,
            judge=self.name,
            variables={
                "query": inputs.query,
                "findings": inputs.findings,
                "constraints": list(inputs.constraints),
                "reported_confidence": _shown(inputs.confidence),
                "min_confidence": _shown(self.min_confidence),
            },
            system=self.system,
        )
        if isinstance(got, Judgment):
            return got
        answer, response = got.value, got.response

        settled = _settle(answer, inputs.confidence, self.min_confidence)
        signals, verdict, adjustments = settled.signals, settled.verdict, settled.adjustments
        hint, hint_source = answer.hint, "model"
        if verdict == "NEEDS_REFINEMENT" and not hint:
            hint = _hint_from(signals, inputs.constraints, answer.reasoning)
            hint_source = "signals"

        reasoning = answer.reasoning or f"verdict {verdict}"
        for change in adjustments:
            reasoning += f" [{change.field} {change.from_} -> {change.to}: {change.rule}]"
        checks = [
            Check(
                signal,
                value == "yes",
                value
                if signal in settled.forced or signal not in answer.probabilities
                else f"{value} (P={answer.probabilities[signal][value]:.2f})",
            )
            for signal, value in signals.items()
        ]
        report = ResearchReport(
            method="logprobs" if "verdict" in answer.probabilities else "stated",
            signals=ResearchSignals.model_validate(signals),
            verdict=verdict,
            refinement_hint=hint,
            hint_source=hint_source,
            probabilities=answer.probabilities,
            stated=answer.stated,
            adjustments=tuple(adjustments),
            constraints=inputs.constraints,
            reported_confidence=inputs.confidence,
        )
        metadata = {**got.metadata(self.name), **report.to_metadata()}
        return Judgment(
            Status.PASS if verdict == "PASS" else Status.FAIL,
            CategoricalScore(verdict, VERDICTS),
            reasoning,
            tuple(checks),
            confidence=settled.confidence,
            usage=response.usage,
            metadata=metadata,
        )


def _shown(number: float | None) -> str | None:
    return None if number is None else f"{number:.2f}"


@record
class ResearchVerdict(JsonRoundTrip):
    """A research verdict as a typed value; `from_judgment` reads it off a judgment."""

    coverage: Grade
    relevance: Grade
    constraint_compliance: Grade
    confidence_acceptable: YesNo
    verdict: VerdictLabel
    reasoning: str = ""
    refinement_hint: str = ""
    confidence: float | None = None

    @classmethod
    def from_judgment(cls, judgment: Judgment) -> "ResearchVerdict":
        """The verdict a ResearchVerdictJudge recorded. A judgment that holds none (an ERROR,
        an ABSTAIN, another judge's) is a ValueError saying so."""
        report = ResearchReport.of(judgment)
        if judgment.status not in (Status.PASS, Status.FAIL) or report is None:
            detail = f": {judgment.reasoning}" if judgment.reasoning else ""
            raise ValueError(
                f"a {judgment.status.value} judgment holds no research verdict{detail}"
            )
        signals = report.signals
        return cls(
            signals.coverage,
            signals.relevance,
            signals.constraint_compliance,
            signals.confidence_acceptable,
            report.verdict,
            reasoning=judgment.reasoning,
            refinement_hint=report.refinement_hint,
            confidence=judgment.confidence,
        )


class Action(StrEnum):
    """What a research loop does next. Values are wire names: stable, lower case."""

    PRESENT = "present"
    RE_DELEGATE = "re_delegate"
    ASK_USER = "ask_user"


@record
class Decision(JsonRoundTrip):
    """The next step: the action, the hint for the researcher (or, when asking the user,
    what is still missing) and why."""

    action: Action
    hint: str = ""
    reason: str = ""


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, not {value}")
    return value


def decide(verdict: ResearchVerdict | Judgment, retry_count: int, max_retries: int) -> Decision:
    """PASS: present. NEEDS_REFINEMENT with retries left (retry_count < max_retries):
    re-delegate with the hint. Anything else: present the best effort and ask the user.

    A judgment that broke (ERROR) or could not tell (ABSTAIN) asks the user, never presents.
    A PASS or FAIL judgment from another judge counts as PASS or NEEDS_REFINEMENT, its
    reasoning being the hint, so any judge can drive the loop.
    """
    _count("retry_count", retry_count)
    _count("max_retries", max_retries)
    if isinstance(verdict, Judgment):
        if verdict.status is Status.ERROR:
            cause = verdict.cause or Cause.ERROR
            return Decision(Action.ASK_USER, "", f"the judge failed ({cause}): {verdict.reasoning}")
        if verdict.status is Status.ABSTAIN:
            return Decision(Action.ASK_USER, "", f"the judge could not tell: {verdict.reasoning}")
        if ResearchReport.of(verdict) is not None:
            verdict = ResearchVerdict.from_judgment(verdict)
            label, hint, reasoning = verdict.verdict, verdict.refinement_hint, verdict.reasoning
        else:
            label = "PASS" if verdict.passed else "NEEDS_REFINEMENT"
            hint = reasoning = verdict.reasoning
    else:
        label, hint, reasoning = verdict.verdict, verdict.refinement_hint, verdict.reasoning
    if label == "PASS":
        return Decision(Action.PRESENT, "", "the findings passed")
    if label == "INSUFFICIENT":
        return Decision(Action.ASK_USER, hint, f"the findings are insufficient: {reasoning}")
    if retry_count < max_retries:
        return Decision(
            Action.RE_DELEGATE, hint, f"needs refinement; retry {retry_count + 1} of {max_retries}"
        )
    return Decision(
        Action.ASK_USER,
        hint,
        f"still needs refinement after {retry_count} of {max_retries} retries",
    )


@dataclass(frozen=True)
class Attempt:
    """One round of the loop: the hint the producer got, what it produced, the verdict."""

    hint: str | None
    findings: Any
    judgment: Judgment
    decision: Decision


@dataclass(frozen=True)
class Refinement:
    """How a refinement loop ended: the last findings, judgment and decision, and every
    attempt in order."""

    findings: Any
    judgment: Judgment
    decision: Decision
    attempts: tuple[Attempt, ...]

    @property
    def passed(self) -> bool:
        return self.decision.action is Action.PRESENT


async def refine_until_pass(
    produce: Callable[[str | None], Awaitable[Any]],
    judge: Judge,
    context: Context,
    *,
    max_retries: int = 2,
) -> Refinement:
    """Produce, judge, decide; re-produce with the hint until the decision is not
    re-delegation. At most `max_retries` + 1 productions.

    `produce(hint)` gets None first, then each refinement hint, and returns the findings,
    which are judged as `context` with that output. It may return a whole Context instead,
    when it reports more than findings (its confidence, say).
    """
    _count("max_retries", max_retries)
    attempts: list[Attempt] = []
    hint: str | None = None
    while True:
        produced = await produce(hint)
        ctx = produced if isinstance(produced, Context) else replace(context, output=produced)
        judgment = await run_judge(judge, ctx)
        decision = decide(judgment, len(attempts), max_retries)
        attempts.append(Attempt(hint, ctx.output, judgment, decision))
        if decision.action is not Action.RE_DELEGATE:
            return Refinement(ctx.output, judgment, decision, tuple(attempts))
        hint = decision.hint
