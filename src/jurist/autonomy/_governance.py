"""Governance of an improvement cycle: the limits it runs under, the circuit breakers that halt
it, when a human must approve a change, and how closely the meta-judge watches.

Everything here is pure: values in, decisions out. The loop owns the state and makes the calls;
the budget that refuses a model call before it is made lives in `_budget.py`.
"""

import math
import statistics
from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from jurist.core import JuristError, Usage
from jurist.llm import Budget

# Scores and costs are sums and differences of floats, and 0.8 - 0.7 is 0.10000000000000009:
# a value on a bound must count as on it, not past it.
_TOLERANCE = 1e-9

_FROZEN = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

Fraction = Annotated[float, Field(ge=0, le=1)]


class LimitsError(JuristError, ValueError):
    """A limits configuration that cannot be used; the message names the key and the problem."""


class Breakpoint(StrEnum):
    """When a human must approve an accepted change before it takes effect."""

    SIGNIFICANT_CHANGE = "significant_change"
    EVERY = "every"
    NONE = "none"


# How much one adversarial finding of each severity (the protocol's `Severity`) weighs, in
# high-severity findings: two medium ones count as one high one, and low ones (wording, style)
# barely count, so a cycle halts on serious problems, not on nits.
DEFAULT_FINDING_WEIGHTS: Mapping[str, float] = {
    "high": 1.0,
    "medium": 0.5,
    "low": 0.1,
}


class Limits(BaseModel):
    """The bounds one improvement cycle runs within.

    Count limits (iterations, cost, tokens, consecutive failures, adversarial findings) halt the
    cycle when they are reached; `max_regression` is a tolerance and halts when the held-out
    score falls below the best so far by more than it. `max_cost_usd` and `max_tokens` are
    per cycle; None is no limit. `max_tokens` is what bounds a cycle on the embedded model,
    whose calls cost nothing. `max_adversarial_findings` counts in high-severity findings,
    other severities weighing what `finding_weights` says.

    A change is accepted when it improves the score by at least `min_improvement_threshold`;
    it is significant (and, with the default breakpoint, waits for a human) when it moves the
    held-out score by more than `significant_change`, or changes the prompt's length by more
    than `significant_length_ratio` times, either way.
    """

    model_config = _FROZEN

    max_iterations: int = Field(5, ge=1)
    max_cost_usd: float | None = Field(1.0, gt=0)
    max_tokens: int | None = Field(None, ge=1)
    max_consecutive_failures: int = Field(3, ge=1)
    max_regression: Fraction = 0.1
    max_adversarial_findings: float = Field(5.0, gt=0)
    finding_weights: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_FINDING_WEIGHTS), min_length=1
    )
    min_improvement_threshold: Fraction = 0.05
    breakpoint: Breakpoint = Breakpoint.SIGNIFICANT_CHANGE
    significant_change: float = Field(0.2, gt=0, le=1)
    significant_length_ratio: float = Field(1.5, gt=1)

    @field_validator("finding_weights")
    @classmethod
    def _weights(cls, weights: dict[str, float]) -> dict[str, float]:
        for severity, weight in weights.items():
            if not severity.strip():
                raise ValueError("a severity name cannot be empty")
            if weight < 0:
                raise ValueError(f"the weight of {severity!r} must be >= 0, got {weight}")
        lowered = {severity.strip().lower(): weight for severity, weight in weights.items()}
        if len(lowered) != len(weights):
            raise ValueError("severities must differ other than in case")
        return lowered

    def budget(self) -> Budget:
        """A budget holding one cycle to these limits' cost and tokens."""
        return Budget(max_cost_usd=self.max_cost_usd, max_tokens=self.max_tokens)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str = "limits") -> "Limits":
        """Limits from a configuration mapping: jurist's own keys (the fields above), and the
        keys of the spec's master configuration where they mean the same thing:

        - `constraints.max_cost_per_cycle_usd` -> `max_cost_usd`
        - `constraints.max_iterations_per_cycle` -> `max_iterations`
        - `constraints.min_improvement_threshold` -> `min_improvement_threshold`
        - `system.default_human_breakpoints` (a list) -> `breakpoint`, the most demanding named

        jurist's own keys may also sit under `constraints`. The spec's keys that belong to other
        parts of the system (`system.bootstrap_mode`, `judges`, `monitoring`, ...) are skipped;
        any other key is an error, so a misspelt limit is never silently the default.
        """
        values = _collect(data, source)
        try:
            return cls.model_validate({field: value for field, (value, _) in values.items()})
        except ValidationError as exc:
            problems = []
            for error in exc.errors():
                field, *rest = [str(part) for part in error["loc"]] or ["?"]
                where = values[field][1] if field in values else field
                path = ".".join([where, *rest])
                problems.append(f"{source}: {path}: {error['msg']}")
            raise LimitsError("\n".join(problems)) from exc

    @classmethod
    def from_yaml(cls, path: str | Path) -> "Limits":
        """Limits from a YAML file (see `from_mapping` for its keys); an empty file is the
        defaults."""
        path = Path(path)
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LimitsError(f"{path}: cannot be read: {exc}") from exc
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
            problem = getattr(exc, "problem", None) or str(exc)
            raise LimitsError(f"{path}: not valid YAML{at}: {problem}") from exc
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise LimitsError(f"{path}: limits must be a mapping, not {type(data).__name__}")
        return cls.from_mapping(data, source=str(path))


