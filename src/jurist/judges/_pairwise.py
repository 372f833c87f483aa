"""PairwiseJudge: which of two outputs answers an instruction better.

A small model asked "1 or 2?" mostly picks by position (the 1.5B embedded model took the
first shown 92 % of the time without a source, the second with one) and by length, so by
default each output is scored on its own against the instruction's requirements
(_pairwise_pointwise), and the direct question is one more signal. The direct question is
asked once with A first and once with B first, and the two readings are combined so that a
preference for a position cancels out: with token probabilities the two orders' P(A better)
are averaged; without them a win needs both orders to agree.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from jurist.core import (
    BaseJudge,
    CategoricalScore,
    Cause,
    Context,
    JudgeKind,
    Judgment,
    Name,
    Report,
    Status,
    Steps,
    Usage,
    gather_ordered,
    to_json_text,
)
from jurist.core import report as report_step
from jurist.judges._ask import Answer, CallPolicy, ModelRef, ask, parameters
from jurist.judges._common import ReportRow
from jurist.judges._computed import miscalculations
from jurist.judges._pairwise_pointwise import (
    PairwiseSignals,
    PairwiseWeights,
    RequirementRow,
    combine,
    instruction_requirements,
    length_ratio,
    p_yes_values,
    probability,
    requirement_lines,
    requirements_judge,
    weights_of,
    with_correctness,
)
from jurist.judges._reading import Unreadable, json_object
from jurist.llm import Model, Request, Response, field_probabilities
from jurist.prompts import Prompt, PromptTemplate, RenderedPrompt, answer_schema
from jurist.rubrics import Rubric, get_rubric

OUTPUT_B = "output_b"


def pairwise_context(instruction: str, a: Any, b: Any, *, reference: Any = None) -> Context:
    """What a pairwise judge looks at: A as the output, B beside it, for `instruction`."""
    return Context(instruction, output=a, reference=reference, metadata={OUTPUT_B: b})


"""The `Context.metadata` key that holds output B; `Context.output` is output A."""

OUTCOMES = ("A", "B", "tie")
_LABELS = ("1", "2")  # one token each in the tokenizers of the models jurist ships with
_CHOICE_FIELD = "better"
_REASON_FIELD = "reason"
_EPSILON = 1e-9

# The reason comes before the choice. Measured on the 1.5B embedded model, three clear
# good/bad pairs, each in both orders: with the choice first, P(good better) averaged over
# the orders was only 0.59-0.66 and the two orders agreed on 1 pair of 3 (the model mostly
# chose whatever was shown second); with a one-sentence reason first it was 0.95-0.97 and
# the orders agreed on all three.
ANSWER_SCHEMA = answer_schema("pairwise")

Side = Literal["A", "B"]


class PairwiseOrder(ReportRow):
    """One order asked: the output shown first, the output its answer prefers, the label it
    stated ("1" or "2", None when unreadable), P("1") and P("2") at the choice (None
    without token probabilities), P(A better) read from them, the reason and the rendered
    prompt's sha256."""

    shown_first: Side
    choice: Side
    stated: str | None
    probabilities: dict[str, float] | None
    p_a: float | None
    reason: str
    prompt_sha256: str


Comparison = Literal["pointwise", "direct"]


class PairwiseReport(Report, kind="pairwise"):
    """A comparison of output A with output B: how it was compared ("pointwise": each
    output scored on the instruction's requirements, with the direct answer as one more
    signal; "direct": the direct answer alone), whether both orders were asked, the tie
    margin, the rubric (None for none), how the direct answer was read ("logprobs" or
    "stated"), P(A better) (None without token probabilities), whether the two orders of
    the direct answer chose the same output (None with one order) and each order asked.

    A pointwise comparison adds the requirements with each output's P(yes), the
    miscalculations a program found in each output, the signals and their weights."""

    both_orders: bool
    tie_margin: float
    rubric: str | None
    method: Literal["logprobs", "stated"]
    p_a: float | None
    position_consistent: bool | None
    orders: tuple[PairwiseOrder, ...]
    comparison: Comparison = "direct"
    requirements: tuple[RequirementRow, ...] = ()
    errors_a: tuple[str, ...] = ()
    errors_b: tuple[str, ...] = ()
    signals: PairwiseSignals | None = None
    weights: PairwiseWeights | None = None


