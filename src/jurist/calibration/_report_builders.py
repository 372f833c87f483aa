"""Building a calibration report from a dataset of human judgments and the judge's
answers: ratings (correlations per dimension), binary (classification metrics) and
pairwise (preference agreement and position consistency)."""

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from jurist.calibration._estimates import (
    AlphaLevel,
    BinaryMetrics,
    CalibrationVerdict,
    Correlations,
    Estimate,
    KappaWeights,
)
from jurist.calibration._report import (
    Agreement,
    CalibrationReport,
    DatasetInfo,
    DimensionResult,
    Point,
    Target,
    _coefficient,
    default_target,
)
from jurist.calibration._stats import (
    binary_metrics,
    cohen_kappa,
    correlations,
    krippendorff_alpha,
    latency_summary,
    pairwise_metrics,
)
from jurist.data import DatasetKind, LabelledDataset, RatingItem


def ratings_report(
    dataset: LabelledDataset,
    judge_scores: Mapping[str, Mapping[str, float | None]],
    *,
    judge: str,
    model: str,
    dimensions: Sequence[str] | None = None,
    latencies: Sequence[float] | None = None,
    target: Target | None = None,
    kappa_weights: KappaWeights = "quadratic",
    alpha_level: AlphaLevel = "interval",
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    created_at: datetime | None = None,
) -> CalibrationReport:
    """The report for a ratings dataset. `judge_scores` maps item id -> {dimension: score};
    an item or dimension it lacks (or None) is a missing judge score, counted, never a zero.

    `dimensions` None takes every dataset dimension the judge scored. Correlations are
    pooled and per document (`doc_id`); kappa uses `kappa_weights` on scores rounded to
    integers, alpha `alpha_level`.
    """
    _check_kind(dataset, DatasetKind.RATINGS)
    _check_ids(dataset, judge_scores, "judge_scores")
    target = target or default_target(DatasetKind.RATINGS)
    target.check(DatasetKind.RATINGS)
    chosen = _dimensions(dataset, judge_scores, dimensions)
    boot: dict[str, Any] = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    results: dict[str, DimensionResult] = {}
    for dimension in chosen:
        rated = [item for item in dataset.ratings if dimension in item.human_scores]
        human = [item.human_scores[dimension] for item in rated]
        scores = [judge_scores.get(item.id, {}).get(dimension) for item in rated]
        found = correlations(human, scores, groups=[item.doc_id for item in rated], **boot)
        agreement = Agreement(
            kappa=cohen_kappa(human, scores, kappa_weights, **boot),
            kappa_weights=kappa_weights,
            alpha=krippendorff_alpha([human, scores], alpha_level, **boot),
            alpha_level=alpha_level,
        )
        estimate = _target_estimate(found, target)
        verdict, reason = target.assess(estimate)
        points = [
            Point(id=item.id, human=h, judge=s)
            for item, h, s in zip(rated, human, scores, strict=True)
        ]
        results[dimension] = DimensionResult(
            correlations=found,
            agreement=agreement,
            verdict=verdict,
            reason=reason,
            points=points,
            top=_top_of_scale(rated, human, scores, boot),
        )
    failed = [
        f"{name}: {r.reason}" for name, r in results.items() if r.verdict is CalibrationVerdict.FAIL
    ]
    if failed:
        verdict, reason = CalibrationVerdict.FAIL, "; ".join(failed)
    else:
        verdict = CalibrationVerdict.PASS
        reason = f"every dimension ({', '.join(results)}) meets {target.describe()}"
    return CalibrationReport(
        dataset=DatasetInfo.of(dataset),
        judge=judge,
        model=model,
        target=target,
        dimensions=results,
        latency=latency_summary(latencies) if latencies is not None else None,
        verdict=verdict,
        reason=reason,
        created_at=created_at or datetime.now(UTC),
        **boot,
    )


def _top_of_scale(
    rated: Sequence[RatingItem],
    human: Sequence[float],
    scores: Sequence[float | None],
    boot: Mapping[str, Any],
) -> BinaryMetrics | None:
    """The judge's score as a test for "humans rated it at the top of the scale"; None when
    no item, or every item, is at the top (nothing to tell apart)."""
    if not rated:
        return None
    low, high = rated[0].scale
    labels = [h >= high for h in human]
    if all(labels) or not any(labels):
        return None
    share = [None if s is None else (s - low) / (high - low) for s in scores]
    predictions = [None if s is None else round(s) >= high for s in scores]
    return binary_metrics(labels, predictions, share, **boot)


