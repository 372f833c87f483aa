"""What the calibration pages show and their JSON twins answer: a list of the stored
calibration runs, one report's statistics with their intervals and the data of its plots,
and two reports compared. The viewer's own models, flat and documented, so that a client
reads them without knowing how a report is kept (and so that they exist even where the
calibration extra, which reads reports, is not installed)."""

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Statistic(_Model):
    """One statistic of a report with its bootstrap interval (`low`..`high`, None: no
    interval) over `n` items (or documents); `value` None: undefined, and `reason` says why."""

    group: str = Field(description="the dimension (ratings), or the dataset's kind")
    level: str = Field(description="pooled, per document, top of the scale, chance-corrected")
    metric: str = Field(description="pearson, spearman, kendall, kappa, alpha, auc, ...")
    title: str = Field(description="the statistic's name as shown")
    value: float | None
    low: float | None
    high: float | None
    n: int
    reason: str | None = None
    shown: str = Field(description="the value and its interval as text, e.g. +0.84 [+0.59, +0.94]")


class RunOfReport(_Model):
    """A stored calibration run and the report it keeps, as a list shows it."""

    run: str = Field(description="the run's id")
    name: str | None
    status: str
    created_at: datetime
    key_id: str | None = Field(description="the API key that made it; None: the operator")
    judge: str
    model: str
    dataset: str = Field(description="the path of the human-rated dataset")
    dataset_sha256: str
    kind: str = Field(description="ratings, binary or pairwise")
    n: int = Field(description="items in the dataset")
    dimensions: list[str]
    target: str = Field(description="the bar the judge must meet, e.g. Pearson (pooled) >= 0.70")
    verdict: str = Field(description="PASS when the target is met (every dimension's)")
    headline: list[Statistic] = Field(description="the target's statistic, per dimension")


class CalibrationList(_Model):
    """One page of the stored calibration runs the viewer may read, newest first."""

    total: int
    page: int
    per_page: int
    pages: int
    search: str | None
    sort: str
    runs: list[RunOfReport]
    unreadable: list[str] = Field(
        description="ids of the runs on this page whose report this jurist cannot read"
    )


class ScorePoint(_Model):
    """One item's human score and the judge's (None: the judge gave none)."""

    id: str
    human: float
    judge: float | None


class DimensionDetail(_Model):
    """One rated dimension: its verdict against the target and every item's two scores."""

    name: str
    verdict: str
    reason: str
    n: int = Field(description="items with both scores")
    missing: int = Field(description="items the judge gave no score")
    points: list[ScorePoint]


class Confusion(_Model):
    """How many items had `labels[row]` from the humans and `labels[column]` from the
    judge."""

    title: str
    labels: list[str]
    matrix: list[list[int]]
    note: str | None = None


class Latency(_Model):
    n: int
    p50: float
    p95: float
    mean: float
    max: float
    limit_s: float
    verdict: str


class Cost(_Model):
    """Model calls and tokens per judged item."""

    items: int
    calls: float
    input_tokens: float
    output_tokens: float


class CalibrationDetail(_Model):
    """One stored calibration report: every statistic with its interval, the per-item
    scores behind the scatter plots and histograms, and the confusion matrices."""

    about: RunOfReport
    reason: str = Field(description="why the verdict is what it is")
    intervals: str = Field(description="how the intervals were drawn")
    statistics: list[Statistic]
    dimensions: list[DimensionDetail]
    scale: tuple[float, float] | None = Field(
        description="the range of every score in the report (the plots' axes)"
    )
    confusions: list[Confusion]
    latency: Latency | None
    cost: Cost | None


class Measure(_Model):
    """A statistic's value and interval in one report (`value` None: undefined)."""

    value: float | None
    low: float | None
    high: float | None
    n: int
    reason: str | None = None
    shown: str = Field(description="the value and its interval as text")


class ChangeOfStatistic(_Model):
    """One statistic in both reports (None: absent from that report): the change, and
    whether it moved beyond the noise (`beyond`: the two intervals do not overlap;
    `overlap` None: an interval is missing)."""

    group: str
    level: str
    metric: str
    title: str
    before: Measure | None
    after: Measure | None
    change: float | None
    overlap: bool | None
    beyond: bool


class CalibrationComparison(_Model):
    """Report `a` (before) against report `b` (after), as `jurist calibrate --compare`
    shows them."""

    a: RunOfReport
    b: RunOfReport
    same_dataset: bool
    changes: list[ChangeOfStatistic]
    beyond: int = Field(description="how many statistics moved beyond their intervals")
    latency_p95_change: float | None = Field(description="seconds, after minus before")
