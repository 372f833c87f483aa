"""The plots of a calibration report page, drawn from the same value its JSON twin answers:
judge against human per dimension (the diagonal is perfect agreement), the two scores'
distributions side by side, and the confusion matrices."""

from dataclasses import dataclass, field

from markupsafe import Markup

from jurist.viewer._calibration_models import CalibrationComparison, CalibrationDetail, Measure
from jurist.viewer._calibration_read import WHOLE_SCALE
from jurist.viewer._svg import Estimated, confusion_matrix, histogram, intervals, scatter

# Bins of a longer scale's histogram; a short one gets one bin per whole score, centred on it.
BINS = 10
PAD = 0.06
COMPARE_WIDTH = 960


@dataclass(frozen=True)
class DimensionPlots:
    name: str
    scatter: Markup
    histogram: Markup


@dataclass(frozen=True)
class ReportPlots:
    dimensions: list[DimensionPlots] = field(default_factory=list)
    confusions: list[Markup] = field(default_factory=list)


def report_plots(detail: CalibrationDetail) -> ReportPlots:
    dimensions = []
    for dimension in detail.dimensions:
        scored = [(p.human, p.judge) for p in dimension.points if p.judge is not None]
        low, high = detail.scale or (0.0, 1.0)
        whole = high - low <= WHOLE_SCALE
        edges = (low - 0.5, high + 0.5) if whole else (low, high)
        # A little room beyond the scale's ends, so that a dot on an end is not cut in half.
        pad = (high - low) * PAD
        axis = (low - pad, high + pad)
        dimensions.append(
            DimensionPlots(
                name=dimension.name,
                scatter=scatter(
                    scored,
                    x_label="human score",
                    y_label="judge score",
                    x_range=axis,
                    y_range=axis,
                    diagonal=True,
                    title=f"{dimension.name}: judge against human",
                ),
                histogram=histogram(
                    {
                        "judge": [judge for _, judge in scored],
                        "human": [p.human for p in dimension.points],
                    },
                    bins=int(high - low) + 1 if whole else BINS,
                    range=edges,
                    x_label="score",
                    title=f"{dimension.name}: score distributions",
                ),
            )
        )
    confusions = [
        confusion_matrix(
            found.matrix,
            found.labels,
            x_label="judge",
            y_label="human",
            title=found.title,
        )
        for found in detail.confusions
    ]
    return ReportPlots(dimensions, confusions)


def comparison_plot(compared: CalibrationComparison) -> Markup:
    """Every compared statistic's value and interval in both reports, a row each."""
    rows = []
    for change in compared.changes:
        drawn: list[Estimated] = [
            _estimated(side, measure)
            for side, measure in (("before", change.before), ("after", change.after))
            if measure is not None
        ]
        rows.append((f"{change.group} · {change.level} · {change.title}", drawn))
    return intervals(
        rows, x_label="value", title="before and after, with intervals", width=COMPARE_WIDTH
    )


def _estimated(side: str, measure: Measure) -> Estimated:
    return (side, measure.value, measure.low, measure.high)
