"""Reading the stored calibration reports for the viewer: the runs that keep one (narrowed to
what the viewer may read, paged in SQL), one report made into its statistics and plot data,
and two compared through `jurist.calibration.compare_reports`.

A calibration run keeps its report in its summary (`jurist.calibration.REPORT_KEY`), with
every item's human and judge score: the plots are drawn from those, without reading the
run's judgments or its dataset again."""

import math
from collections.abc import Iterable

from pydantic import ValidationError

from jurist.calibration import (
    REPORT_KEY,
    SIGNED_STATISTICS,
    STATISTIC_TITLES,
    CalibrationReport,
    DimensionResult,
    Estimate,
    Point,
    compare_reports,
)
from jurist.store import StoredRun
from jurist.viewer._calibration_models import (
    CalibrationComparison,
    CalibrationDetail,
    CalibrationList,
    ChangeOfStatistic,
    Confusion,
    Cost,
    DimensionDetail,
    Latency,
    Measure,
    RunOfReport,
    ScorePoint,
    Statistic,
)
from jurist.viewer._context import Looking, Paging
from jurist.viewer._errors import ViewerError, bad_parameter, not_found

SORTS = ("started", "name")
# A rating scale this short or shorter gets one histogram bin and one matrix row per score.
WHOLE_SCALE = 10


async def calibration_list(
    look: Looking, paged: Paging, search: str | None, sort: str
) -> CalibrationList:
    """The calibration runs `look.viewer` may read, one page of them."""
    if sort not in SORTS:
        raise bad_parameter("sort", f"{sort!r} is not one of {', '.join(SORTS)}")
    wanted = (search or "").strip() or None
    if wanted is not None and len(wanted) > 200:
        raise bad_parameter("search", "at most 200 characters")
    total, found = await look.records.page_runs(
        key_id=look.viewer.owner,
        summary_key=REPORT_KEY,
        search=wanted,
        sort="started" if sort == "started" else "name",
        descending=sort == "started",
        limit=paged.per_page,
        offset=paged.offset,
    )
    # A report this jurist cannot read (kept by another version) is named, not shown: one
    # such run does not hide the others.
    read = [(stored, _readable_report(stored)) for stored in found]
    return CalibrationList(
        total=total,
        page=paged.page,
        per_page=paged.per_page,
        pages=paged.pages(total),
        search=wanted,
        sort=sort,
        runs=[about(stored, report) for stored, report in read if report is not None],
        unreadable=[stored.id for stored, report in read if report is None],
    )


async def calibration_detail(look: Looking, run: str) -> CalibrationDetail:
    stored = await _readable(look, run, "run")
    report = _report(stored)
    dimensions = [
        DimensionDetail(
            name=name,
            verdict=str(result.verdict),
            reason=result.reason,
            n=result.correlations.n,
            missing=result.correlations.missing,
            points=[ScorePoint(id=p.id, human=p.human, judge=p.judge) for p in result.points],
        )
        for name, result in report.dimensions.items()
    ]
    return CalibrationDetail(
        about=about(stored, report),
        reason=report.reason,
        intervals=(
            f"{report.confidence:.0%} percentile bootstrap, {report.n_boot} resamples, "
            f"seed {report.seed}"
        ),
        statistics=statistics(report),
        dimensions=dimensions,
        scale=_scale(report),
        confusions=_confusions(report),
        latency=None if report.latency is None else Latency(**report.latency.model_dump()),
        cost=None if report.cost is None else Cost(**report.cost.model_dump()),
    )


