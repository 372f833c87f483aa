"""What every calibration statistic returns, and the bootstrap that gives it an interval.

Every result is JSON-safe: an undefined statistic (constant inputs, too few items, one
class only) has `value=None` and a `reason`, never a NaN.

Intervals: `n_boot` resamples (0: no interval) drawn by `scipy.stats.bootstrap` with a fixed
`seed`, so a result is reproducible. A resample on which the statistic is undefined (say, all
resampled human scores equal) is dropped and the percentiles come from the rest; when fewer
than half the resamples are defined there is no interval.
"""

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

try:
    import numpy as np
    import numpy.typing as npt
    from scipy import stats
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "jurist.calibration needs the 'calibration' extra: pip install 'jurist[calibration]'"
    ) from exc

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

Coefficient = Literal["pearson", "spearman", "kendall"]
COEFFICIENTS: tuple[Coefficient, ...] = ("pearson", "spearman", "kendall")
KappaWeights = Literal["linear", "quadratic"] | None
AlphaLevel = Literal["interval", "ordinal", "nominal"]
Choice = Literal["A", "B", "tie"]
CHOICES: tuple[Choice, ...] = ("A", "B", "tie")
# A bootstrap interval: low, high, and why there is none.
_Interval = tuple[float | None, float | None, str | None]


@dataclass(frozen=True)
class _Boot:
    """How to bootstrap: resamples (0: none), the seed, the interval's confidence."""

    n_boot: int
    seed: int
    confidence: float

    def __post_init__(self) -> None:
        if isinstance(self.n_boot, bool) or not isinstance(self.n_boot, int) or self.n_boot < 0:
            raise ValueError(f"n_boot: {self.n_boot!r} is not a whole number >= 0")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence: {self.confidence!r} is not between 0 and 1")


# An evaluation must take under 30 s at the 95th percentile.
LATENCY_LIMIT_S = 30.0
# Below this share of defined resamples an interval would describe a different population.
_MIN_DEFINED_SHARE = 0.5


class CalibrationVerdict(StrEnum):
    """Whether a calibration reached its target; stored reports hold these values."""

    PASS = "PASS"
    FAIL = "FAIL"


class Estimate(BaseModel):
    """A statistic and its bootstrap interval over `n` items (or groups). `value` None means
    undefined, and `reason` says why; `reason` also says why an interval is missing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int
    reason: str | None = None

    @model_validator(mode="after")
    def _finite_and_ordered(self) -> "Estimate":
        for name in ("value", "low", "high"):
            number = getattr(self, name)
            if number is not None and not math.isfinite(number):
                raise ValueError(f"Estimate.{name}: {number!r} is not a finite number")
        if (self.low is None) != (self.high is None):
            raise ValueError("Estimate.low and Estimate.high must both be set or both None")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"Estimate.low {self.low} is above Estimate.high {self.high}")
        return self

    @property
    def interval(self) -> tuple[float, float] | None:
        if self.low is None or self.high is None:
            return None
        return (self.low, self.high)

    def format(self, digits: int = 2, *, signed: bool = True) -> str:
        """E.g. ``+0.35 [+0.15, +0.53]``; ``n/a (reason)`` when undefined."""
        if self.value is None:
            return f"n/a ({self.reason})" if self.reason else "n/a"
        spec = f"{'+' if signed else ''}.{digits}f"
        text = format(self.value, spec)
        if self.interval is not None:
            low, high = self.interval
            text += f" [{format(low, spec)}, {format(high, spec)}]"
        return text

    def overlaps(self, other: "Estimate") -> bool | None:
        """Whether the two intervals overlap; None when either has no interval."""
        mine, theirs = self.interval, other.interval
        if mine is None or theirs is None:
            return None
        return mine[0] <= theirs[1] and theirs[0] <= mine[1]


class CorrelationSet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pearson: Estimate
    spearman: Estimate
    kendall: Estimate

    def get(self, coefficient: Coefficient) -> Estimate:
        estimate: Estimate = getattr(self, _check_coefficient(coefficient))
        return estimate


class GroupCorrelations(CorrelationSet):
    """Coefficients computed per group (document) and averaged over the groups that have
    2+ items and varying human and judge scores; `n` of each estimate is `groups_used`."""

    groups_used: int
    groups_skipped: int


class Correlations(BaseModel):
    """Judge vs human over `n` pairs (`missing` left out): pooled over all items and, when
    groups were given, averaged per group ("the G-Eval way")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int
    missing: int
    pooled: CorrelationSet
    per_group: GroupCorrelations | None = None


class ConfusionCounts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int


