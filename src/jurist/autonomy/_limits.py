"""The limits an improvement cycle runs under, read from jurist's own keys or a master
configuration's, and the human breakpoint that decides when a change waits for approval."""

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from jurist.core import JuristError
from jurist.llm import Budget

# Scores and costs are sums and differences of floats, and 0.8 - 0.7 is 0.10000000000000009:
# a value on a bound must count as on it, not past it.
TOLERANCE = 1e-9

FROZEN = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

Fraction = Annotated[float, Field(ge=0, le=1)]


class LimitsError(JuristError, ValueError):
    """A limits configuration that cannot be used; the message names the key and the problem."""


class Breakpoint(StrEnum):
    """When a human must approve an accepted change before it takes effect."""

    SIGNIFICANT_CHANGE = "significant_change"
    EVERY = "every"
    NONE = "none"


# How much one adversarial finding of each severity (the protocol's `FindingSeverity`) weighs, in
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

    model_config = FROZEN

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
        keys of a system-wide configuration (system, judges, constraints) that mean the same:

        - `constraints.max_cost_per_cycle_usd` -> `max_cost_usd`
        - `constraints.max_iterations_per_cycle` -> `max_iterations`
        - `constraints.min_improvement_threshold` -> `min_improvement_threshold`
        - `system.default_human_breakpoints` (a list) -> `breakpoint`, the most demanding named

        jurist's own keys may also sit under `constraints`. Keys that belong to other
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
# Keys of a system-wide configuration that configure other parts of the system.
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
