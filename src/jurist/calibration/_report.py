"""The calibration report: how well a judge agrees with humans on one dataset, against the
spec's QV-03 bar (Pearson >= 0.7, pooled, by default), with QV-04 latency when timed.

Build one with `ratings_report`, `binary_report` or `pairwise_report`; it round-trips
through JSON, renders as markdown, plots to PNG, and two reports compare (drift).
"""

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from jurist.calibration._datasets import Dataset, DatasetKind, RatingItem
from jurist.calibration._stats import (
    BINARY_METRICS,
    COEFFICIENTS,
    PAIRWISE_METRICS,
    AlphaLevel,
    BinaryMetrics,
    Correlations,
    Estimate,
    KappaWeights,
    LatencySummary,
    PairwiseMetrics,
    Verdict,
    binary_metrics,
    cohen_kappa,
    correlations,
    krippendorff_alpha,
    latency_summary,
    pairwise_metrics,
)

Level = Literal["pooled", "per_group"]
_LEVELS: tuple[Level, ...] = ("pooled", "per_group")
_METRICS: dict[DatasetKind, tuple[str, ...]] = {
    DatasetKind.RATINGS: COEFFICIENTS,
    DatasetKind.BINARY: BINARY_METRICS,
    DatasetKind.PAIRWISE: PAIRWISE_METRICS,
}
_TITLES = {
    "pearson": "Pearson",
    "spearman": "Spearman",
    "kendall": "Kendall",
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "f1": "F1",
    "auc": "AUC",
    "agreement": "agreement",
    "position_consistency": "position consistency",
}
# Metrics that can be negative are shown with a sign.
_SIGNED = frozenset(COEFFICIENTS)


class Target(BaseModel):
    """The bar a judge must meet: `metric` >= `threshold`. The default is QV-03: Pearson,
    pooled over all items, >= 0.7. `level` applies to correlations only; with
    `use_lower_bound` the interval's lower end must meet the bar, not only the estimate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str = "pearson"
    level: Level = "pooled"
    threshold: float = 0.7
    use_lower_bound: bool = False

    def describe(self) -> str:
        name = _TITLES.get(self.metric, self.metric)
        if self.metric in COEFFICIENTS:
            name += " (pooled)" if self.level == "pooled" else " (per document)"
        if self.use_lower_bound:
            name = f"lower bound of {name}"
        return f"{name} >= {self.threshold:.2f}"

    def check(self, kind: DatasetKind) -> None:
        if self.metric not in _METRICS[kind]:
            known = ", ".join(_METRICS[kind])
            raise ValueError(f"target.metric: {self.metric!r} is not one of {known} ({kind})")

    def assess(self, estimate: Estimate) -> tuple[Verdict, str]:
        """PASS or FAIL for one estimate, and a sentence saying why."""
        name = self.describe().rsplit(" >= ", 1)[0]
        measured = estimate.low if self.use_lower_bound else estimate.value
        if measured is None:
            missing = "undefined" if estimate.value is None else "without an interval"
            because = f": {estimate.reason}" if estimate.reason else ""
            return Verdict.FAIL, f"{name} is {missing}{because}"
        signed = self.metric in _SIGNED
        shown = f"{measured:+.2f}" if signed else f"{measured:.2f}"
        if measured >= self.threshold:
            return Verdict.PASS, f"{name} {shown} >= {self.threshold:.2f}"
        return Verdict.FAIL, f"{name} {shown} < {self.threshold:.2f}"


def default_target(kind: DatasetKind) -> Target:
    """QV-03's bar of 0.7, on Pearson (ratings), balanced accuracy (binary) or accuracy
    (pairwise)."""
    metric = {"ratings": "pearson", "binary": "balanced_accuracy", "pairwise": "accuracy"}
    return Target(metric=metric[kind.value])


class DatasetInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    kind: DatasetKind
    n: int
    sha256: str

    @classmethod
    def of(cls, dataset: Dataset) -> "DatasetInfo":
        return cls(path=str(dataset.path), kind=dataset.kind, n=len(dataset), sha256=dataset.sha256)


class Point(BaseModel):
    """One item's human and judge score (None: the judge gave none)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    human: float
    judge: float | None