class BinaryMetrics(BaseModel):
    """Judge verdicts against human labels (True = positive). AUC ranks by `probabilities`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int
    missing: int
    accuracy: Estimate
    balanced_accuracy: Estimate
    f1: Estimate
    auc: Estimate
    counts: ConfusionCounts

    def get(self, metric: str) -> Estimate:
        if metric not in BINARY_METRICS:
            raise ValueError(f"metric: {metric!r} is not one of {', '.join(BINARY_METRICS)}")
        estimate: Estimate = getattr(self, metric)
        return estimate


BINARY_METRICS = ("accuracy", "balanced_accuracy", "f1", "auc")


class PairwiseMetrics(BaseModel):
    """Judge preferences against human ones. `confusion[i][j]` counts items labelled
    `classes[i]` that the judge (in the A-B order) answered `classes[j]`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int
    missing: int
    accuracy: Estimate
    agreement: Estimate
    position_consistency: Estimate | None
    classes: tuple[str, ...] = CHOICES
    confusion: list[list[int]]

    def get(self, metric: str) -> Estimate:
        if metric not in PAIRWISE_METRICS:
            raise ValueError(f"metric: {metric!r} is not one of {', '.join(PAIRWISE_METRICS)}")
        estimate: Estimate | None = getattr(self, metric)
        if estimate is None:
            return Estimate(value=None, n=0, reason="no swapped-order choices were given")
        return estimate


PAIRWISE_METRICS = ("accuracy", "agreement", "position_consistency")


class LatencySummary(BaseModel):
    """Seconds per evaluation; PASS when P95 < `limit_s`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int
    p50: float
    p95: float
    mean: float
    max: float
    limit_s: float = LATENCY_LIMIT_S
    verdict: CalibrationVerdict


# --- the bootstrap ----------------------------------------------------------------------------


def _bootstrap(
    statistic: Callable[[IntArray], FloatArray],
    n: int,
    width: int,
    boot: _Boot,
) -> list[_Interval]:
    """Percentile intervals of the `width` values `statistic` computes from resampled item
    positions. NaN marks a resample on which a value is undefined."""
    if boot.n_boot == 0:
        return [(None, None, None)] * width
    if n < 2:
        return [(None, None, f"no interval from {n} item(s)")] * width

    def on_positions(sample: FloatArray) -> FloatArray:
        return statistic(sample.astype(np.intp))

    with warnings.catch_warnings():
        # Degenerate resamples are expected and handled below; scipy warns about them.
        warnings.simplefilter("ignore")
        result = stats.bootstrap(
            (np.arange(n, dtype=np.float64),),
            on_positions,
            n_resamples=boot.n_boot,
            vectorized=False,
            method="percentile",
            confidence_level=boot.confidence,
            rng=np.random.default_rng(boot.seed),
        )
    distribution = np.asarray(result.bootstrap_distribution, dtype=np.float64).reshape(width, -1)
    tail = 100 * (1 - boot.confidence) / 2
    intervals: list[_Interval] = []
    for row in distribution:
        defined = row[np.isfinite(row)]
        if len(defined) < _MIN_DEFINED_SHARE * boot.n_boot:
            reason = f"no interval: only {len(defined)} of {boot.n_boot} resamples were defined"
            intervals.append((None, None, reason))
        else:
            low, high = np.percentile(defined, [tail, 100 - tail])
            intervals.append((float(low), float(high), None))
    return intervals


def _metric_estimates(
    functions: Sequence[Callable[[IntArray], float | str]],
    n_items: int,
    counts: Sequence[int],
    boot: _Boot,
) -> list[Estimate]:
    """Each function on all items (its value or why it is undefined) with its interval; a
    function returns a reason string where the statistic is undefined."""
    everything = np.arange(n_items, dtype=np.intp)
    values = [function(everything) for function in functions]

    def statistic(index: IntArray) -> FloatArray:
        found = (function(index) for function in functions)
        return np.array([v if isinstance(v, float) else np.nan for v in found], dtype=np.float64)

    if all(isinstance(v, str) for v in values):
        intervals: list[_Interval] = [(None, None, None)] * len(functions)
    else:
        intervals = _bootstrap(statistic, n_items, len(functions), boot)
    estimates = []
    for value, interval, count in zip(values, intervals, counts, strict=True):
        if isinstance(value, str):
            estimates.append(Estimate(value=None, n=count, reason=value))
        else:
            estimates.append(_estimate(value, interval, count))
    return estimates


def _estimate(value: float, interval: _Interval, n: int) -> Estimate:
    low, high, reason = interval
    return Estimate(value=value, low=low, high=high, n=n, reason=reason)


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _floats(values: Sequence[float | None], name: str) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """The values as floats (NaN where missing) and where they are present."""
    array = np.full(len(values), np.nan)
    for position, value in enumerate(values):
        if _missing(value):
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isinf(value):
            raise ValueError(f"{name}[{position}]: {value!r} is not a finite number or None")
        array[position] = float(value)
    return array, ~np.isnan(array)


def _paired_floats(
    first: Sequence[float | None], second: Sequence[float | None]
) -> tuple[FloatArray, FloatArray, list[bool]]:
    a, a_present = _floats(first, "human")
    b, b_present = _floats(second, "judge")
    keep = a_present & b_present
    return a[keep], b[keep], [bool(k) for k in keep]


def _check_lengths(**sequences: Sequence[object] | None) -> None:
    given = {name: len(s) for name, s in sequences.items() if s is not None}
    if len(set(given.values())) > 1:
        sizes = ", ".join(f"{name} has {size}" for name, size in given.items())
        raise ValueError(f"the inputs differ in length: {sizes}")


def _check_coefficient(coefficient: str) -> Coefficient:
    for known in COEFFICIENTS:
        if coefficient == known:
            return known
    raise ValueError(f"coefficient: {coefficient!r} is not one of {', '.join(COEFFICIENTS)}")
