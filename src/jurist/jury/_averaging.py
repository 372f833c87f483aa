"""Strategies that compare a central value of the votes' scores with a threshold."""

import math
import statistics
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from jurist.core import Fraction, Judgment, NumericScore, Status
from jurist.jury._ballot import Ballot
from jurist.jury._policies import ErrorPolicy
from jurist.jury._tally import Vote, tally

# A mean that float noise puts a hair below the threshold (0.1 + 0.2 style) still reaches it.
_THRESHOLD_TOLERANCE = 1e-9


@dataclass(frozen=True)
class _ThresholdStrategy(ABC):
    # Average, WeightedAverage and Median differ only in how they find the centre.

    threshold: Fraction = 0.5
    errors: ErrorPolicy = ErrorPolicy.TREAT_AS_FAIL
    category_map: Mapping[str, Fraction] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        threshold = self.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must lie in [0, 1], got {threshold}")
        if self.category_map is not None:
            for category, value in self.category_map.items():
                if not 0.0 <= value <= 1.0:
                    raise ValueError(f"category_map[{category!r}] = {value} must lie in [0, 1]")
            object.__setattr__(self, "category_map", MappingProxyType(dict(self.category_map)))

    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def _centre(self, votes: Sequence[Vote], values: Sequence[float]) -> float: ...

    def aggregate(self, ballots: Sequence[Ballot]) -> Judgment:
        counted = tally(self.name, ballots, self.errors)
        settled = counted.settled()
        if settled is not None:
            return settled
        values = [v.value(self.category_map) for v in counted.votes]
        centre = min(1.0, max(0.0, self._centre(counted.votes, values)))
        reached = centre >= self.threshold or math.isclose(
            centre, self.threshold, rel_tol=0.0, abs_tol=_THRESHOLD_TOLERANCE
        )
        status = Status.PASS if reached else Status.FAIL
        relation = ">=" if reached else "<"
        extra: dict[str, Any] = {
            "value": centre,
            "threshold": self.threshold,
            "values": {v.name: value for v, value in zip(counted.votes, values, strict=True)},
        }
        return counted.result(
            status,
            f"{self.name} {centre:.4g} {relation} threshold {self.threshold:g} "
            f"({counted.summary()})",
            score=NumericScore(centre),
            extra=extra,
        )


class Average(_ThresholdStrategy):
    """PASS when the unweighted mean of the votes' values reaches `threshold`.

    A vote's value is its normalised score (a categorical one through `category_map`), or
    1.0 for PASS and 0.0 for FAIL when it has no score; an ERROR counted as a failing vote
    is 0.0. Weights do not matter, except that a weight-0 ballot does not vote. A mean within
    1e-9 of the threshold counts as reaching it. The score is NumericScore(mean).
    """

    @property
    def name(self) -> str:
        return "average"

    def _centre(self, votes: Sequence[Vote], values: Sequence[float]) -> float:
        # fsum is exactly rounded, so the order of the votes cannot change the mean
        return math.fsum(values) / len(values)


class WeightedAverage(_ThresholdStrategy):
    """Like Average, but each vote's value counts in proportion to its ballot's weight."""

    @property
    def name(self) -> str:
        return "weighted_average"

    def _centre(self, votes: Sequence[Vote], values: Sequence[float]) -> float:
        total = math.fsum(v.weight for v in votes)
        weighted = math.fsum(v.weight * value for v, value in zip(votes, values, strict=True))
        return weighted / total


class Median(_ThresholdStrategy):
    """Like Average, but with the median of the votes' values, so outliers cannot sway it."""

    @property
    def name(self) -> str:
        return "median"

    def _centre(self, votes: Sequence[Vote], values: Sequence[float]) -> float:
        return float(statistics.median(values))
