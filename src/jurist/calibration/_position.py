"""Position bias of a pairwise judge: measured, and calibrated out of fold.

A pairwise judge asked in both orders gives, per pair, two readings of P(first shown is
better): one with A shown first (AB), one with B shown first (BA). A judge without position
bias has a mean of 0.5 over all readings; a judge that prefers the first-shown output has
more, and its two orders often choose different outputs.

The calibration removes a constant preference for the first position: on the logit scale,
the offset b = mean logit P(first shown better) is subtracted from every reading,
P' = sigmoid(logit(P) - b). It is fitted leave-one-group-out: each held-out group (a
document) is calibrated with the offset fitted on the pairs of every other group, so what is
reported is out of fold by construction.

    pairs = [PositionPair.from_judgment(doc_id, label, judgment), ...]
    report = position_report(pairs)
    print(report.to_markdown())     # before vs after: bias, first-position rate,
                                    # position consistency, accuracy

A constant logit shift keeps which of a pair's two readings is higher, so the decision of
both orders averaged (P(A) = (P_AB + 1 - P_BA) / 2 against 0.5) is the same before and after;
what it changes is each single order's choice, hence the consistency between the orders.
"""

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict
from scipy.special import expit, logit

from jurist.calibration._estimates import (
    Estimate,
    IntArray,
    _Boot,
    _metric_estimates,
)
from jurist.core import Judgment
from jurist.judges import PairwiseReport

PositionLabel = Literal["A", "B"]
# A reading of exactly 0 or 1 has an infinite logit; for fitting the offset it counts as
# this close to 0 or 1 instead, so one saturated reading cannot make the mean infinite.
DEFAULT_EPSILON = 1e-6


@dataclass(frozen=True)
class PositionPair:
    """One pair judged in both orders: its group (document), the human's preferred output,
    and P(first shown better) with A shown first (`p_first_ab`) and with B shown first
    (`p_first_ba`). A reading of exactly 0.5 counts as choosing the first-shown output, as
    PairwiseJudge reads it."""

    group: str
    label: PositionLabel
    p_first_ab: float
    p_first_ba: float

    def __post_init__(self) -> None:
        if not isinstance(self.group, str) or not self.group.strip():
            raise ValueError(f"group: {self.group!r} is not a non-empty string")
        if self.label not in ("A", "B"):
            raise ValueError(
                f"label: {self.label!r} is not A or B (a position analysis needs a "
                "preferred output; leave ties out)"
            )
        for name in ("p_first_ab", "p_first_ba"):
            _check_probability(getattr(self, name), name)

    @classmethod
    def from_p_a(
        cls, group: str, label: PositionLabel, *, p_a_ab: float, p_a_ba: float
    ) -> "PositionPair":
        """From P(A better) in each order: with B shown first, P(first better) = 1 - P(A)."""
        _check_probability(p_a_ab, "p_a_ab")
        _check_probability(p_a_ba, "p_a_ba")
        return cls(group, label, p_a_ab, 1.0 - p_a_ba)

    @classmethod
    def from_judgment(cls, group: str, label: PositionLabel, judgment: Judgment) -> "PositionPair":
        """From a PairwiseJudge's judgment asked in both orders; a ValueError when it holds
        no pairwise report (an error, or a pair it could not compare) or its orders do not
        give both readings."""
        report = PairwiseReport.of(judgment)
        if report is None:
            raise ValueError(f"the judgment ({judgment.status.value}) holds no pairwise comparison")
        return cls.from_orders(group, label, [order.model_dump() for order in report.orders])

    @classmethod
    def from_orders(
        cls, group: str, label: PositionLabel, orders: Sequence[Mapping[str, Any]]
    ) -> "PositionPair":
        """From PairwiseJudge's per-order records (a pairwise report's `orders`, as
        mappings): each has `shown_first` ("A" or "B") and `p_a` (P(A better), None without
        probabilities)."""
        p_a: dict[str, float] = {}
        for position, order in enumerate(orders):
            where = f"orders[{position}]"
            if not isinstance(order, Mapping):
                raise ValueError(f"{where}: {order!r} is not a mapping")
            shown = order.get("shown_first")
            if shown not in ("A", "B"):
                raise ValueError(f"{where}.shown_first: {shown!r} is not A or B")
            if shown in p_a:
                raise ValueError(f"{where}.shown_first: a second order with {shown} shown first")
            value = order.get("p_a")
            if value is None:
                raise ValueError(
                    f"{where}.p_a: missing; the order has no probability (the model gave no "
                    "token probabilities)"
                )
            _check_probability(value, f"{where}.p_a")
            p_a[shown] = float(value)
        if set(p_a) != {"A", "B"}:
            raise ValueError(
                f"orders: expected one order with A shown first and one with B shown first, "
                f"got {sorted(p_a) or 'none'}"
            )
        return cls.from_p_a(group, label, p_a_ab=p_a["A"], p_a_ba=p_a["B"])

    def shifted(self, offset: float) -> "PositionPair":
        """Both readings with `offset` taken off their logit: sigmoid(logit(P) - offset).
        A reading of exactly 0 or 1 stays where it is."""
        return replace(
            self,
            p_first_ab=float(expit(logit(self.p_first_ab) - offset)),
            p_first_ba=float(expit(logit(self.p_first_ba) - offset)),
        )


