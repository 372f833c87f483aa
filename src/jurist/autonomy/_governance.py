"""Governance of an improvement cycle: the circuit breakers that halt it, when a human must
approve a change, how steady its improvement is, and how closely the meta-judge watches.

Everything here is pure: values in, decisions out. The loop owns the state and makes the calls;
the limits live in `_limits.py`, and the budget that refuses a model call before it is made is
`jurist.llm.Budgeted`.
"""

import math
import statistics
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field

from jurist.autonomy._limits import (
    FROZEN,
    TOLERANCE,
    Breakpoint,
    Fraction,
    Limits,
)
from jurist.core import Usage

# Circuit breakers


class Breaker(StrEnum):
    """What halted a cycle."""

    ITERATIONS = "iterations"
    COST = "cost"
    TOKENS = "tokens"
    CONSECUTIVE_FAILURES = "consecutive_failures"
    REGRESSION = "regression"
    ADVERSARIAL = "adversarial"


class Halt(BaseModel):
    """A tripped breaker: which one, why in words and numbers, and after which iteration."""

    model_config = FROZEN

    breaker: Breaker
    reason: str
    iteration: int = Field(ge=0)


class CycleState(BaseModel):
    """Where a cycle stands, as the breakers see it. Immutable: each `with_*` and
    `after_iteration` returns the next state.

    `iteration` counts finished iterations. `spent` is the cycle's usage so far; its cost is
    None once any call had no known price, so `cost_usd` keeps the part that was known (the
    cost breaker bounds that, a lower bound of the truth). `findings` counts the adversarial
    judge's findings by severity. `trips` is the history of breakers that tripped.
    """

    model_config = FROZEN

    iteration: int = Field(0, ge=0)
    spent: Usage = Field(default_factory=lambda: Usage(cost_usd=0.0))
    cost_usd: float = Field(0.0, ge=0)
    consecutive_failures: int = Field(0, ge=0)
    best_score: Fraction | None = None
    last_score: Fraction | None = None
    findings: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    trips: tuple[Halt, ...] = ()

    @property
    def cost_known(self) -> bool:
        """Whether every call so far had a known cost, so `cost_usd` is the whole cost."""
        return self.spent.cost_usd is not None

    def with_usage(self, usage: Usage) -> "CycleState":
        """The state after `usage` was spent (a usage of no calls and no tokens changes
        nothing: a deterministic judge's empty usage must not make the cost unknown)."""
        if usage.calls == 0 and usage.total_tokens == 0:
            return self
        spent = self.spent + usage
        return self.model_copy(
            update={"spent": spent, "cost_usd": self.cost_usd + (usage.cost_usd or 0.0)}
        )

    def with_findings(self, findings: Mapping[str, int]) -> "CycleState":
        """The state with more adversarial findings, counted by severity."""
        counts = dict(self.findings)
        for severity, count in findings.items():
            if count < 0:
                raise ValueError(f"findings[{severity!r}] must be >= 0, got {count}")
            key = severity.strip().lower()
            counts[key] = counts.get(key, 0) + count
        return self.model_copy(update={"findings": counts})

    def with_trip(self, halt: Halt) -> "CycleState":
        return self.model_copy(update={"trips": (*self.trips, halt)})

    def after_iteration(
        self,
        *,
        failed: bool,
        held_out_score: float | None = None,
        usage: Usage | None = None,
        findings: Mapping[str, int] | None = None,
    ) -> "CycleState":
        """The state after one more iteration.

        `failed` is the loop's verdict on the iteration (an error, or no accepted change); a
        run of them trips the consecutive-failures breaker. `held_out_score` is the held-out
        score of the prompt in effect after the iteration; leave it None when the prompt did
        not change, so a rejected candidate's score never counts as a regression.
        """
        if held_out_score is not None and not 0 <= held_out_score <= 1:
            raise ValueError(f"held_out_score must be between 0 and 1, got {held_out_score}")
        state = self if usage is None else self.with_usage(usage)
        if findings:
            state = state.with_findings(findings)
        update: dict[str, Any] = {
            "iteration": self.iteration + 1,
            "consecutive_failures": self.consecutive_failures + 1 if failed else 0,
        }
        if held_out_score is not None:
            update["last_score"] = held_out_score
            update["best_score"] = max(held_out_score, self.best_score or 0.0)
        return state.model_copy(update=update)


