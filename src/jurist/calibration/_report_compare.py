"""Two calibration reports compared: what changed per dimension and metric, and whether
the intervals overlap (drift)."""

from pydantic import BaseModel, ConfigDict

from jurist.calibration._estimates import (
    COEFFICIENTS,
    Estimate,
)
from jurist.calibration._report import (
    _LEVELS,
    _METRICS,
    SIGNED_STATISTICS,
    STATISTIC_TITLES,
    CalibrationReport,
)
from jurist.data import DatasetKind


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
            signed = change.metric in SIGNED_STATISTICS
            before = change.before.format(signed=signed) if change.before else "absent"
            after = change.after.format(signed=signed) if change.after else "absent"
            delta = f"{change.change:+.2f}" if change.change is not None else "n/a"
            overlap = {True: "overlap", False: "**disjoint**", None: "n/a"}[change.overlap]
            title = STATISTIC_TITLES.get(change.metric, change.metric)
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