async def calibration_comparison(
    look: Looking, a: str | None, b: str | None
) -> CalibrationComparison:
    """Report `a` (before) against report `b` (after), by `compare_reports`."""
    first = await _readable(look, _given(a, "a"), "a")
    second = await _readable(look, _given(b, "b"), "b")
    before, after = _report(first), _report(second)
    try:
        compared = compare_reports(before, after)
    except ValueError as exc:
        raise bad_parameter("b", str(exc).removeprefix("after: ")) from None
    changes = [
        ChangeOfStatistic(
            group=change.dimension,
            level=change.level,
            metric=change.metric,
            title=STATISTIC_TITLES.get(change.metric, change.metric),
            before=_measure(change.metric, change.before),
            after=_measure(change.metric, change.after),
            change=change.change,
            overlap=change.overlap,
            beyond=change.overlap is False,
        )
        for change in compared.changes
    ]
    return CalibrationComparison(
        a=about(first, before),
        b=about(second, after),
        same_dataset=compared.same_dataset,
        changes=changes,
        beyond=sum(change.beyond for change in changes),
        latency_p95_change=compared.latency_p95_change,
    )


def about(stored: StoredRun, report: "CalibrationReport") -> RunOfReport:
    return RunOfReport(
        run=stored.id,
        name=stored.name,
        status=stored.status,
        created_at=stored.created_at,
        key_id=stored.key_id,
        judge=report.judge,
        model=report.model,
        dataset=report.dataset.path,
        dataset_sha256=report.dataset.sha256,
        kind=str(report.dataset.kind),
        n=report.dataset.n,
        dimensions=list(report.dimensions),
        target=report.target.describe(),
        verdict=str(report.verdict),
        headline=_headline(report),
    )


def statistics(report: "CalibrationReport") -> list[Statistic]:
    """Every statistic the report holds, in the order its markdown shows them."""
    found: list[Statistic] = []
    for name, result in report.dimensions.items():
        found += _dimension_statistics(name, result)
    kind = str(report.dataset.kind)
    if report.binary is not None:
        binary = report.binary
        found += [
            _statistic(kind, "all", metric, binary.get(metric))
            for metric in ("accuracy", "balanced_accuracy", "f1", "auc")
        ]
    if report.pairwise is not None:
        pairwise = report.pairwise
        found += [
            _statistic(kind, "all", metric, pairwise.get(metric))
            for metric in ("accuracy", "agreement", "position_consistency")
        ]
    if report.agreement is not None:
        found += [
            _statistic(kind, "chance-corrected", "kappa", report.agreement.kappa),
            _statistic(kind, "chance-corrected", "alpha", report.agreement.alpha),
        ]
    return found


def _dimension_statistics(name: str, result: "DimensionResult") -> list[Statistic]:
    correlations = result.correlations
    found = [
        _statistic(name, "pooled", metric, correlations.pooled.get(metric))
        for metric in ("pearson", "spearman", "kendall")
    ]
    grouped = correlations.per_group
    if grouped is not None:
        level = f"per document ({grouped.groups_used} used, {grouped.groups_skipped} skipped)"
        found += [
            _statistic(name, level, metric, grouped.get(metric))
            for metric in ("pearson", "spearman", "kendall")
        ]
    agreement = result.agreement
    weights = f", {agreement.kappa_weights}" if agreement.kappa_weights else ""
    found += [
        _statistic(name, f"chance-corrected (rounded{weights})", "kappa", agreement.kappa),
        _statistic(name, f"chance-corrected ({agreement.alpha_level})", "alpha", agreement.alpha),
    ]
    if result.top is not None:
        found += [
            _statistic(name, "top of the scale", "auc", result.top.auc),
            _statistic(name, "top of the scale", "balanced_accuracy", result.top.balanced_accuracy),
        ]
    return found


def _statistic(group: str, level: str, metric: str, estimate: "Estimate") -> Statistic:
    return Statistic(
        group=group,
        level=level,
        metric=metric,
        title=STATISTIC_TITLES.get(metric, metric),
        value=estimate.value,
        low=estimate.low,
        high=estimate.high,
        n=estimate.n,
        reason=estimate.reason,
        shown=_shown(metric, estimate),
    )


def _shown(metric: str, estimate: "Estimate") -> str:
    return estimate.format(signed=metric in SIGNED_STATISTICS)


def _measure(metric: str, estimate: "Estimate | None") -> Measure | None:
    if estimate is None:
        return None
    return Measure(
        value=estimate.value,
        low=estimate.low,
        high=estimate.high,
        n=estimate.n,
        reason=estimate.reason,
        shown=_shown(metric, estimate),
    )


