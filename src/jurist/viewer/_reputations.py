"""Judges' reputations: every judge's score and metrics with all their scores over time in
one chart (/view/reputations), and one judge's history as a chart and a table of the
changes that moved it, each naming the cycle or tournament behind it
(/view/reputations/{judge_id}). Each page's value is its JSON twin under /view/api.

Reputations belong to no API key: the cycles and tournaments that move them run from the
command line, as the operator. So they are the operator's records: `jurist view` and an
admin key read them; a user key reads none (a judge's page is missing for it)."""

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from jurist.autonomy import ReputationChange, tournament_of
from jurist.viewer._context import Look, Looking, page
from jurist.viewer._errors import error_responses, not_found
from jurist.viewer._svg import line_chart

router = APIRouter()

# The newest changes of a judge that its chart and table show.
HISTORY_SHOWN = 500
CHART_WIDTH = 1180  # the page's width: every judge's line side by side


class Point(BaseModel):
    at: datetime
    score: float


class ReputationRow(BaseModel):
    judge_id: str
    score: float
    metrics: dict[str, Any]
    shown: int = Field(description=f"changes shown: the newest {HISTORY_SHOWN} at most")


class ReputationList(BaseModel):
    """Every judge's reputation, best first, and each one's score after each change."""

    judges: list[ReputationRow]
    series: dict[str, list[Point]] = Field(
        description=f"by judge id, its score before the first of its newest {HISTORY_SHOWN} "
        "changes, then after each"
    )


class ChangeRow(BaseModel):
    event: str
    delta: float
    before: float
    after: float
    cycle_id: str | None = Field(description="the cycle or tournament that moved it")
    tournament: str | None = Field(description="the tournament's run id, when one moved it")
    note: str
    at: datetime


class ReputationDetail(ReputationRow):
    """One judge: its score, metrics and newest changes, newest first."""

    changes: list[ChangeRow]
    points: list[Point] = Field(
        description="its score before the first change shown, then after each"
    )


def _may_read(look: Looking) -> bool:
    return look.viewer.may_read(None)


def _points(history: list[ReputationChange]) -> list[Point]:
    """The score where the first change found it, then after each change."""
    if not history:
        return []
    start = Point(at=history[0].at, score=history[0].before)
    return [start, *(Point(at=change.at, score=change.after) for change in history)]


async def list_reputations(look: Looking) -> ReputationList:
    if not _may_read(look):
        return ReputationList(judges=[], series={})
    found = await look.autonomy.reputations()
    series = {}
    judges = []
    for reputation in found:
        history = await look.autonomy.reputation_history(reputation.judge_id, HISTORY_SHOWN)
        series[reputation.judge_id] = _points(history)
        judges.append(
            ReputationRow(
                judge_id=reputation.judge_id,
                score=reputation.score,
                metrics=reputation.metrics.model_dump(mode="json"),
                shown=len(history),
            )
        )
    return ReputationList(judges=judges, series=series)


async def one_reputation(look: Looking, judge_id: str) -> ReputationDetail:
    found = None
    if _may_read(look):
        try:
            found = await look.autonomy.get_reputation(judge_id, with_history=False)
        except ValueError:  # blank, or longer than any judge id is: no such judge
            found = None
    if found is None:
        raise not_found(f"reputation of judge {judge_id}")
    history = await look.autonomy.reputation_history(judge_id, HISTORY_SHOWN)
    changes = [
        ChangeRow(
            event=change.event.value,
            delta=change.delta,
            before=change.before,
            after=change.after,
            cycle_id=change.cycle_id,
            tournament=tournament_of(change.cycle_id),
            note=change.note,
            at=change.at,
        )
        for change in reversed(history)
    ]
    return ReputationDetail(
        judge_id=found.judge_id,
        score=found.score,
        metrics=found.metrics.model_dump(mode="json"),
        changes=changes,
        points=_points(history),
        shown=len(changes),
    )


@router.get(
    "/api/reputations",
    response_model=ReputationList,
    summary="Every judge's reputation",
    description="Each judge's reputation score and metrics, best first, and its score after "
    f"each of its newest {HISTORY_SHOWN} changes (the list page draws them in one chart). "
    "Reputations are the operator's records: a user key reads none.",
    tags=["viewer"],
    responses=error_responses(503),
)
async def reputations_json(look: Look) -> ReputationList:
    return await list_reputations(look)


@router.get("/reputations", include_in_schema=False, response_class=HTMLResponse)
async def reputations_page(request: Request, look: Look) -> HTMLResponse:
    listed = await list_reputations(look)
    chart = line_chart(
        {judge: [(p.at, p.score) for p in points] for judge, points in listed.series.items()},
        x_label="time (UTC)",
        y_label="reputation score",
        title="Reputation scores over time",
        width=CHART_WIDTH,
    )
    return page(look, request, "reputations.html", {"listed": listed, "chart": chart})


@router.get(
    "/api/reputations/{judge_id}",
    response_model=ReputationDetail,
    summary="One judge's reputation and its history",
    description="A judge's reputation score and metrics, and its newest changes, newest "
    "first: the event, the step, the score before and after, the cycle or tournament that "
    "moved it, the note, when. 404 for a judge with no stored reputation.",
    tags=["viewer"],
    responses=error_responses(404, 422, 503),
)
async def reputation_json(look: Look, judge_id: str) -> ReputationDetail:
    return await one_reputation(look, judge_id)


@router.get("/reputations/{judge_id}", include_in_schema=False, response_class=HTMLResponse)
async def reputation_page(request: Request, look: Look, judge_id: str) -> HTMLResponse:
    detail = await one_reputation(look, judge_id)
    chart = line_chart(
        {detail.judge_id: [(point.at, point.score) for point in detail.points]},
        x_label="time (UTC)",
        y_label="reputation score",
        title=f"Reputation of {detail.judge_id}",
        width=CHART_WIDTH // 2,
    )
    return page(look, request, "reputation.html", {"detail": detail, "chart": chart})