class Agreement(BaseModel):
    """Chance-corrected agreement of judge and human: Cohen's kappa (numbers rounded to
    integers) and Krippendorff's alpha."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kappa: Estimate
    kappa_weights: KappaWeights
    alpha: Estimate
    alpha_level: AlphaLevel


class DimensionResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    correlations: Correlations
    agreement: Agreement
    verdict: Verdict
    reason: str
    points: list[Point]
    # How the judge's score tells the outputs humans rated at the top of the scale from the
    # rest: AUC of the score, and balanced accuracy of "the score rounds to the top".
    top: BinaryMetrics | None = None

    def estimate(self, metric: str, level: Level) -> Estimate | None:
        if level == "pooled":
            return self.correlations.pooled.get(_coefficient(metric))
        grouped = self.correlations.per_group
        return grouped.get(_coefficient(metric)) if grouped is not None else None


class CostPerItem(BaseModel):
    """What judging one item took from the model, averaged over the items judged."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    items: int
    calls: float
    input_tokens: float
    output_tokens: float


class CalibrationReport(BaseModel):
    """One judge (and model) against one dataset's human ratings.

    `verdict` is QV-03's: PASS when every dimension (or, for binary and pairwise data, the
    one metric) meets `target`. QV-04's latency verdict is `latency.verdict`, separately.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    dataset: DatasetInfo
    judge: str
    model: str
    target: Target
    n_boot: int
    seed: int
    confidence: float
    dimensions: dict[str, DimensionResult] = Field(default_factory=dict)
    binary: BinaryMetrics | None = None
    pairwise: PairwiseMetrics | None = None
    agreement: Agreement | None = None
    latency: LatencySummary | None = None
    cost: CostPerItem | None = None
    verdict: Verdict
    reason: str
    created_at: datetime

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        return cls.model_validate_json(text)

    def to_markdown(self) -> str:
        return "\n".join(_markdown(self)) + "\n"

    def plot(self, path: str | Path) -> Path:
        """Write a PNG: human vs judge scatter per dimension (ratings) or the confusion
        matrix (binary, pairwise). Uses matplotlib's Agg canvas, never a display."""
        return _plot(self, Path(path))


# --- building reports ------------------------------------------------------------------


