"""Agreement between a judge and humans: correlations, classification metrics, pairwise
preferences, kappa and alpha, each with a percentile bootstrap interval; and latency (QV-04).

Every result is JSON-safe: an undefined statistic (constant inputs, too few items, one
class only) has `value=None` and a `reason`, never a NaN. Missing judge answers (None) are
left out of every statistic and counted as `missing`.

Intervals: `n_boot` resamples (0: no interval) drawn by `scipy.stats.bootstrap` with a fixed
`seed`, so a result is reproducible. A resample on which the statistic is undefined (say, all
resampled human scores equal) is dropped and the percentiles come from the rest; when fewer
than half the resamples are defined there is no interval.
"""

import math
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

try:
    import krippendorff
    import numpy as np
    import numpy.typing as npt
    from scipy import stats
    from sklearn import metrics
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


# QV-04: an evaluation takes under 30 s at the 95th percentile.
LATENCY_LIMIT_S = 30.0
# Below this share of defined resamples an interval would describe a different population.
_MIN_DEFINED_SHARE = 0.5


class Verdict(StrEnum):
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
    """Seconds per evaluation; QV-04 passes when P95 < `limit_s`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int
    p50: float
    p95: float
    mean: float
    max: float
    limit_s: float = LATENCY_LIMIT_S
    verdict: Verdict


# --- correlations ----------------------------------------------------------------------


def correlations(
    human: Sequence[float | None],
    judge: Sequence[float | None],
    *,
    groups: Sequence[Hashable] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Correlations:
    """Pearson, Spearman and Kendall (tau-b) between human and judge scores.

    Pooled: over all pairs, the interval from resampling pairs. Per group (when `groups`, e.g.
    document ids, are given): each coefficient per group, averaged over the groups with 2+
    pairs where neither side is constant; the interval from resampling those groups.
    A pair with a None or NaN on either side is left out and counted as missing.
    """
    boot = _Boot(n_boot, seed, confidence)
    _check_lengths(human=human, judge=judge, groups=groups)
    h, j, keep = _paired_floats(human, judge)
    pooled = _pooled_correlations(h, j, boot)
    per_group = None
    if groups is not None:
        kept_groups = [g for g, k in zip(groups, keep, strict=True) if k]
        per_group = _grouped_correlations(h, j, kept_groups, boot)
    return Correlations(n=len(h), missing=len(human) - len(h), pooled=pooled, per_group=per_group)


def _pooled_correlations(h: FloatArray, j: FloatArray, boot: _Boot) -> CorrelationSet:
    n = len(h)
    reason = _correlation_problem(h, j)
    if reason is not None:
        return _undefined_set(n, reason)
    values = _coefficients(h, j)

    def statistic(index: IntArray) -> FloatArray:
        return _coefficients(h[index], j[index])

    intervals = _bootstrap(statistic, n, 3, boot)
    return _estimate_set(values, intervals, n)


def _grouped_correlations(
    h: FloatArray,
    j: FloatArray,
    groups: Sequence[Hashable],
    boot: _Boot,
) -> GroupCorrelations:
    members: dict[Hashable, list[int]] = {}
    for position, group in enumerate(groups):
        members.setdefault(group, []).append(position)
    rows = []
    for positions in members.values():
        index = np.asarray(positions, dtype=np.intp)
        if _correlation_problem(h[index], j[index]) is None:
            rows.append(_coefficients(h[index], j[index]))
    used, skipped = len(rows), len(members) - len(rows)
    if not rows:
        reason = "no group has 2+ items with varying human and judge scores"
        empty = _undefined_set(0, reason)
        return GroupCorrelations(**dict(empty), groups_used=0, groups_skipped=skipped)
    per_group = np.vstack(rows)

    def statistic(index: IntArray) -> FloatArray:
        mean: FloatArray = per_group[index].mean(axis=0)
        return mean

    values: FloatArray = per_group.mean(axis=0)
    intervals = _bootstrap(statistic, used, 3, boot)
    result = _estimate_set(values, intervals, used)
    return GroupCorrelations(**dict(result), groups_used=used, groups_skipped=skipped)


def _coefficients(h: FloatArray, j: FloatArray) -> FloatArray:
    if _correlation_problem(h, j) is not None:
        return np.full(3, np.nan)
    return np.array(
        [
            stats.pearsonr(h, j).statistic,
            stats.spearmanr(h, j).statistic,
            stats.kendalltau(h, j).statistic,
        ],
        dtype=np.float64,
    )


def _correlation_problem(h: FloatArray, j: FloatArray) -> str | None:
    if len(h) < 2:
        return f"{len(h)} pair(s); a correlation needs 2 or more"
    human_constant, judge_constant = bool(np.ptp(h) == 0), bool(np.ptp(j) == 0)
    if human_constant and judge_constant:
        return "the human and the judge scores are both constant"
    if human_constant:
        return "the human scores are constant"
    if judge_constant:
        return "the judge scores are constant"
    return None


def _undefined_set(n: int, reason: str) -> CorrelationSet:
    undefined = Estimate(value=None, n=n, reason=reason)
    return CorrelationSet(pearson=undefined, spearman=undefined, kendall=undefined)


def _estimate_set(values: FloatArray, intervals: list[_Interval], n: int) -> CorrelationSet:
    pearson, spearman, kendall = (
        _estimate(float(value), interval, n)
        for value, interval in zip(values, intervals, strict=True)
    )
    return CorrelationSet(pearson=pearson, spearman=spearman, kendall=kendall)


# --- binary and pairwise ---------------------------------------------------------------


def binary_metrics(
    labels: Sequence[bool],
    predictions: Sequence[bool | None],
    probabilities: Sequence[float | None] | None = None,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> BinaryMetrics:
    """Accuracy, balanced accuracy, F1 (positive: True) and ROC AUC of `probabilities` (the
    judge's probability of True) against human `labels`, with bootstrap intervals.

    A None prediction is missing: left out of accuracy, balanced accuracy, F1 and the counts.
    AUC uses the items that have a probability, whatever their prediction.
    """
    boot = _Boot(n_boot, seed, confidence)
    _check_lengths(labels=labels, predictions=predictions, probabilities=probabilities)
    y = np.array([bool(label) for label in labels], dtype=bool)
    predicted = np.array([p is not None for p in predictions], dtype=bool)
    p = np.array([bool(p) for p in predictions], dtype=bool)
    if probabilities is None:
        scored = np.zeros(len(y), dtype=bool)
        s = np.zeros(len(y))
    else:
        s, scored = _floats(probabilities, "probabilities")
    functions: list[Callable[[IntArray], float | str]] = [
        lambda i: _accuracy(y[i][predicted[i]], p[i][predicted[i]]),
        lambda i: _balanced_accuracy(y[i][predicted[i]], p[i][predicted[i]]),
        lambda i: _f1(y[i][predicted[i]], p[i][predicted[i]]),
        lambda i: _auc(y[i][scored[i]], s[i][scored[i]], probabilities is None),
    ]
    accuracy, balanced, f1, auc = _metric_estimates(
        functions,
        len(y),
        [int(predicted.sum())] * 3 + [int(scored.sum())],
        boot,
    )
    tn, fp, fn, tp = (
        int(c)
        for c in metrics.confusion_matrix(y[predicted], p[predicted], labels=[False, True]).ravel()
    )
    return BinaryMetrics(
        n=int(predicted.sum()),
        missing=int((~predicted).sum()),
        accuracy=accuracy,
        balanced_accuracy=balanced,
        f1=f1,
        auc=auc,
        counts=ConfusionCounts(
            true_positive=tp, false_positive=fp, true_negative=tn, false_negative=fn
        ),
    )


def _accuracy(y: npt.NDArray[np.bool_], p: npt.NDArray[np.bool_]) -> float | str:
    if len(y) == 0:
        return "no predictions"
    return float(metrics.accuracy_score(y, p))


def _balanced_accuracy(y: npt.NDArray[np.bool_], p: npt.NDArray[np.bool_]) -> float | str:
    if len(np.unique(y)) < 2:
        return "needs both true and false labels"
    return float(metrics.balanced_accuracy_score(y, p))


def _f1(y: npt.NDArray[np.bool_], p: npt.NDArray[np.bool_]) -> float | str:
    if not y.any() and not p.any():
        return "no true labels and no true predictions"
    return float(metrics.f1_score(y, p, zero_division=0.0))


def _auc(y: npt.NDArray[np.bool_], s: FloatArray, no_probabilities: bool) -> float | str:
    if no_probabilities:
        return "no probabilities were given"
    if len(np.unique(y)) < 2:
        return "needs both true and false labels among items with a probability"
    return float(metrics.roc_auc_score(y, s))


def pairwise_metrics(
    labels: Sequence[str],
    choices_ab: Sequence[str | None],
    choices_ba: Sequence[str | None] | None = None,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> PairwiseMetrics:
    """How a judge's preferences (A, B or tie; None: no answer) match human `labels`.

    * accuracy: over items whose label is not tie, the share the judge got right (a judge's
      tie there counts as wrong);
    * agreement: over all answered items, the share that match exactly, ties included;
    * position consistency: `choices_ba` are the judge's answers with the outputs shown in
      swapped order (its "A" is output_b); the share of items answered both ways where the two
      answers name the same output (or are both tie).
    """
    boot = _Boot(n_boot, seed, confidence)
    _check_lengths(labels=labels, choices_ab=choices_ab, choices_ba=choices_ba)
    truth = np.array([_choice(c, f"labels[{i}]") for i, c in enumerate(labels)], dtype=object)
    ab = np.array(
        [_choice(c, f"choices_ab[{i}]", True) for i, c in enumerate(choices_ab)], dtype=object
    )
    answered = np.array([c is not None for c in ab], dtype=bool)
    decisive = answered & (truth != "tie")
    correct = answered & (ab == truth)
    estimates_n = [int(decisive.sum()), int(answered.sum())]
    functions: list[Callable[[IntArray], float | str]] = [
        lambda i: _share(correct[i], decisive[i], "no answered item has an A or B label"),
        lambda i: _share(correct[i], answered[i], "no answered items"),
    ]
    if choices_ba is not None:
        swapped = {"A": "B", "B": "A", "tie": "tie"}
        ba = [_choice(c, f"choices_ba[{i}]", True) for i, c in enumerate(choices_ba)]
        both = answered & np.array([c is not None for c in ba], dtype=bool)
        consistent = both & (ab == np.array([swapped.get(c or "") for c in ba], dtype=object))
        functions.append(lambda i: _share(consistent[i], both[i], "no item answered both ways"))
        estimates_n.append(int(both.sum()))
    found = _metric_estimates(functions, len(truth), estimates_n, boot)
    confusion = metrics.confusion_matrix(
        list(truth[answered]), list(ab[answered]), labels=list(CHOICES)
    )
    return PairwiseMetrics(
        n=int(answered.sum()),
        missing=int((~answered).sum()),
        accuracy=found[0],
        agreement=found[1],
        position_consistency=found[2] if choices_ba is not None else None,
        confusion=[[int(c) for c in row] for row in confusion],
    )


def _choice(value: str | None, where: str, missing_ok: bool = False) -> Choice | None:
    if value is None and missing_ok:
        return None
    word = value.strip().lower() if isinstance(value, str) else None
    for choice in CHOICES:
        if word == choice.lower():
            return choice
    raise ValueError(f"{where}: {value!r} is not A, B or tie")


def _share(hits: npt.NDArray[np.bool_], among: npt.NDArray[np.bool_], empty: str) -> float | str:
    total = int(among.sum())
    if total == 0:
        return empty
    return int((hits & among).sum()) / total


# --- kappa and alpha -------------------------------------------------------------------


def cohen_kappa(
    a: Sequence[float | str | None],
    b: Sequence[float | str | None],
    weights: KappaWeights = None,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Estimate:
    """Cohen's kappa between two raters (sklearn), over the items both rated (None: not rated).

    Numbers are rounded half up to integers first, so continuous 1-5 scores (a mean of
    experts, a judge's expected score) are compared as the integer scores they are nearest
    to. Weighted kappa ("linear", "quadratic") counts a disagreement by its distance on the
    integer scale from the lowest to the highest score seen; strings (labels) allow only
    unweighted kappa.
    """
    boot = _Boot(n_boot, seed, confidence)
    _check_lengths(a=a, b=b)
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights: {weights!r} is not None, 'linear' or 'quadratic'")
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if not _missing(x) and not _missing(y)]
    if any(isinstance(v, str) for pair in pairs for v in pair):
        if weights is not None:
            raise ValueError("weights: weighted kappa needs numeric ratings, got labels")
        first = np.array([str(x) for x, _ in pairs], dtype=object)
        second = np.array([str(y) for _, y in pairs], dtype=object)
        labels: list[object] = sorted({*first, *second})
    else:
        first = np.floor(np.array([x for x, _ in pairs], dtype=np.float64) + 0.5).astype(int)
        second = np.floor(np.array([y for _, y in pairs], dtype=np.float64) + 0.5).astype(int)
        # The whole integer range, so that weights measure distance on the scale, not rank.
        labels = (
            list(
                range(int(min(first.min(), second.min())), int(max(first.max(), second.max())) + 1)
            )
            if pairs
            else []
        )

    def kappa(index: IntArray) -> float | str:
        x, y = first[index], second[index]
        if len(x) == 0:
            return "no item rated by both"
        if len({*x, *y}) < 2:
            return "both raters gave one and the same rating to every item"
        with np.errstate(divide="ignore", invalid="ignore"):
            value = float(metrics.cohen_kappa_score(x, y, labels=labels, weights=weights))
        return value if math.isfinite(value) else "undefined: chance agreement is complete"

    (estimate,) = _metric_estimates([kappa], len(pairs), [len(pairs)], boot)
    return estimate


def krippendorff_alpha(
    ratings_by_rater: Sequence[Sequence[float | str | None]],
    level: AlphaLevel = "interval",
    *,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Estimate:
    """Krippendorff's alpha (krippendorff package): one row per rater, one column per item,
    None for an item a rater did not rate. Strings (labels) need level "nominal". The interval
    resamples items; its cost grows with the square of the number of distinct values."""
    boot = _Boot(n_boot, seed, confidence)
    if level not in ("interval", "ordinal", "nominal"):
        raise ValueError(f"level: {level!r} is not 'interval', 'ordinal' or 'nominal'")
    if len(ratings_by_rater) < 2:
        raise ValueError(f"ratings_by_rater: {len(ratings_by_rater)} rater(s); alpha needs 2+")
    _check_lengths(**{f"ratings_by_rater[{i}]": row for i, row in enumerate(ratings_by_rater)})
    data = _reliability_matrix(ratings_by_rater, level)
    n_items = data.shape[1]

    def alpha(index: IntArray) -> float | str:
        sample = data[:, index]
        rated = ~np.isnan(sample)
        if not (rated.sum(axis=0) >= 2).any():
            return "no item was rated by 2+ raters"
        if len(np.unique(sample[rated])) < 2:
            return "every rating is the same value"
        return float(krippendorff.alpha(reliability_data=sample, level_of_measurement=level))

    pairable = int((np.sum(~np.isnan(data), axis=0) >= 2).sum())
    (estimate,) = _metric_estimates([alpha], n_items, [pairable], boot)
    return estimate


def _reliability_matrix(
    rows: Sequence[Sequence[float | str | None]], level: AlphaLevel
) -> FloatArray:
    values = [v for row in rows for v in row if not _missing(v)]
    if any(isinstance(v, str) for v in values):
        if level != "nominal":
            raise ValueError(f"level: labels (strings) need level 'nominal', not {level!r}")
        # Nominal alpha only asks whether two values are equal, so codes stand in for labels.
        codes = {label: float(code) for code, label in enumerate(sorted({str(v) for v in values}))}
        return np.array(
            [[np.nan if _missing(v) else codes[str(v)] for v in row] for row in rows],
            dtype=np.float64,
        )
    return np.array(
        [[np.nan if _missing(v) else float(v) for v in row] for row in rows],  # type: ignore[arg-type]
        dtype=np.float64,
    )


# --- latency ---------------------------------------------------------------------------


def latency_summary(
    seconds: Sequence[float], *, limit_s: float = LATENCY_LIMIT_S
) -> LatencySummary:
    """P50, P95 (numpy percentile, linear), mean and max of evaluation times in seconds.
    QV-04: PASS when P95 < `limit_s` (30 s)."""
    if len(seconds) == 0:
        raise ValueError("seconds: no timings to summarise")
    times = np.asarray(seconds, dtype=np.float64)
    bad = [i for i, t in enumerate(times) if not math.isfinite(t) or t < 0]
    if bad:
        raise ValueError(f"seconds[{bad[0]}]: {seconds[bad[0]]!r} is not a finite time >= 0")
    p50, p95 = (float(v) for v in np.percentile(times, [50, 95]))
    return LatencySummary(
        n=len(times),
        p50=p50,
        p95=p95,
        mean=float(times.mean()),
        max=float(times.max()),
        limit_s=limit_s,
        verdict=Verdict.PASS if p95 < limit_s else Verdict.FAIL,
    )


# --- shared ----------------------------------------------------------------------------


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