def binary_report(
    dataset: LabelledDataset,
    predictions: Mapping[str, bool | None],
    probabilities: Mapping[str, float | None] | None = None,
    *,
    judge: str,
    model: str,
    latencies: Sequence[float] | None = None,
    target: Target | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    created_at: datetime | None = None,
) -> CalibrationReport:
    """The report for a binary dataset: `predictions` (item id -> the judge's True/False,
    None or absent: no answer) and optionally `probabilities` of True for AUC."""
    _check_kind(dataset, DatasetKind.BINARY)
    _check_ids(dataset, predictions, "predictions")
    if probabilities is not None:
        _check_ids(dataset, probabilities, "probabilities")
    target = target or default_target(DatasetKind.BINARY)
    target.check(DatasetKind.BINARY)
    boot: dict[str, Any] = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    items = dataset.binary
    labels = [item.label for item in items]
    predicted = [predictions.get(item.id) for item in items]
    found = binary_metrics(
        labels,
        predicted,
        [probabilities.get(item.id) for item in items] if probabilities is not None else None,
        **boot,
    )
    as_numbers = [None if p is None else int(p) for p in predicted]
    agreement = Agreement(
        kappa=cohen_kappa([int(x) for x in labels], as_numbers, None, **boot),
        kappa_weights=None,
        alpha=krippendorff_alpha([[int(x) for x in labels], as_numbers], "nominal", **boot),
        alpha_level="nominal",
    )
    verdict, reason = target.assess(found.get(target.metric))
    return CalibrationReport(
        dataset=DatasetInfo.of(dataset),
        judge=judge,
        model=model,
        target=target,
        binary=found,
        agreement=agreement,
        latency=latency_summary(latencies) if latencies is not None else None,
        verdict=verdict,
        reason=reason,
        created_at=created_at or datetime.now(UTC),
        **boot,
    )


def pairwise_report(
    dataset: LabelledDataset,
    choices_ab: Mapping[str, str | None],
    choices_ba: Mapping[str, str | None] | None = None,
    *,
    judge: str,
    model: str,
    latencies: Sequence[float] | None = None,
    target: Target | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    created_at: datetime | None = None,
) -> CalibrationReport:
    """The report for a pairwise dataset: `choices_ab` (item id -> "A", "B" or "tie" with
    output_a shown first) and optionally `choices_ba`, the answers with the outputs swapped
    (its "A" is output_b), for position consistency."""
    _check_kind(dataset, DatasetKind.PAIRWISE)
    _check_ids(dataset, choices_ab, "choices_ab")
    if choices_ba is not None:
        _check_ids(dataset, choices_ba, "choices_ba")
    target = target or default_target(DatasetKind.PAIRWISE)
    target.check(DatasetKind.PAIRWISE)
    boot: dict[str, Any] = {"n_boot": n_boot, "seed": seed, "confidence": confidence}
    items = dataset.pairwise
    labels: list[str] = [item.label for item in items]
    ab = [choices_ab.get(item.id) for item in items]
    ba = [choices_ba.get(item.id) for item in items] if choices_ba is not None else None
    found = pairwise_metrics(labels, ab, ba, **boot)
    agreement = Agreement(
        kappa=cohen_kappa(labels, ab, None, **boot),
        kappa_weights=None,
        alpha=krippendorff_alpha([labels, ab], "nominal", **boot),
        alpha_level="nominal",
    )
    verdict, reason = target.assess(found.get(target.metric))
    return CalibrationReport(
        dataset=DatasetInfo.of(dataset),
        judge=judge,
        model=model,
        target=target,
        pairwise=found,
        agreement=agreement,
        latency=latency_summary(latencies) if latencies is not None else None,
        verdict=verdict,
        reason=reason,
        created_at=created_at or datetime.now(UTC),
        **boot,
    )


def _check_kind(dataset: LabelledDataset, kind: DatasetKind) -> None:
    if dataset.kind is not kind:
        raise ValueError(f"dataset: {dataset.path} is a {dataset.kind} dataset, not {kind}")


def _check_ids(dataset: LabelledDataset, answers: Mapping[str, object], name: str) -> None:
    known = {item.id for item in dataset.items}
    unknown = [key for key in answers if key not in known]
    if unknown:
        shown = ", ".join(repr(key) for key in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise ValueError(f"{name}: ids not in {dataset.path}: {shown}{more}")


def _dimensions(
    dataset: LabelledDataset,
    judge_scores: Mapping[str, Mapping[str, float | None]],
    dimensions: Sequence[str] | None,
) -> list[str]:
    known = dataset.dimensions
    if dimensions is not None:
        unknown = [d for d in dimensions if d not in known]
        if unknown or not dimensions:
            raise ValueError(
                f"dimensions: {unknown or 'none'} not among the dataset's: {', '.join(known)}"
            )
        return list(dict.fromkeys(dimensions))
    scored = {dimension for scores in judge_scores.values() for dimension in scores}
    stray = sorted(scored - set(known))
    if stray:
        raise ValueError(
            f"judge_scores: dimensions {stray} are not among the dataset's: {', '.join(known)}"
        )
    chosen = [d for d in known if d in scored]
    if not chosen:
        raise ValueError("judge_scores: no score for any dimension; nothing to calibrate")
    return chosen


def _target_estimate(found: Correlations, target: Target) -> Estimate:
    coefficient = _coefficient(target.metric)
    if target.level == "pooled":
        return found.pooled.get(coefficient)
    if found.per_group is None:
        return Estimate(value=None, n=0, reason="no per-document correlations")
    return found.per_group.get(coefficient)
