"""Verdict: what a jury or cascade decided, and every judgment it decided from."""

import math
from collections.abc import Mapping
from types import MappingProxyType

from pydantic import field_serializer, field_validator

from jurist.core import JsonRoundTrip, Judgment, Status, record


@record
class Verdict(JsonRoundTrip):
    """A jury's aggregated judgment with the individual ones behind it. Immutable.

    `individual` keeps the judges' order; `by_name` and `weights` are keyed by judge name
    (by "tier/judge" in a cascade); `sub_verdicts` holds the verdicts of nested juries (or a
    cascade's tiers), so a verdict is a tree. `to_json()`/`from_json()` round-trip losslessly.
    """

    aggregated: Judgment
    individual: tuple[Judgment, ...]
    by_name: Mapping[str, Judgment]
    weights: Mapping[str, float]
    sub_verdicts: tuple["Verdict", ...] = ()

    @field_validator("weights")
    @classmethod
    def _weights_finite(cls, value: Mapping[str, float]) -> Mapping[str, float]:
        for name, weight in value.items():
            if not math.isfinite(weight) or weight < 0:
                raise ValueError(f"weight of {name!r} must be a finite number >= 0, got {weight}")
        return value

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", MappingProxyType(dict(self.by_name)))
        object.__setattr__(self, "weights", MappingProxyType(dict(self.weights)))

    # A frozen mapping has no JSON form of its own; these hand pydantic plain dicts.
    @field_serializer("by_name")
    def _by_name_dict(self, value: Mapping[str, Judgment]) -> dict[str, Judgment]:
        return dict(value)

    @field_serializer("weights")
    def _weights_dict(self, value: Mapping[str, float]) -> dict[str, float]:
        return dict(value)

    @property
    def status(self) -> Status:
        return self.aggregated.status

    @property
    def passed(self) -> bool:
        return self.aggregated.passed