def finding_load(findings: Mapping[str, int], limits: Limits) -> float:
    """The findings' weight in high-severity findings, per `limits.finding_weights`."""
    load = 0.0
    for severity, count in findings.items():
        weight = limits.finding_weights.get(severity.strip().lower())
        if weight is None:
            known = ", ".join(sorted(limits.finding_weights))
            raise ValueError(
                f"findings: severity {severity!r} has no weight in Limits.finding_weights "
                f"(known: {known})"
            )
        load += weight * count
    return load


def tripped_breakers(state: CycleState, limits: Limits) -> list[Halt]:
    """Every breaker the state trips, money first: cost, tokens, regression, adversarial
    findings, consecutive failures, iterations."""
    halts: list[Halt] = []

    def trip(breaker: Breaker, reason: str) -> None:
        halts.append(Halt(breaker=breaker, reason=reason, iteration=state.iteration))

    if limits.max_cost_usd is not None and _reached(state.cost_usd, limits.max_cost_usd):
        at_least = "" if state.cost_known else " (at least: some calls had no known price)"
        trip(
            Breaker.COST,
            f"cost {_usd(state.cost_usd, limits.max_cost_usd)} USD{at_least} reached the "
            f"cycle's limit of {_usd(limits.max_cost_usd, limits.max_cost_usd)} USD",
        )
    tokens = state.spent.total_tokens
    if limits.max_tokens is not None and tokens >= limits.max_tokens:
        trip(
            Breaker.TOKENS,
            f"{tokens:,} tokens reached the cycle's limit of {limits.max_tokens:,} tokens",
        )
    drop = _drop(state)
    if drop is not None and drop > limits.max_regression + TOLERANCE:
        trip(
            Breaker.REGRESSION,
            f"held-out score {state.last_score:.3f} fell {drop:.3f} below the best so far "
            f"({state.best_score:.3f}), more than the allowed {limits.max_regression:.3f}",
        )
    load = finding_load(state.findings, limits)
    if _reached(load, limits.max_adversarial_findings):
        counts = ", ".join(f"{n} {severity}" for severity, n in sorted(state.findings.items()) if n)
        trip(
            Breaker.ADVERSARIAL,
            f"adversarial findings ({counts}) weigh {load:g} high-severity findings, reaching "
            f"the cycle's limit of {limits.max_adversarial_findings:g}",
        )
    if state.consecutive_failures >= limits.max_consecutive_failures:
        trip(
            Breaker.CONSECUTIVE_FAILURES,
            f"{state.consecutive_failures} consecutive failed iterations reached the limit of "
            f"{limits.max_consecutive_failures}",
        )
    if state.iteration >= limits.max_iterations:
        trip(
            Breaker.ITERATIONS,
            f"{state.iteration} iterations reached the cycle's limit of {limits.max_iterations}",
        )
    return halts


def check_breakers(state: CycleState, limits: Limits) -> Halt | None:
    """The breaker that halts the cycle in this state (the first of `tripped_breakers`), or
    None when it may go on."""
    halts = tripped_breakers(state, limits)
    return halts[0] if halts else None


def limit_usage(state: CycleState, limits: Limits) -> dict[Breaker, float]:
    """How much of each limit the state has used, 0 (none) to 1 (reached) and beyond; limits
    that are not set are left out."""
    used = {
        Breaker.ITERATIONS: state.iteration / limits.max_iterations,
        Breaker.CONSECUTIVE_FAILURES: state.consecutive_failures / limits.max_consecutive_failures,
        Breaker.ADVERSARIAL: finding_load(state.findings, limits) / limits.max_adversarial_findings,
    }
    if limits.max_cost_usd is not None:
        used[Breaker.COST] = state.cost_usd / limits.max_cost_usd
    if limits.max_tokens is not None:
        used[Breaker.TOKENS] = state.spent.total_tokens / limits.max_tokens
    drop = max(_drop(state) or 0.0, 0.0)
    if limits.max_regression > 0:
        used[Breaker.REGRESSION] = drop / limits.max_regression
    else:
        used[Breaker.REGRESSION] = 1.0 if drop > TOLERANCE else 0.0
    return used