def ratings_report(
    dataset: Dataset,
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
    failed = [f"{name}: {r.reason}" for name, r in results.items() if r.verdict is Verdict.FAIL]
    if failed:
        verdict, reason = Verdict.FAIL, "; ".join(failed)
    else:
        verdict = Verdict.PASS
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
    dataset: Dataset,
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
    dataset: Dataset,
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


def _check_kind(dataset: Dataset, kind: DatasetKind) -> None:
    if dataset.kind is not kind:
        raise ValueError(f"dataset: {dataset.path} is a {dataset.kind} dataset, not {kind}")


def _check_ids(dataset: Dataset, answers: Mapping[str, object], name: str) -> None:
    known = {item.id for item in dataset.items}
    unknown = [key for key in answers if key not in known]
    if unknown:
        shown = ", ".join(repr(key) for key in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise ValueError(f"{name}: ids not in {dataset.path}: {shown}{more}")


def _dimensions(
    dataset: Dataset,
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


def _coefficient(metric: str) -> Literal["pearson", "spearman", "kendall"]:
    for known in COEFFICIENTS:
        if metric == known:
            return known
    raise ValueError(f"metric: {metric!r} is not one of {', '.join(COEFFICIENTS)}")


# --- markdown --------------------------------------------------------------------------


def _markdown(report: CalibrationReport) -> list[str]:
    dataset = report.dataset
    lines = [
        f"# Calibration: {report.judge}",
        "",
        f"- Model: {report.model}",
        f"- Dataset: `{dataset.path}` ({dataset.kind}, {dataset.n} items, "
        f"sha256 `{dataset.sha256[:12]}`)",
        f"- Target{' (QV-03)' if report.dimensions else ''}: {report.target.describe()}",
        f"- Intervals: {report.confidence:.0%} percentile bootstrap, "
        f"{report.n_boot} resamples, seed {report.seed}",
        f"- Created: {report.created_at.isoformat(timespec='seconds')}",
        "",
    ]
    if report.dimensions:
        lines += _correlation_table(report)
    if report.binary is not None:
        lines += _binary_table(report.binary)
    if report.pairwise is not None:
        lines += _pairwise_table(report.pairwise)
    lines += _agreement_table(report)
    if report.latency is not None:
        latency = report.latency
        lines += [
            "## Latency (QV-04)",
            "",
            f"P50 {latency.p50:.2f} s, P95 {latency.p95:.2f} s, mean {latency.mean:.2f} s, "
            f"max {latency.max:.2f} s over {latency.n} evaluations: **{latency.verdict}** "
            f"(P95 < {latency.limit_s:g} s)",
            "",
        ]
    if report.cost is not None:
        cost = report.cost
        lines += [
            f"Per item ({cost.items} judged): {cost.calls:.1f} model calls, "
            f"{cost.input_tokens:.0f} input and {cost.output_tokens:.0f} output tokens.",
            "",
        ]
    lines.append(f"**Verdict: {report.verdict}** ({report.target.describe()}): {report.reason}")
    return lines


def _correlation_table(report: CalibrationReport) -> list[str]:
    lines = [
        "## Correlation with human scores",
        "",
        "| Dimension | Level | n | Pearson | Spearman | Kendall | Verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, result in report.dimensions.items():
        found = result.correlations
        missing = f" ({found.missing} missing)" if found.missing else ""
        pooled = found.pooled
        lines.append(
            f"| {name} | pooled | {found.n}{missing} | {pooled.pearson.format()} | "
            f"{pooled.spearman.format()} | {pooled.kendall.format()} | {result.verdict} |"
        )
        grouped = found.per_group
        if grouped is not None:
            lines.append(
                f"| {name} | per document ({grouped.groups_used} used, "
                f"{grouped.groups_skipped} skipped) | {grouped.groups_used} | "
                f"{grouped.pearson.format()} | {grouped.spearman.format()} | "
                f"{grouped.kendall.format()} | |"
            )
    tops = [(name, r.top) for name, r in report.dimensions.items() if r.top is not None]
    if tops:
        lines += [
            "",
            "Telling the outputs rated at the top of the scale from the rest:",
            "",
            "| Dimension | top-rated | AUC of the score | balanced accuracy (rounds to the top) |",
            "|---|---|---|---|",
        ]
        for name, top in tops:
            positives = top.counts.true_positive + top.counts.false_negative
            lines.append(
                f"| {name} | {positives} of {top.n} | {top.auc.format(signed=False)} | "
                f"{top.balanced_accuracy.format(signed=False)} |"
            )
    return [*lines, ""]


def _binary_table(found: BinaryMetrics) -> list[str]:
    counts = found.counts
    missing = f", {found.missing} without an answer" if found.missing else ""
    return [
        "## Agreement with human labels",
        "",
        f"{found.n} answered items{missing}.",
        "",
        "| Metric | Value |",
        "|---|---|",
        f"| accuracy | {found.accuracy.format(signed=False)} |",
        f"| balanced accuracy | {found.balanced_accuracy.format(signed=False)} |",
        f"| F1 | {found.f1.format(signed=False)} |",
        f"| AUC | {found.auc.format(signed=False)} |",
        "",
        f"Counts: {counts.true_positive} true positive, {counts.false_positive} false "
        f"positive, {counts.true_negative} true negative, {counts.false_negative} false "
        "negative.",
        "",
    ]


def _pairwise_table(found: PairwiseMetrics) -> list[str]:
    missing = f", {found.missing} without an answer" if found.missing else ""
    consistency = (
        found.position_consistency.format(signed=False)
        if found.position_consistency is not None
        else "n/a (no swapped-order answers)"
    )
    header = " | ".join(f"judge {c}" for c in found.classes)
    lines = [
        "## Agreement with human preferences",
        "",
        f"{found.n} answered items{missing}.",
        "",
        "| Metric | Value |",
        "|---|---|",
        f"| accuracy (A/B labels) | {found.accuracy.format(signed=False)} |",
        f"| agreement (ties included) | {found.agreement.format(signed=False)} |",
        f"| position consistency | {consistency} |",
        "",
        f"| human | {header} |",
        "|---" * (len(found.classes) + 1) + "|",
    ]
    for label, row in zip(found.classes, found.confusion, strict=True):
        lines.append(f"| {label} | " + " | ".join(str(count) for count in row) + " |")
    return [*lines, ""]


def _agreement_table(report: CalibrationReport) -> list[str]:
    rows: list[tuple[str, Agreement]] = [(n, r.agreement) for n, r in report.dimensions.items()]
    if report.agreement is not None:
        rows.append((str(report.dataset.kind), report.agreement))
    if not rows:
        return []
    lines = [
        "## Chance-corrected agreement",
        "",
        "| Data | Cohen's kappa | Krippendorff's alpha |",
        "|---|---|---|",
    ]
    for name, agreement in rows:
        weights = f"{agreement.kappa_weights}, " if agreement.kappa_weights else ""
        lines.append(
            f"| {name} | {agreement.kappa.format()} ({weights}n={agreement.kappa.n}) | "
            f"{agreement.alpha.format()} ({agreement.alpha_level}) |"
        )
    if report.dimensions:
        lines += ["", "Kappa compares the scores rounded to integers."]
    return [*lines, ""]


# --- plots -----------------------------------------------------------------------------


def _plot(report: CalibrationReport, path: Path) -> Path:
    # The object-oriented API on an Agg canvas: no pyplot, no global backend, no display.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if report.dimensions:
        count = len(report.dimensions)
        columns = min(count, 2)
        rows = -(-count // columns)
        figure = Figure(figsize=(5 * columns, 4.5 * rows), layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.subplots(rows, columns, squeeze=False).ravel()
        for ax, (name, result) in zip(axes, report.dimensions.items(), strict=False):
            scored = [p for p in result.points if p.judge is not None]
            ax.scatter([p.human for p in scored], [p.judge for p in scored], alpha=0.6, s=18)
            values = [p.human for p in scored] + [p.judge for p in scored if p.judge is not None]
            if values:
                low, high = min(values), max(values)
                ax.plot([low, high], [low, high], linestyle="--", color="grey", linewidth=1)
            pearson = result.correlations.pooled.pearson.format()
            ax.set_title(f"{name}: Pearson {pearson} ({result.verdict})", fontsize=10)
            ax.set_xlabel("human score")
            ax.set_ylabel("judge score")
        for ax in axes[count:]:
            ax.set_visible(False)
    else:
        classes, matrix = _confusion(report)
        figure = Figure(
            figsize=(1.6 * len(classes) + 2.5, 1.4 * len(classes) + 2), layout="constrained"
        )
        FigureCanvasAgg(figure)
        ax = figure.subplots()
        image = ax.imshow(matrix, cmap="Blues")
        figure.colorbar(image, ax=ax)
        ax.set_xticks(range(len(classes)), [f"judge {c}" for c in classes])
        ax.set_yticks(range(len(classes)), [f"human {c}" for c in classes])
        brightest = max((max(row) for row in matrix), default=0)
        for i, row in enumerate(matrix):
            for j, count in enumerate(row):
                color = "white" if brightest and count > brightest / 2 else "black"
                ax.text(j, i, str(count), ha="center", va="center", color=color)
        ax.set_title(f"{report.judge}: {report.target.describe()} ({report.verdict})", fontsize=10)
    figure.suptitle(f"{report.judge} vs humans on {Path(report.dataset.path).name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", dpi=100)
    return path


def _confusion(report: CalibrationReport) -> tuple[list[str], list[list[int]]]:
    if report.binary is not None:
        counts = report.binary.counts
        matrix = [
            [counts.true_negative, counts.false_positive],
            [counts.false_negative, counts.true_positive],
        ]
        return ["false", "true"], matrix
    if report.pairwise is not None:
        return list(report.pairwise.classes), report.pairwise.confusion
    raise ValueError("report: no dimensions and no binary or pairwise metrics to plot")


# --- drift -----------------------------------------------------------------------------


class Change(BaseModel):
    """One statistic in two reports. `overlap` None: an interval is missing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dimension: str
    level: str
    metric: str
    before: Estimate | None
    after: Estimate | None
    change: float | None
    overlap: bool | None


class ReportComparison(BaseModel):
    """What changed from report `before` to report `after` (drift), per dimension, level and
    coefficient (or metric); intervals that do not overlap mark a change beyond noise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    before: str
    after: str
    same_dataset: bool
    changes: list[Change]
    latency_p95_change: float | None = None

    def to_markdown(self) -> str:
        lines = [
            f"# Calibration drift: {self.before} -> {self.after}",
            "",
        ]
        if not self.same_dataset:
            lines += ["**The reports are on different datasets (sha256 differs).**", ""]
        lines += [
            "| Dimension | Level | Metric | Before | After | Change | Intervals |",
            "|---|---|---|---|---|---|---|",
        ]
        for change in self.changes:
            signed = change.metric in _SIGNED
            before = change.before.format(signed=signed) if change.before else "absent"
            after = change.after.format(signed=signed) if change.after else "absent"
            delta = f"{change.change:+.2f}" if change.change is not None else "n/a"
            overlap = {True: "overlap", False: "**disjoint**", None: "n/a"}[change.overlap]
            title = _TITLES.get(change.metric, change.metric)
            lines.append(
                f"| {change.dimension} | {change.level} | {title} | {before} | {after} | "
                f"{delta} | {overlap} |"
            )
        disjoint = sum(1 for change in self.changes if change.overlap is False)
        lines += [
            "",
            f"{disjoint} of {len(self.changes)} statistics moved beyond their intervals "
            "(disjoint); overlapping intervals mean the change may be noise.",
        ]
        if self.latency_p95_change is not None:
            lines.append(f"Latency P95 changed by {self.latency_p95_change:+.2f} s.")
        return "\n".join(lines) + "\n"


def compare_reports(before: CalibrationReport, after: CalibrationReport) -> ReportComparison:
    """The change of every statistic from `before` to `after` (reports of one kind)."""
    if before.dataset.kind is not after.dataset.kind:
        raise ValueError(
            f"after: a {after.dataset.kind} report cannot be compared with a "
            f"{before.dataset.kind} one"
        )
    changes: list[Change] = []
    if before.dataset.kind is DatasetKind.RATINGS:
        names = list(dict.fromkeys([*before.dimensions, *after.dimensions]))
        for name in names:
            old, new = before.dimensions.get(name), after.dimensions.get(name)
            for level in _LEVELS:
                for coefficient in COEFFICIENTS:
                    changes.append(
                        _change(
                            name,
                            "pooled" if level == "pooled" else "per document",
                            coefficient,
                            old.estimate(coefficient, level) if old else None,
                            new.estimate(coefficient, level) if new else None,
                        )
                    )
    else:
        kind = before.dataset.kind
        for metric in _METRICS[kind]:
            changes.append(
                _change(str(kind), "all", metric, _metric(before, metric), _metric(after, metric))
            )
    p95_change = None
    if before.latency is not None and after.latency is not None:
        p95_change = after.latency.p95 - before.latency.p95
    return ReportComparison(
        before=_label(before),
        after=_label(after),
        same_dataset=before.dataset.sha256 == after.dataset.sha256,
        changes=[c for c in changes if c.before is not None or c.after is not None],
        latency_p95_change=p95_change,
    )


def _metric(report: CalibrationReport, metric: str) -> Estimate | None:
    if report.binary is not None:
        return report.binary.get(metric)
    if report.pairwise is not None:
        return report.pairwise.get(metric)
    return None


def _change(
    dimension: str, level: str, metric: str, before: Estimate | None, after: Estimate | None
) -> Change:
    delta, overlap = None, None
    if before is not None and after is not None:
        overlap = before.overlaps(after)
        if before.value is not None and after.value is not None:
            delta = after.value - before.value
    return Change(
        dimension=dimension,
        level=level,
        metric=metric,
        before=before,
        after=after,
        change=delta,
        overlap=overlap,
    )


def _label(report: CalibrationReport) -> str:
    return f"{report.judge} ({report.model}, {report.created_at.date().isoformat()})"
