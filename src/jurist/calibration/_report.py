"""The calibration report: how well a judge agrees with humans on one dataset, against a
target (by default Pearson >= 0.7, pooled), with latency when timed; its markdown and its
plot.

Build one with `ratings_report`, `binary_report` or `pairwise_report`; it round-trips
through JSON, renders as markdown, plots to PNG, and two reports compare
(`compare_reports`).
"""

import textwrap
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from jurist.calibration._estimates import (
    BINARY_METRICS,
    COEFFICIENTS,
    PAIRWISE_METRICS,
    AlphaLevel,
    BinaryMetrics,
    CalibrationVerdict,
    Correlations,
    Estimate,
    KappaWeights,
    LatencySummary,
    PairwiseMetrics,
)
from jurist.data import DatasetKind, LabelledDataset

if TYPE_CHECKING:  # matplotlib is imported when a plot is drawn, not with the report
    from matplotlib.backend_bases import RendererBase
    from matplotlib.figure import Figure
    from matplotlib.text import Text

Level = Literal["pooled", "per_group"]
_LEVELS: tuple[Level, ...] = ("pooled", "per_group")
_METRICS: dict[DatasetKind, tuple[str, ...]] = {
    DatasetKind.RATINGS: COEFFICIENTS,
    DatasetKind.BINARY: BINARY_METRICS,
    DatasetKind.PAIRWISE: PAIRWISE_METRICS,
}
# How a statistic is named to people, in reports and in the viewer.
STATISTIC_TITLES = {
    "pearson": "Pearson",
    "spearman": "Spearman",
    "kendall": "Kendall",
    "kappa": "Cohen's kappa",
    "alpha": "Krippendorff's alpha",
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "f1": "F1",
    "auc": "AUC",
    "agreement": "agreement",
    "position_consistency": "position consistency",
}
# Statistics that can be negative are shown with a sign.
SIGNED_STATISTICS = frozenset({*COEFFICIENTS, "kappa", "alpha"})


class Target(BaseModel):
    """The bar a judge must meet: `metric` >= `threshold`. The default: Pearson,
    pooled over all items, >= 0.7. `level` applies to correlations only; with
    `use_lower_bound` the interval's lower end must meet the bar, not only the estimate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str = "pearson"
    level: Level = "pooled"
    threshold: float = 0.7
    use_lower_bound: bool = False

    def describe(self) -> str:
        name = STATISTIC_TITLES.get(self.metric, self.metric)
        if self.metric in COEFFICIENTS:
            name += " (pooled)" if self.level == "pooled" else " (per document)"
        if self.use_lower_bound:
            name = f"lower bound of {name}"
        return f"{name} >= {self.threshold:.2f}"

    def check(self, kind: DatasetKind) -> None:
        if self.metric not in _METRICS[kind]:
            known = ", ".join(_METRICS[kind])
            raise ValueError(f"target.metric: {self.metric!r} is not one of {known} ({kind})")

    def assess(self, estimate: Estimate) -> tuple[CalibrationVerdict, str]:
        """PASS or FAIL for one estimate, and a sentence saying why."""
        name = self.describe().rsplit(" >= ", 1)[0]
        measured = estimate.low if self.use_lower_bound else estimate.value
        if measured is None:
            missing = "undefined" if estimate.value is None else "without an interval"
            because = f": {estimate.reason}" if estimate.reason else ""
            return CalibrationVerdict.FAIL, f"{name} is {missing}{because}"
        signed = self.metric in SIGNED_STATISTICS
        shown = f"{measured:+.2f}" if signed else f"{measured:.2f}"
        if measured >= self.threshold:
            return CalibrationVerdict.PASS, f"{name} {shown} >= {self.threshold:.2f}"
        return CalibrationVerdict.FAIL, f"{name} {shown} < {self.threshold:.2f}"


def default_target(kind: DatasetKind) -> Target:
    """The bar of 0.7, on Pearson (ratings), balanced accuracy (binary) or accuracy
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
    def of(cls, dataset: LabelledDataset) -> "DatasetInfo":
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
    verdict: CalibrationVerdict
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

    `verdict`: PASS when every dimension (or, for binary and pairwise data, the one metric)
    meets `target`. The latency verdict is `latency.verdict`, separately.
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
    verdict: CalibrationVerdict
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

    def figure(self) -> "Figure":
        """The matplotlib figure `plot` writes (on an Agg canvas), to show or restyle."""
        return _figure(self)


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
        f"- Target: {report.target.describe()}",
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
            "## Latency",
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
    figure = _figure(report)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", dpi=100)
    return path


def _figure(report: CalibrationReport) -> "Figure":
    # The object-oriented API on an Agg canvas: no pyplot, no global backend, no display.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = 1
    if report.dimensions:
        count = len(report.dimensions)
        columns = min(count, 2)
        rows = -(-count // columns)
        figure = Figure(figsize=(5 * columns, 4.5 * rows), layout="constrained")
        canvas = FigureCanvasAgg(figure)
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
        canvas = FigureCanvasAgg(figure)
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
    suptitle = figure.suptitle(f"{report.judge} vs humans on {Path(report.dataset.path).name}")
    # Judge names and file names can be long: a title wider than its room is wrapped, as a
    # centred line past the figure's edges is cut off at both ends. The constrained layout
    # then makes room for the added lines.
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]  # untyped in Agg
    room = figure.bbox.width * _TITLE_ROOM
    _wrap_to(suptitle, room, renderer)
    for ax in figure.axes[: len(report.dimensions) or 1]:
        _wrap_to(ax.title, room / columns, renderer)
    return figure


# The share of its width a title may take: constrained layout keeps a margin at each side.
_TITLE_ROOM = 0.94
_SHORTEST_LINE = 12


def _wrap_to(title: "Text", width: float, renderer: "RendererBase") -> None:
    """Wraps `title` onto as many lines as it takes to be at most `width` pixels wide."""
    words = title.get_text()
    chars = len(words)
    while title.get_window_extent(renderer).width > width and chars > _SHORTEST_LINE:
        chars = max(_SHORTEST_LINE, chars * 9 // 10)
        title.set_text(textwrap.fill(words, chars))


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