def limits_approached(
    state: CycleState, limits: Limits, threshold: float = 0.8
) -> tuple[Breaker, ...]:
    """The limits the state has used `threshold` or more of (a "constitutional
    boundary approached"); empty when none."""
    return tuple(
        breaker
        for breaker, used in limit_usage(state, limits).items()
        if used >= threshold - TOLERANCE
    )


def improves_enough(limits: Limits, old_score: float, new_score: float) -> bool:
    """Whether a score rising from `old_score` to `new_score` is worth a change."""
    return new_score - old_score >= limits.min_improvement_threshold - TOLERANCE


def _reached(value: float, limit: float) -> bool:
    return value >= limit - TOLERANCE


def _drop(state: CycleState) -> float | None:
    if state.best_score is None or state.last_score is None:
        return None
    return state.best_score - state.last_score


def _usd(amount: float, limit: float) -> str:
    """Dollars with enough decimals to tell amounts near `limit` apart (a 0.005 USD limit
    needs more than two)."""
    decimals = max(2, 1 - math.floor(math.log10(limit)))
    return f"{amount:.{decimals}f}"


# Breakpoints


class ProposedChange(BaseModel):
    """An accepted change awaiting the breakpoint policy: the held-out score and prompt before
    and after."""

    model_config = FROZEN

    old_score: Fraction
    new_score: Fraction
    old_prompt: str
    new_prompt: str


def significance(limits: Limits, change: ProposedChange) -> str | None:
    """Why the change is significant under `limits`, or None when it is not."""
    moved = change.new_score - change.old_score
    if abs(moved) > limits.significant_change + TOLERANCE:
        direction = "rose" if moved > 0 else "fell"
        return (
            f"held-out score {direction} {abs(moved):.3f} ({change.old_score:.3f} -> "
            f"{change.new_score:.3f}), more than {limits.significant_change:.3f}"
        )
    old, new = len(change.old_prompt), len(change.new_prompt)
    ratio = math.inf if min(old, new) == 0 and old != new else max(old, new) / max(min(old, new), 1)
    if ratio > limits.significant_length_ratio + TOLERANCE:
        return (
            f"prompt length changed from {old:,} to {new:,} characters, beyond "
            f"{limits.significant_length_ratio:g}x"
        )
    return None


def needs_approval(limits: Limits, change: ProposedChange) -> bool:
    """Whether a human must approve the change before it takes effect."""
    if limits.breakpoint is Breakpoint.EVERY:
        return True
    if limits.breakpoint is Breakpoint.NONE:
        return False
    return significance(limits, change) is not None


# Stability and the meta-judge's involvement

Signed = Annotated[float, Field(ge=-1, le=1)]
NonNegative = Annotated[float, Field(ge=0)]


class StabilityInputs(BaseModel):
    """Per-iteration series that show whether a system of judges has settled.

    `agreement`: the judges' agreement each iteration (0..1). `improvements`: each iteration's
    change of score (-1..1). `breaker_trips`: breakers tripped each iteration. `reputations`:
    each judge's reputation over the iterations (0..1). `costs`: each iteration's cost, in any
    one unit (dollars, or tokens on a free model).
    """

    model_config = FROZEN

    agreement: tuple[Fraction, ...] = ()
    improvements: tuple[Signed, ...] = ()
    breaker_trips: tuple[Annotated[int, Field(ge=0)], ...] = ()
    reputations: dict[str, tuple[Fraction, ...]] = Field(default_factory=dict)
    costs: tuple[NonNegative, ...] = ()


