"""What the runs' pages show, as the JSON under /view/api/runs answers it: the same values
draw the pages."""

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

RunKind = Literal["eval", "calibration", "pytest", "tournament"]
RunStatus = Literal["running", "done", "interrupted", "failed"]
JudgmentStatus = Literal["pass", "fail", "abstain", "error"]  # jurist.core.Status's values
RunSort = Literal["started", "name", "cost", "duration"]
ItemSort = Literal["item", "score", "status"]
Order = Literal["asc", "desc"]


class Pages(BaseModel):
    page: int = Field(description="1 is the first page")
    per_page: int
    pages: int = Field(description="how many pages the matching rows fill (at least 1)")
    total: int = Field(description="how many rows match the filters")


class RunRow(BaseModel):
    """One run as the list shows it."""

    id: str
    name: str | None
    kind: str = Field(description="eval, calibration (an eval run that kept a report), pytest")
    status: str = Field(description="running, done, interrupted or failed")
    dataset: str | None = Field(description="the dataset file's path; None for rows in memory")
    dataset_items: int | None
    dataset_sha256: str | None
    judge: str | None = Field(description="the name of the run's judge")
    counts: dict[str, int] = Field(description="the run judge's judgments by status")
    cost_usd: float | None
    duration_seconds: float | None = Field(description="None while the run runs")
    started: datetime
    href: str = Field(description="the run's page")


class RunsFilters(BaseModel):
    kind: str | None
    status: str | None
    search: str | None
    sort: RunSort
    order: Order


class RunsList(BaseModel):
    """A page of the runs the viewer may read, filtered and sorted."""

    runs: list[RunRow]
    paging: Pages
    filters: RunsFilters
    kinds: list[str] = Field(description="the kinds a filter may name")
    statuses: list[str] = Field(description="the statuses a filter may name")


class JudgeCell(BaseModel):
    """One judge's judgment of one item."""

    status: str
    score: float | None = Field(description="normalised to 0..1")
    reasoning: str = Field(description="clipped to a few hundred characters")


class ItemRow(BaseModel):
    item_id: str
    href: str = Field(description="the item's page, with its whole judgment")
    goal: str | None = Field(description="clipped; None when the inputs are not at hand")
    output: str | None = Field(description="clipped; None when the inputs are not at hand")
    judgments: dict[str, JudgeCell] = Field(description="by judge name")


class OtherRun(BaseModel):
    id: str
    name: str | None
    started: datetime
    status: str


class ItemFilters(BaseModel):
    judge: str | None = Field(description="the judge whose status `status` filters by")
    status: str | None
    search: str | None
    sort: ItemSort
    order: Order


class RunView(BaseModel):
    """One run: its header, and a page of its items with every judge's judgment."""

    run: RunRow
    model: str | None
    spec: dict[str, Any] | None
    summary: dict[str, Any] | None
    finished: datetime | None
    verdict_judge: str | None = Field(description="the judge whose judgment is the item's")
    judges: list[str] = Field(description="every judge with judgments in the run")
    counts: dict[str, int] = Field(description="the filtered judge's judgments by status")
    items: list[ItemRow]
    paging: Pages
    filters: ItemFilters
    inputs_note: str | None = Field(
        description="why the items' inputs are not shown (the dataset is gone or changed)"
    )
    same_dataset: list[OtherRun] = Field(description="other runs of the same dataset")