def _check_probability(value: object, field: str) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise ValueError(f"{field}: {value!r} is not a probability in [0, 1]")


def _check_epsilon(epsilon: float) -> None:
    if not 0.0 < epsilon < 0.5:
        raise ValueError(f"epsilon: {epsilon!r} is not between 0 and 0.5")


def fit_offset(pairs: Sequence[PositionPair], *, epsilon: float = DEFAULT_EPSILON) -> float:
    """The first-position offset: mean logit P(first shown better) over both orders of every
    pair, readings clipped to [epsilon, 1 - epsilon]."""
    _check_epsilon(epsilon)
    if not pairs:
        raise ValueError("pairs: none to fit an offset on")
    readings = np.array(
        [p for pair in pairs for p in (pair.p_first_ab, pair.p_first_ba)], dtype=np.float64
    )
    return float(np.mean(logit(np.clip(readings, epsilon, 1.0 - epsilon))))


def out_of_fold_offsets(
    pairs: Sequence[PositionPair], *, epsilon: float = DEFAULT_EPSILON
) -> dict[str, float]:
    """Per group, the offset fitted on the pairs of every other group (leave-one-group-out).
    Needs at least two groups."""
    groups = list(dict.fromkeys(pair.group for pair in pairs))
    if len(groups) < 2:
        found = f"only group {groups[0]!r}" if groups else "no pairs"
        raise ValueError(f"pairs: leave-one-group-out needs at least 2 groups, got {found}")
    return {
        group: fit_offset([pair for pair in pairs if pair.group != group], epsilon=epsilon)
        for group in groups
    }


def calibrate_out_of_fold(
    pairs: Sequence[PositionPair], *, epsilon: float = DEFAULT_EPSILON
) -> list[PositionPair]:
    """Each pair with its group's out-of-fold offset taken off both readings."""
    offsets = out_of_fold_offsets(pairs, epsilon=epsilon)
    return [pair.shifted(offsets[pair.group]) for pair in pairs]


class PositionStats(BaseModel):
    """The position measures of one set of readings (or the change between two).

    * position_bias: mean P(first shown better) over both orders of every pair (0.5: none);
    * first_position_rate: share of single-order choices that pick the first-shown output;
    * position_consistency: share of pairs whose two orders choose the same output;
    * accuracy_a_first: share of pairs where the order with A shown first alone chooses the
      output the human preferred;
    * accuracy_both_orders: the same for both orders' P(A) averaged (exactly 0.5, a tie,
      counts as wrong).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    position_bias: Estimate
    first_position_rate: Estimate
    position_consistency: Estimate
    accuracy_a_first: Estimate
    accuracy_both_orders: Estimate


_MEASURES: tuple[tuple[str, str], ...] = (
    ("position_bias", "position bias: mean P(first shown better), 0.5 = none"),
    ("first_position_rate", "first-position preference: share of single-order choices"),
    ("position_consistency", "position consistency: both orders choose the same output"),
    ("accuracy_a_first", "accuracy vs human, one order (A shown first)"),
    ("accuracy_both_orders", "accuracy vs human, both orders averaged"),
)


class PositionReport(BaseModel):
    """Position bias before and after the out-of-fold calibration, and the change (after
    minus before, on the same resamples). `offsets`: per held-out group, the offset fitted
    without it. Intervals resample groups (pairs of one document are not independent); the
    offsets are fitted once, not refitted per resample."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pairs: int
    groups: int
    prefer_a: int
    before: PositionStats
    after: PositionStats
    change: PositionStats
    offsets: dict[str, float]
    epsilon: float
    n_boot: int
    seed: int
    confidence: float

    def to_markdown(self, title: str = "Position bias") -> str:
        offsets = list(self.offsets.values())
        lines = [
            f"## {title}",
            "",
            f"{self.pairs} pairs in {self.groups} groups; humans prefer A in {self.prefer_a}.",
            "",
            "| Measure | Before | After (out of fold) | Change |",
            "|---|---|---|---|",
        ]
        for field, title_of in _MEASURES:
            before: Estimate = getattr(self.before, field)
            after: Estimate = getattr(self.after, field)
            change: Estimate = getattr(self.change, field)
            lines.append(
                f"| {title_of} | {before.format(signed=False)} | {after.format(signed=False)} "
                f"| {change.format()} |"
            )
        lines += [
            "",
            "Calibration: for each held-out group, b = mean logit P(first shown better) over "
            "both orders of the other groups' pairs, applied as P' = sigmoid(logit P - b); "
            f"b ranged from {min(offsets):+.2f} to {max(offsets):+.2f}. A constant logit "
            "shift keeps which order's reading is higher, so the averaged choice (and its "
            "accuracy) cannot change.",
            f"Intervals: {self.confidence:.0%} percentile bootstrap over groups, "
            f"{self.n_boot} resamples, seed {self.seed}; the offsets are fitted once.",
        ]
        return "\n".join(lines) + "\n"


