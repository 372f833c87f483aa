"""Judgment: the one result type every judge returns, and its parts."""

import math
from collections.abc import Iterable, Mapping
from dataclasses import field, replace
from types import MappingProxyType
from typing import Any, Self

from pydantic import field_serializer, field_validator

from jurist.core._cause import Cause
from jurist.core._jsonsafe import to_json_safe
from jurist.core._record import JsonRoundTrip, record
from jurist.core._scores import Score, normalize
from jurist.core._status import Status


@record
class Check:
    """One named sub-result inside a judgment (a schema violation, a keyword, a sub-judge)."""

    name: str
    passed: bool
    message: str = ""

    @classmethod
    def ok(cls, name: str, message: str = "") -> "Check":
        return cls(name, True, message)

    @classmethod
    def fail(cls, name: str, message: str = "") -> "Check":
        return cls(name, False, message)

    @classmethod
    def of(cls, name: str, judgment: "Judgment") -> "Check":
        """A sub-judgment as a check: "status: reasoning" under the sub-judge's name."""
        message = judgment.status.value
        if judgment.reasoning:
            message += f": {judgment.reasoning}"
        return cls(name, judgment.passed, message)


@record
class Usage:
    """What judging cost. An unknown cost or latency is None, never 0.

    Adding usages sums tokens, cost, latency and calls; a sum with any unknown cost is
    unknown. Latency adds up model time, which exceeds wall time when calls ran concurrently.
    `cached_calls` counts the calls answered from the response cache (they cost nothing).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    model: str | None = None
    latency_ms: float | None = None
    calls: int = 0
    cached_calls: int = 0

    def __post_init__(self) -> None:
        if self.input_tokens < 0 or self.output_tokens < 0:
            raise ValueError("Usage token counts cannot be negative")
        if self.calls < 0 or self.cached_calls < 0 or self.cached_calls > max(self.calls, 0):
            raise ValueError("Usage.cached_calls must be between 0 and Usage.calls")
        for name in ("cost_usd", "latency_ms"):
            number = getattr(self, name)
            if number is not None and (not math.isfinite(number) or number < 0):
                raise ValueError(f"Usage.{name} must be a finite number >= 0 or None")

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: "Usage") -> "Usage":
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=_add_known(self.cost_usd, other.cost_usd),
            model=_join_models(self.model, other.model),
            latency_ms=_add_known(self.latency_ms, other.latency_ms),
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
        )

    def __radd__(self, other: object) -> "Usage":
        # sum() starts from 0
        if other == 0:
            return self
        return NotImplemented

    @staticmethod
    def total(usages: Iterable["Usage | None"]) -> "Usage | None":
        """The sum of the known usages, or None when there is none."""
        known = [u for u in usages if u is not None]
        if not known:
            return None
        result = known[0]
        for usage in known[1:]:
            result = result + usage
        return result


def _add_known(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _join_models(a: str | None, b: str | None) -> str | None:
    names: list[str] = []
    for part in (a or "").split("+") + (b or "").split("+"):
        if part and part not in names:
            names.append(part)
    return "+".join(names) or None


@record
class Judgment(JsonRoundTrip):
    """What a judge concluded. Immutable; `to_json()`/`from_json()` round-trip losslessly.

    `metadata` must hold JSON-safe data; it is converted on construction (tuples to
    lists, paths to strings, ...) and frozen, and anything with no JSON form is an error
    naming its key.
    """

    status: Status
    score: Score | None = None
    reasoning: str = ""
    checks: tuple[Check, ...] = ()
    confidence: float | None = None
    usage: Usage | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @field_validator("confidence")
    @classmethod
    def _confidence_in_range(cls, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError("confidence must lie in 0..1")
        return value

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_json_safe(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError("metadata must be a mapping with string keys")
        return to_json_safe(value, "metadata")

    def __post_init__(self) -> None:
        # Frozen all the way down: a judgment's metadata cannot change after the fact.
        object.__setattr__(self, "metadata", _freeze(self.metadata))

    @field_serializer("metadata")
    def _metadata_dict(self, value: Mapping[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = to_json_safe(value, "metadata")
        return result

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    # Factories. `ok` rather than `pass`, which Python reserves.
    @classmethod
    def ok(
        cls,
        reasoning: str = "",
        *,
        score: Score | None = None,
        checks: Iterable[Check] = (),
        confidence: float | None = None,
        usage: Usage | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Self:
        return cls(Status.PASS, score, reasoning, tuple(checks), confidence, usage, metadata or {})

    @classmethod
    def fail(
        cls,
        reasoning: str = "",
        *,
        score: Score | None = None,
        checks: Iterable[Check] = (),
        confidence: float | None = None,
        usage: Usage | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Self:
        return cls(Status.FAIL, score, reasoning, tuple(checks), confidence, usage, metadata or {})

    @classmethod
    def abstain(
        cls,
        reasoning: str = "",
        *,
        checks: Iterable[Check] = (),
        usage: Usage | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Self:
        return cls(Status.ABSTAIN, None, reasoning, tuple(checks), None, usage, metadata or {})

    @classmethod
    def error(
        cls,
        reason: str,
        exc: BaseException | None = None,
        *,
        checks: Iterable[Check] = (),
        usage: Usage | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Self:
        """A judge broke. The exception's type and message are kept in metadata['error']."""
        meta = dict(metadata or {})
        if exc is not None:
            meta["error"] = {"type": qualified_type(exc), "message": str(exc)}
        return cls(Status.ERROR, None, reason, tuple(checks), None, usage, meta)

    @property
    def error_info(self) -> Mapping[str, str] | None:
        """The recorded exception (type and message) of an ERROR judgment, if any."""
        info = self.metadata.get("error")
        return info if isinstance(info, Mapping) else None

    @property
    def cause(self) -> Cause | None:
        """Why an ERROR judgment could not decide, when its metadata names a known cause."""
        return Cause.of(self.metadata.get("cause"))

    def evolve(self, **changes: Any) -> Self:
        """A copy with some fields changed (validated like a new judgment)."""
        return replace(self, **changes)


def normalized_score(judgment: Judgment) -> float | None:
    """The judgment's score in 0..1 (`normalize`); None without a score, or for a
    categorical one, which has no number without a category map."""
    if judgment.score is None:
        return None
    try:
        return normalize(judgment.score)
    except ValueError:
        return None


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def qualified_type(exc: BaseException) -> str:
    kind = type(exc)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