_FIELDS = frozenset(Limits.model_fields)
_SPEC_CONSTRAINTS = {
    "max_cost_per_cycle_usd": "max_cost_usd",
    "max_iterations_per_cycle": "max_iterations",
    "min_improvement_threshold": "min_improvement_threshold",
}
_SPEC_BREAKPOINTS = "default_human_breakpoints"
# Keys of the spec's configuration that configure other parts of the system.
_SPEC_SYSTEM_ELSEWHERE = frozenset({"bootstrap_mode", "max_concurrent_cycles"})
_SPEC_SECTIONS_ELSEWHERE = frozenset({"judges", "monitoring"})
# Most demanding first: of several breakpoints named, the first of these wins.
_BREAKPOINT_ORDER = (Breakpoint.EVERY, Breakpoint.SIGNIFICANT_CHANGE, Breakpoint.NONE)


def _collect(data: Mapping[str, Any], source: str) -> dict[str, tuple[Any, str]]:
    """Each field's value and the key it was read from (for error messages)."""
    values: dict[str, tuple[Any, str]] = {}

    def put(field: str, value: Any, where: str) -> None:
        if field in values:
            raise LimitsError(
                f"{source}: {where} and {values[field][1]} both set {field}; keep one"
            )
        values[field] = (value, where)

    for key, value in data.items():
        if key in _FIELDS:
            put(key, value, key)
        elif key == "constraints":
            for name, item in _section(value, "constraints", source).items():
                where = f"constraints.{name}"
                if name in _SPEC_CONSTRAINTS:
                    put(_SPEC_CONSTRAINTS[name], item, where)
                elif name in _FIELDS:
                    put(name, item, where)
                else:
                    raise LimitsError(f"{source}: {where}: unknown limit{_known()}")
        elif key == "system":
            for name, item in _section(value, "system", source).items():
                where = f"system.{name}"
                if name == _SPEC_BREAKPOINTS:
                    put("breakpoint", _breakpoint(item, where, source), where)
                elif name not in _SPEC_SYSTEM_ELSEWHERE:
                    raise LimitsError(
                        f"{source}: {where}: unknown key (system holds {_SPEC_BREAKPOINTS})"
                    )
        elif key not in _SPEC_SECTIONS_ELSEWHERE:
            raise LimitsError(f"{source}: {key}: unknown key{_known()}")
    return values


def _known() -> str:
    return f" (known: {', '.join(sorted(_FIELDS | set(_SPEC_CONSTRAINTS)))})"


def _section(value: Any, name: str, source: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise LimitsError(f"{source}: {name}: must be a mapping, not {type(value).__name__}")
    return value


def _breakpoint(value: Any, where: str, source: str) -> Breakpoint:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list):
        raise LimitsError(f"{source}: {where}: must be a list of breakpoints")
    named: set[Breakpoint] = set()
    for index, name in enumerate(names):
        try:
            named.add(Breakpoint(name))
        except ValueError:
            known = ", ".join(b.value for b in Breakpoint)
            raise LimitsError(
                f"{source}: {where}[{index}]: unknown breakpoint {name!r} (known: {known})"
            ) from None
    return next((b for b in _BREAKPOINT_ORDER if b in named), Breakpoint.NONE)


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

    model_config = _FROZEN

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

    model_config = _FROZEN

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
    if drop is not None and drop > limits.max_regression + _TOLERANCE:
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
        used[Breaker.REGRESSION] = 1.0 if drop > _TOLERANCE else 0.0
    return used


def limits_approached(
    state: CycleState, limits: Limits, threshold: float = 0.8
) -> tuple[Breaker, ...]:
    """The limits the state has used `threshold` or more of (the spec's "constitutional
    boundary approached"); empty when none."""
    return tuple(
        breaker
        for breaker, used in limit_usage(state, limits).items()
        if used >= threshold - _TOLERANCE
    )


def improves_enough(limits: Limits, old_score: float, new_score: float) -> bool:
    """Whether a score rising from `old_score` to `new_score` is worth a change."""
    return new_score - old_score >= limits.min_improvement_threshold - _TOLERANCE


def _reached(value: float, limit: float) -> bool:
    return value >= limit - _TOLERANCE


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

    model_config = _FROZEN

    old_score: Fraction
    new_score: Fraction
    old_prompt: str
    new_prompt: str


def significance(limits: Limits, change: ProposedChange) -> str | None:
    """Why the change is significant under `limits`, or None when it is not."""
    moved = change.new_score - change.old_score
    if abs(moved) > limits.significant_change + _TOLERANCE:
        direction = "rose" if moved > 0 else "fell"
        return (
            f"held-out score {direction} {abs(moved):.3f} ({change.old_score:.3f} -> "
            f"{change.new_score:.3f}), more than {limits.significant_change:.3f}"
        )
    old, new = len(change.old_prompt), len(change.new_prompt)
    ratio = math.inf if min(old, new) == 0 and old != new else max(old, new) / max(min(old, new), 1)
    if ratio > limits.significant_length_ratio + _TOLERANCE:
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

    model_config = _FROZEN

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
    iteration with every reputation above 0.7 and no recent breaker trip; the spec places it
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