def position_report(
    pairs: Sequence[PositionPair],
    *,
    epsilon: float = DEFAULT_EPSILON,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> PositionReport:
    """The position measures of `pairs` before and after the leave-one-group-out
    calibration, with bootstrap intervals over groups."""
    boot = _Boot(n_boot, seed, confidence)
    offsets = out_of_fold_offsets(pairs, epsilon=epsilon)
    calibrated = [pair.shifted(offsets[pair.group]) for pair in pairs]
    groups = list(offsets)
    members = [
        np.array([i for i, pair in enumerate(pairs) if pair.group == group], dtype=np.intp)
        for group in groups
    ]

    def of_groups(statistic: Callable[[IntArray], float]) -> Callable[[IntArray], float | str]:
        # The bootstrap resamples groups; a statistic reads the pairs of those it drew.
        def on_groups(drawn: IntArray) -> float | str:
            return statistic(np.concatenate([members[g] for g in drawn]))

        return on_groups

    before = _measures(pairs)
    after = _measures(calibrated)
    functions: list[Callable[[IntArray], float | str]] = []
    for field, _ in _MEASURES:
        functions.append(of_groups(before[field]))
    for field, _ in _MEASURES:
        functions.append(of_groups(after[field]))
    for field, _ in _MEASURES:
        functions.append(of_groups(_difference(after[field], before[field])))
    counts = [2 * len(pairs), 2 * len(pairs), len(pairs), len(pairs), len(pairs)] * 3
    found = _metric_estimates(functions, len(groups), counts, boot)
    width = len(_MEASURES)
    return PositionReport(
        pairs=len(pairs),
        groups=len(groups),
        prefer_a=sum(1 for pair in pairs if pair.label == "A"),
        before=_stats(found[:width]),
        after=_stats(found[width : 2 * width]),
        change=_stats(found[2 * width :]),
        offsets=offsets,
        epsilon=epsilon,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )


def _measures(pairs: Sequence[PositionPair]) -> dict[str, Callable[[IntArray], float]]:
    """Each measure as a function of the positions of the pairs it is taken over."""
    ab = np.array([pair.p_first_ab for pair in pairs], dtype=np.float64)
    ba = np.array([pair.p_first_ba for pair in pairs], dtype=np.float64)
    prefer_a = np.array([pair.label == "A" for pair in pairs], dtype=bool)
    # As PairwiseJudge reads an order: the first-shown output unless the second is likelier.
    first_ab, first_ba = ab >= 0.5, ba >= 0.5

    def mean(values: npt.NDArray[Any]) -> float:
        return float(np.mean(values))

    # Both orders averaged: P(A) = (ab + 1 - ba) / 2, above 0.5 exactly when ab > ba.
    return {
        "position_bias": lambda i: mean(np.concatenate([ab[i], ba[i]])),
        "first_position_rate": lambda i: mean(np.concatenate([first_ab[i], first_ba[i]])),
        # AB chooses A when its first is chosen, BA chooses A when its first is not.
        "position_consistency": lambda i: mean(first_ab[i] != first_ba[i]),
        "accuracy_a_first": lambda i: mean(first_ab[i] == prefer_a[i]),
        "accuracy_both_orders": lambda i: mean(np.where(prefer_a[i], ab[i] > ba[i], ab[i] < ba[i])),
    }


def _difference(
    after: Callable[[IntArray], float], before: Callable[[IntArray], float]
) -> Callable[[IntArray], float]:
    return lambda i: after(i) - before(i)


def _stats(estimates: Sequence[Estimate]) -> PositionStats:
    bias, first_rate, consistency, accuracy_a_first, accuracy_both = estimates
    return PositionStats(
        position_bias=bias,
        first_position_rate=first_rate,
        position_consistency=consistency,
        accuracy_a_first=accuracy_a_first,
        accuracy_both_orders=accuracy_both,
    )
