"""Scores: boolean, numeric with bounds, or categorical; all normalisable to 0..1."""

import math
from collections.abc import Mapping
from dataclasses import field
from typing import Annotated, Literal

from pydantic import Field

from jurist.core._record import record


@record
class BooleanScore:
    value: bool
    kind: Literal["boolean"] = field(default="boolean", repr=False, kw_only=True)

    def normalized(self) -> float:
        return 1.0 if self.value else 0.0


@record
class NumericScore:
    value: float
    min: float = 0.0
    max: float = 1.0
    kind: Literal["numeric"] = field(default="numeric", repr=False, kw_only=True)

    def __post_init__(self) -> None:
        for name in ("value", "min", "max"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"NumericScore.{name} must be a finite number")
        if not self.min < self.max:
            raise ValueError(f"NumericScore.min ({self.min}) must be below max ({self.max})")
        if not self.min <= self.value <= self.max:
            raise ValueError(
                f"NumericScore.value {self.value} lies outside [{self.min}, {self.max}]"
            )

    def normalized(self) -> float:
        return (self.value - self.min) / (self.max - self.min)


@record
class CategoricalScore:
    value: str
    allowed: tuple[str, ...]
    kind: Literal["categorical"] = field(default="categorical", repr=False, kw_only=True)

    def __post_init__(self) -> None:
        if not self.allowed:
            raise ValueError("CategoricalScore.allowed must name at least one category")
        if self.value not in self.allowed:
            raise ValueError(
                f"CategoricalScore.value {self.value!r} is not one of {list(self.allowed)}"
            )


Score = Annotated[BooleanScore | NumericScore | CategoricalScore, Field(discriminator="kind")]


def normalize(
    score: BooleanScore | NumericScore | CategoricalScore,
    category_map: Mapping[str, float] | None = None,
) -> float:
    """Map any score to 0..1. A categorical score needs `category_map` (category -> 0..1)."""
    if isinstance(score, CategoricalScore):
        if category_map is None:
            raise ValueError(
                f"categorical score {score.value!r} cannot be normalised without a "
                f"category_map giving each of {list(score.allowed)} a value in 0..1"
            )
        if score.value not in category_map:
            raise ValueError(f"category_map has no value for category {score.value!r}")
        mapped = float(category_map[score.value])
        if not 0.0 <= mapped <= 1.0:
            raise ValueError(f"category_map[{score.value!r}] = {mapped} lies outside 0..1")
        return mapped
    return score.normalized()