def stability_terms(inputs: StabilityInputs) -> dict[str, float | None]:
    """The five instabilities behind `stability_score`, each in 0 (steady) .. 1 (erratic), or
    None when the series is too short to tell (a spread needs two values, a frequency one).

    Spreads are population standard deviations divided by the largest a series of that range
    can have (half the range, by Popoviciu's inequality), so the terms are in the values' own
    units rather than squared ones, which would make any spread look negligible:

    - `agreement_variation`: spread of agreement (0..1), over 0.5.
    - `improvement_inconsistency`: spread of the improvements (-1..1), over 1.
    - `breaker_frequency`: the share of iterations in which a breaker tripped.
    - `reputation_variation`: each judge's reputation spread (0..1) over 0.5, averaged.
    - `cost_unpredictability`: the costs' coefficient of variation (spread over mean), capped
      at 1; costs have no upper bound, so this relative spread replaces a range, and a spread
      as large as the mean cost itself is as unpredictable as it gets. Free (all zero): 0.
    """
    reputation_spreads = [
        spread
        for series in inputs.reputations.values()
        if (spread := _spread(series, 0.5)) is not None
    ]
    return {
        "agreement_variation": _spread(inputs.agreement, 0.5),
        "improvement_inconsistency": _spread(inputs.improvements, 1.0),
        "breaker_frequency": (
            sum(1 for trips in inputs.breaker_trips if trips) / len(inputs.breaker_trips)
            if inputs.breaker_trips
            else None
        ),
        "reputation_variation": (
            statistics.fmean(reputation_spreads) if reputation_spreads else None
        ),
        "cost_unpredictability": _variation(inputs.costs),
    }


def stability_score(inputs: StabilityInputs) -> float:
    """1 minus the mean of the measurable `stability_terms`, in 0..1: 1 is a system whose
    judges agree steadily, improve at a steady rate, trip no breaker, keep their reputations
    and cost what they cost last time. With nothing measurable yet it is 0: no evidence of
    stability is not stability."""
    known = [term for term in stability_terms(inputs).values() if term is not None]
    if not known:
        return 0.0
    return min(1.0, max(0.0, 1.0 - statistics.fmean(known)))


def _spread(values: tuple[float, ...], largest: float) -> float | None:
    if len(values) < 2:
        return None
    return min(1.0, statistics.pstdev(values) / largest)


def _variation(costs: tuple[float, ...]) -> float | None:
    if len(costs) < 2:
        return None
    mean = statistics.fmean(costs)
    if mean == 0:
        return 0.0
    return min(1.0, statistics.pstdev(costs) / mean)


class Involvement(StrEnum):
    """How closely the meta-judge reviews a cycle."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


def involvement(
    iteration: int,
    reputations: Iterable[float],
    *,
    breaker_recently_tripped: bool,
    successful_iterations: int,
    improvement_consistent: bool,
    approaching_limit: bool,
) -> Involvement:
    """How closely the meta-judge should watch iteration `iteration` (1-based, in its cycle).

    High, reviewing every iteration: in a cycle's first five iterations, near any limit, when
    any judge's reputation is below 0.6, or with no reputations to go on. Low, reviewing only
    on a trigger: after 20 or more successful iterations, with every reputation above 0.85,
    consistent improvement and no recent breaker trip (less oversight than medium cannot
    come with a condition medium forbids). Medium, every third iteration: past the fifth
    iteration with every reputation above 0.7 and no recent breaker trip; it belongs
    at iterations 6-20, where it sits before low takes over, and a long cycle that has not
    earned low stays at medium rather than falling back to high. Anything else: high.
    """
    if iteration < 1:
        raise ValueError(f"iteration counts from 1, got {iteration}")
    scores = list(reputations)
    if iteration <= 5 or approaching_limit or not scores or min(scores) < 0.6:
        return Involvement.HIGH
    if breaker_recently_tripped:
        return Involvement.HIGH
    if successful_iterations >= 20 and min(scores) > 0.85 and improvement_consistent:
        return Involvement.LOW
    if min(scores) > 0.7:
        return Involvement.MEDIUM
    return Involvement.HIGH


def meta_reviews(level: Involvement, iteration: int, *, triggered: bool = False) -> bool:
    """Whether the meta-judge reviews iteration `iteration` (1-based): high, every one; medium,
    every third (3, 6, 9, ...) and on a trigger; low, only on a trigger (a breaker trip, a
    significant change, an adversarial finding: the loop decides what triggers)."""
    if iteration < 1:
        raise ValueError(f"iteration counts from 1, got {iteration}")
    if level is Involvement.HIGH or triggered:
        return True
    return level is Involvement.MEDIUM and iteration % 3 == 0