def _headline(report: "CalibrationReport") -> list[Statistic]:
    """The target's statistic: per dimension for ratings, else the dataset's one."""
    target = report.target
    kind = str(report.dataset.kind)
    if report.dimensions:
        level = "pooled" if target.level == "pooled" else "per document"
        return [
            _statistic(name, level, target.metric, estimate)
            for name, result in report.dimensions.items()
            if (estimate := result.estimate(target.metric, target.level)) is not None
        ]
    if report.binary is not None:
        return [_statistic(kind, "all", target.metric, report.binary.get(target.metric))]
    if report.pairwise is not None:
        return [_statistic(kind, "all", target.metric, report.pairwise.get(target.metric))]
    return []


def _scale(report: "CalibrationReport") -> tuple[float, float] | None:
    """The whole numbers around every score in the report: both axes of its plots."""
    scores = [
        value
        for result in report.dimensions.values()
        for point in result.points
        for value in (point.human, point.judge)
        if value is not None
    ]
    if not scores:
        return None
    low, high = math.floor(min(scores)), math.ceil(max(scores))
    return (float(low), float(high if high > low else low + 1))


def _confusions(report: "CalibrationReport") -> list[Confusion]:
    if report.binary is not None:
        counts = report.binary.counts
        matrix = [
            [counts.true_negative, counts.false_positive],
            [counts.false_negative, counts.true_positive],
        ]
        return [Confusion(title="labels", labels=["false", "true"], matrix=matrix)]
    if report.pairwise is not None:
        pairwise = report.pairwise
        return [
            Confusion(title="preferences", labels=list(pairwise.classes), matrix=pairwise.confusion)
        ]
    scale = _scale(report)
    if scale is None or scale[1] - scale[0] > WHOLE_SCALE:
        return []
    return [
        _rounded(name, result.points, int(scale[0]), int(scale[1]))
        for name, result in report.dimensions.items()
    ]


def _rounded(name: str, points: Iterable["Point"], low: int, high: int) -> Confusion:
    """The scores rounded to whole numbers (as Cohen's kappa compares them), human by
    judge."""
    size = high - low + 1
    matrix = [[0] * size for _ in range(size)]
    for point in points:
        if point.judge is not None:
            matrix[_whole(point.human, low, high) - low][_whole(point.judge, low, high) - low] += 1
    return Confusion(
        title=name,
        labels=[str(score) for score in range(low, high + 1)],
        matrix=matrix,
        note="scores rounded to whole numbers, as Cohen's kappa compares them",
    )


def _whole(score: float, low: int, high: int) -> int:
    # Half up, as people round a score (Python's round() rounds half to even).
    return min(high, max(low, math.floor(score + 0.5)))


def _given(run: str | None, parameter: str) -> str:
    if not (run or "").strip():
        raise bad_parameter(parameter, "give the id or name of a calibration run")
    return (run or "").strip()


async def _readable(look: Looking, run: str, parameter: str) -> StoredRun:
    """The stored calibration run `run` (id or name) if the viewer may read it: one it
    may not read is missing, as one that is not there."""
    if len(run) > 200:
        raise bad_parameter(parameter, "at most 200 characters")
    stored = await look.records.get_run(run)
    if stored is None or not look.viewer.may_read(stored.key_id):
        raise not_found(f"calibration run {run!r}")
    if REPORT_KEY not in (stored.summary or {}):
        raise not_found(f"calibration report in run {run!r} (it is not a calibration run)")
    return stored


def _readable_report(stored: StoredRun) -> "CalibrationReport | None":
    try:
        return _report(stored)
    except ViewerError:
        return None


def _report(stored: StoredRun) -> "CalibrationReport":
    try:
        return CalibrationReport.model_validate((stored.summary or {})[REPORT_KEY])
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ViewerError(
            500,
            f"run {stored.id}: its calibration report cannot be read ({where}: {problem['msg']})",
        ) from None