@dataclass(frozen=True)
class _Order:
    """One of the two presentations: which output is shown first, and the prompt."""

    shown_first: Side
    prompt: RenderedPrompt

    def output_for(self, label: str) -> Side:
        """The output ("A" or "B") a shown label ("1" or "2") stands for."""
        first = label == _LABELS[0]
        if self.shown_first == "A":
            return "A" if first else "B"
        return "B" if first else "A"


@dataclass(frozen=True)
class _OrderReading:
    """What one order's answer says, in terms of A and B."""

    order: _Order
    choice: Side  # the output this order's answer prefers
    stated: str | None  # the label the answer states, if readable
    probabilities: dict[str, float] | None  # P("1"), P("2") at the choice token
    reason: str

    @property
    def p_a(self) -> float | None:
        """P(A is better) from this order's probabilities."""
        if self.probabilities is None:
            return None
        label_of_a = _LABELS[0] if self.order.shown_first == "A" else _LABELS[1]
        return self.probabilities[label_of_a]

    def record(self) -> PairwiseOrder:
        return PairwiseOrder(
            shown_first=self.order.shown_first,
            choice=self.choice,
            stated=self.stated,
            probabilities=self.probabilities,
            p_a=self.p_a,
            reason=self.reason,
            prompt_sha256=self.order.prompt.sha256,
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else to_json_text(value)


@dataclass(frozen=True)
class _Read:
    """One answer read, before it is known which order it answers."""

    label: str
    stated: str | None
    probabilities: dict[str, float] | None
    reason: str

    def in_order(self, order: _Order) -> _OrderReading:
        choice = order.output_for(self.label)
        return _OrderReading(order, choice, self.stated, self.probabilities, self.reason)


def _read(response: Response) -> _Read:
    """The preferred output of one order: from the probabilities at the choice when the
    answer carries them, else from the stated choice; Unreadable when neither exists."""
    found = field_probabilities(response.logprobs, _CHOICE_FIELD, _LABELS)
    # The key comes after the reason, so the last occurrence is the real one, whatever the
    # reason happens to quote.
    probabilities = found[-1] if found else None
    stated: str | None = None
    reason = ""
    problem = ""
    try:
        answer = json_object(response)
    except Unreadable as exc:
        problem = str(exc)
    else:
        reason = str(answer.get(_REASON_FIELD, ""))
        value = answer.get(_CHOICE_FIELD)
        if value is None:
            problem = f"the answer has no {_CHOICE_FIELD!r} field"
        elif str(value).strip() in _LABELS:
            stated = str(value).strip()
        else:
            problem = f"{_CHOICE_FIELD!r} is {value!r}, not one of {list(_LABELS)}"
    if probabilities is not None:
        # The probabilities hold the decision even when the rest of the answer is broken.
        label = max(_LABELS, key=lambda lab: probabilities[lab])
    elif stated is not None:
        label = stated
    else:
        raise Unreadable(problem)
    return _Read(label, stated, probabilities, reason)


# A tie only when the evidence is even. Measured on human-labelled pairs that each have a
# better output (bench/pairwise_dev.py), every widening of the band turned right verdicts
# into ties: the evidence of a pointwise comparison is often lopsided by little.
TIE_MARGIN = 0.02


class PairwiseJudge(BaseJudge):
    """Whether output A (`ctx.output`) answers the instruction (`ctx.goal`) better than
    output B (`ctx.metadata[OUTPUT_B]`), optionally against `ctx.reference` and by a
    rubric's criteria.

    `method="pointwise"` (the default) holds each output, on its own, to the same yes/no
    requirements: the rubric's criteria when there is a rubric, else the instruction's own
    requirements as the model lists them from the instruction alone (one call), with a
    correctness requirement added. Each output's requirements are asked in one call and
    P(yes) is read at each answer. A program checks the arithmetic each output states and
    the counts it states over the instruction; each miscalculation counts against its
    output. The direct question ("which is better, 1 or 2?") is asked too, in both orders,
    as one more signal. The signals add up, by `weights`, to the log-odds that A is better;
    a longer output is never favoured for its length (the length weight may only be
    negative).

    `method="direct"` is the direct question alone. With token probabilities, P(A better)
    is the mean of the two orders' probabilities; without them a win needs both orders to
    choose the same output, otherwise it is a tie.

    Either way A wins above P(A better) 0.5 + `tie_margin`, B below 0.5 - `tie_margin`, and
    in between is a tie. The score is categorical ("A", "B" or "tie"); the status is PASS
    when A wins, FAIL when B wins and ABSTAIN on a tie. Confidence is |P(A better) - 0.5| *
    2 (for the direct method without probabilities, 1.0 when the orders agree, 0.0 when
    they do not, None with one order). The `PairwiseReport` records how it was compared,
    each order of the direct answer, whether they chose the same output, and for the
    pointwise method each requirement's P(yes) for A and B, the miscalculations found, the
    signals and the weights.

    A missing output A or B is ABSTAIN naming what is missing. A model failure in any call
    is ERROR with the model error's kind as cause; an unreadable answer is ERROR with cause
    "unparseable".
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        method: Comparison = "pointwise",
        both_orders: bool = True,
        tie_margin: Annotated[float, Field(ge=0.0, lt=0.5)] = TIE_MARGIN,
        weights: PairwiseWeights | None = None,
        rubric: Rubric | str | None = None,
        name: Name | None = None,
        description: str = "",
        template: PromptTemplate | str | Path = "pairwise",
        max_tokens: int = 400,
        temperature: float | None = None,
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name, description)
        if not 0.0 <= tie_margin < 0.5:
            raise ValueError(f"tie_margin must lie in [0, 0.5), not {tie_margin}")
        if method not in ("pointwise", "direct"):
            raise ValueError(f'method must be "pointwise" or "direct", not {method!r}')
        self.model = ModelRef(model)
        self.method: Comparison = method
        self.weights = weights_of(weights)
        self.both_orders = both_orders
        self.tie_margin = tie_margin
        self.rubric = get_rubric(rubric) if isinstance(rubric, str) else rubric
        self.template = PromptTemplate.of(template)
        self.system = PromptTemplate.named("system")
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.policy = (policy or CallPolicy.from_settings()).but(
            max_tokens=max_tokens, temperature=temperature
        )

    async def compare(self, instruction: str, a: Any, b: Any, *, reference: Any = None) -> Judgment:
        """Judge A against B for an instruction: PASS when A is better, FAIL when B is."""
        return await self.judge(pairwise_context(instruction, a, b, reference=reference))

    def _criteria(self) -> list[dict[str, str]]:
        if self.rubric is None:
            return []
        return [{"name": c.name, "description": c.description} for c in self.rubric.criteria]

    def _metadata(self, model: Model, request: Request) -> dict[str, Any]:
        return {
            "judge": self.name,
            "template": self.template.name,
            "model": model.name,
            "parameters": parameters(request),
        }

    async def judge(self, ctx: Context) -> Judgment:
        if ctx.output is None:
            return Judgment.abstain(
                "nothing to compare: the context has no output (output A)",
                metadata={"judge": self.name, "missing": "output"},
            )
        if ctx.metadata.get(OUTPUT_B) is None:
            return Judgment.abstain(
                f"nothing to compare against: the context's metadata has no {OUTPUT_B!r} "
                "(output B)",
                metadata={"judge": self.name, "missing": f"metadata.{OUTPUT_B}"},
            )
        a, b = ctx.output_text(), _text(ctx.metadata[OUTPUT_B])
        direct = await self._direct(ctx, a, b)
        if isinstance(direct, Judgment):
            return direct
        readings, usage, metadata = direct
        if self.method == "direct":
            return self._decide(readings, usage, metadata)
        return await self._pointwise(
            ctx, a=a, b=b, readings=readings, usage=usage, metadata=metadata
        )

    async def _direct(
        self, ctx: Context, a: str, b: str
    ) -> tuple[list[_OrderReading], Usage | None, dict[str, Any]] | Judgment:
        """The direct answer, in one or both orders, or the judgment of why it failed."""
        shown: list[tuple[Side, str, str]] = (
            [("A", a, b), ("B", b, a)] if self.both_orders else [("A", a, b)]
        )
        contract = Prompt(self.template, ANSWER_SCHEMA).reading(_read, logprobs=True)
        got = await gather_ordered(
            (
                ask(
                    self.model,
                    contract,
                    ctx,
                    policy=self.policy,
                    judge=self.name,
                    variables={
                        "instruction": ctx.goal,
                        "first": first_text,
                        "second": second_text,
                        "reference": _reference(ctx),
                        "criteria": self._criteria(),
                    },
                    system=self.system,
                )
                for _, first_text, second_text in shown
            ),
            steps=Steps("direct question, order", len(shown)),
        )
        answers = [g for g in got if isinstance(g, Answer)]
        failed = [g for g in got if isinstance(g, Judgment)]
        if failed:
            # Every call's usage counts, the unreadable answers' too; a model failure is
            # reported before an unreadable answer.
            usage = Usage.total([*(g.usage for g in answers), *(f.usage for f in failed)])
            first = next((f for f in failed if f.cause is not Cause.UNPARSEABLE), failed[0])
            return first.evolve(usage=usage) if first.cause is not Cause.PROMPT else first
        readings = [
            g.value.in_order(_Order(first, g.prompt))
            for g, (first, _, _) in zip(answers, shown, strict=True)
        ]
        usage = Usage.total(g.usage for g in answers)
        return readings, usage, self._metadata(answers[0].model, answers[0].request)

    async def _requirements(self, ctx: Context) -> tuple[list[str], Usage | None] | Judgment:
        """The rubric's criteria when there is a rubric, else the instruction's own
        requirements as the model lists them; a correctness requirement is added unless
        one is there."""
        if self.rubric is not None:
            listed = [f"{c.name}: {c.description}" for c in self.rubric.criteria]
            return with_correctness(listed), None
        report_step("listing the instruction's requirements")
        got = await instruction_requirements(
            ctx, self.model, reference=_reference(ctx), policy=self.policy, judge=self.name
        )
        if isinstance(got, Judgment):
            return got
        return with_correctness(got.value), got.usage

    async def _pointwise(
        self,
        ctx: Context,
        *,
        a: str,
        b: str,
        readings: list[_OrderReading],
        usage: Usage | None,
        metadata: dict[str, Any],
    ) -> Judgment:
        found = await self._requirements(ctx)
        if isinstance(found, Judgment):
            return found.evolve(usage=Usage.total([usage, found.usage]))
        requirements, listed_usage = found
        judge = requirements_judge(requirements, self.model, self.policy, self.name)
        scored: list[Judgment] = []
        for side, output in (("A", a), ("B", b)):
            report_step(f"scoring output {side} on {len(requirements)} requirements")
            # Each output alone: the other is not in its context to be compared against.
            one = Context(ctx.goal, output=output, context=ctx.context, reference=ctx.reference)
            scored.append(await judge.judge(one))
        total = Usage.total([usage, listed_usage, *(j.usage for j in scored)])
        broken = next((j for j in scored if j.status is Status.ERROR), None)
        if broken is not None:
            return broken.evolve(usage=total)
        p_a, p_b = (p_yes_values(j, requirements) for j in scored)
        rows = tuple(
            RequirementRow(requirement=r, p_yes_a=x, p_yes_b=y)
            for r, x, y in zip(requirements, p_a, p_b, strict=True)
        )
        errors_a = [m.reason for m in miscalculations(a, ctx.goal)]
        errors_b = [m.reason for m in miscalculations(b, ctx.goal)]
        direct_values = [r.p_a for r in readings]
        direct_p_a = (
            sum(p for p in direct_values if p is not None) / len(direct_values)
            if all(p is not None for p in direct_values)
            else None
        )
        signals = combine(
            self.weights,
            rows=rows,
            direct_p_a=direct_p_a,
            errors_a=len(errors_a),
            errors_b=len(errors_b),
            length=length_ratio(a, b),
        )
        p_better = probability(signals.log_odds)
        if abs(p_better - 0.5) <= self.tie_margin + _EPSILON:
            outcome = "tie"
        else:
            outcome = "A" if p_better > 0.5 else "B"
        choices = [r.choice for r in readings]
        report = PairwiseReport(
            both_orders=self.both_orders,
            tie_margin=self.tie_margin,
            rubric=self.rubric.id if self.rubric is not None else None,
            method="logprobs" if direct_p_a is not None else "stated",
            p_a=p_better,
            position_consistent=len(set(choices)) == 1 if len(readings) > 1 else None,
            orders=tuple(r.record() for r in readings),
            comparison="pointwise",
            requirements=rows,
            errors_a=tuple(errors_a),
            errors_b=tuple(errors_b),
            signals=signals,
            weights=self.weights,
        )
        headline = {"A": "A is better", "B": "B is better", "tie": "a tie"}[outcome]
        lines = [
            f"{headline}: P(A better) = {p_better:.2f} from the requirements "
            f"(A {signals.requirements:+.2f} in mean P(yes))"
            + ("" if signals.direct is None else f", the direct answer ({signals.direct:+.2f})")
            + (
                f", miscalculations (A {len(errors_a)}, B {len(errors_b)})"
                if errors_a or errors_b
                else ""
            )
            + ".",
            *requirement_lines(rows),
            *(f"A: {e}" for e in errors_a),
            *(f"B: {e}" for e in errors_b),
        ]
        status = {"A": Status.PASS, "B": Status.FAIL, "tie": Status.ABSTAIN}[outcome]
        return Judgment(
            status,
            CategoricalScore(outcome, OUTCOMES),
            "\n".join(lines),
            confidence=abs(p_better - 0.5) * 2,
            usage=total,
            metadata={**metadata, **report.to_metadata()},
        )

    def _decide(
        self, readings: list[_OrderReading], usage: Usage | None, metadata: dict[str, Any]
    ) -> Judgment:
        p_values = [r.p_a for r in readings]
        choices = [r.choice for r in readings]
        consistent = len(set(choices)) == 1 if len(readings) > 1 else None
        p_a: float | None = None
        if all(p is not None for p in p_values):
            method = "logprobs"
            p_a = sum(p for p in p_values if p is not None) / len(p_values)
            # On the margin is a tie; the epsilon keeps float rounding (0.9 and 0.3 average
            # to 0.6000000000000001) from deciding it.
            if abs(p_a - 0.5) <= self.tie_margin + _EPSILON:
                outcome = "tie"
            else:
                outcome = "A" if p_a > 0.5 else "B"
            confidence: float | None = abs(p_a - 0.5) * 2
        else:
            method = "stated"
            outcome = choices[0] if consistent is not False else "tie"
            confidence = None if consistent is None else float(consistent)
        status = {"A": Status.PASS, "B": Status.FAIL, "tie": Status.ABSTAIN}[outcome]
        report = PairwiseReport(
            both_orders=self.both_orders,
            tie_margin=self.tie_margin,
            rubric=self.rubric.id if self.rubric is not None else None,
            method=method,
            p_a=p_a,
            position_consistent=consistent,
            orders=tuple(r.record() for r in readings),
        )
        return Judgment(
            status,
            CategoricalScore(outcome, OUTCOMES),
            _reasoning(outcome, p_a, readings, consistent),
            confidence=confidence,
            usage=usage,
            metadata={**metadata, **report.to_metadata()},
        )


def _reference(ctx: Context) -> str:
    return "" if ctx.reference is None else _text(ctx.reference)


def _reasoning(
    outcome: str,
    p_a: float | None,
    readings: list[_OrderReading],
    consistent: bool | None,
) -> str:
    headline = {"A": "A is better", "B": "B is better", "tie": "a tie"}[outcome]
    if p_a is not None:
        per_order = ", ".join(
            f"{r.order.shown_first} first: {r.p_a:.2f}" for r in readings if r.p_a is not None
        )
        headline += f": P(A better) = {p_a:.2f} ({per_order})"
    else:
        per_order = ", ".join(f"{r.order.shown_first} first: {r.choice}" for r in readings)
        headline += f": chosen {per_order}"
    if consistent is not None:
        headline += (
            "; both orders chose the same output"
            if consistent
            else "; the two orders chose different outputs"
        )
    reasons = [f"({r.order.shown_first} first) {r.reason}" for r in readings if r.reason]
    return "\n".join([headline + ".", *reasons])
