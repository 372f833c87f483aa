"""Agreement between a judge and humans: correlations, classification metrics, pairwise
preferences, kappa and alpha, each with a percentile bootstrap interval (see
`_estimates`); and latency.

Missing judge answers (None) are left out of every statistic and counted as `missing`.
"""

import math
from collections.abc import Callable, Hashable, Sequence

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

from jurist.calibration._estimates import (
    CHOICES,
    LATENCY_LIMIT_S,
    AlphaLevel,
    BinaryMetrics,
    CalibrationVerdict,
    Choice,
    ConfusionCounts,
    Correlations,
    CorrelationSet,
    Estimate,
    FloatArray,
    GroupCorrelations,
    IntArray,
    KappaWeights,
    LatencySummary,
    PairwiseMetrics,
    _Boot,
    _bootstrap,
    _check_lengths,
    _estimate,
    _floats,
    _Interval,
    _metric_estimates,
    _missing,
    _paired_floats,
)

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
    PASS when P95 < `limit_s` (30 s)."""
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
        verdict=CalibrationVerdict.PASS if p95 < limit_s else CalibrationVerdict.FAIL,
    )
