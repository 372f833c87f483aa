"""Tournaments of judge variants, as `jurist tournament` keeps them (a run of kind
"tournament": what it ran, and its standings as the summary): the list
(/view/tournaments) and one tournament's standings with every statistic, each variant linked
to its reputation (/view/tournaments/{run}). Each page's value is its JSON twin."""

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from jurist.autonomy import TOURNAMENT_KIND, variant_judge_id
from jurist.store import StoredRun
from jurist.viewer._context import Look, Looking, Paged, Paging, page
from jurist.viewer._errors import error_responses, not_found
from jurist.viewer._paths import PREFIX, page_link

router = APIRouter()


class StandingRow(BaseModel):
    """One variant's place, as the tournament stored it."""

    model_config = ConfigDict(extra="ignore")

    rank: int
    variant_id: str
    technique: str
    criterion: str
    judge_id: str = Field(description="the judge its reputation is recorded under")
    fitness: float
    accuracy: float | None
    balanced_accuracy: float | None
    kappa: float | None
    auc: float | None
    consistency: float | None
    peer_agreement: float | None
    judged: int
    errors: int
    calls: int
    tokens: int
    cost_usd: float | None
    seconds: float


class PeerRow(BaseModel):
    first: str
    second: str
    cases: int
    agreement: float | None
    kappa: float | None


class TournamentRow(BaseModel):
    id: str
    name: str | None
    status: str
    model: str | None
    variants: int
    cases: int | None
    winner: str | None = Field(description="the variant ranked first")
    created_at: datetime


class TournamentList(BaseModel):
    """A page of the tournaments the caller may read, newest first."""

    total: int
    page: int
    per_page: int
    pages: int
    tournaments: list[TournamentRow]


class TournamentDetail(TournamentRow):
    """A tournament: what it ran, how it scored and its standings, best first."""

    spec: dict[str, Any]
    samples: int | None
    temperature: float | None
    fitness: dict[str, float] = Field(description="the weight of each part of the fitness")
    ground_truth_metric: str | None
    standings: list[StandingRow]
    pairs: list[PeerRow]


def _standings(summary: dict[str, Any]) -> list[StandingRow]:
    rows = []
    for row in summary.get("rows", []):
        variant = row.get("variant", {})
        try:
            rows.append(
                StandingRow.model_validate(
                    {
                        **row,
                        "variant_id": variant.get("id"),
                        "technique": variant.get("technique", ""),
                        "criterion": variant.get("criterion", ""),
                        "judge_id": row.get("judge_id") or variant_judge_id(str(variant.get("id"))),
                        "tokens": row.get("input_tokens", 0) + row.get("output_tokens", 0),
                    }
                )
            )
        except ValidationError:
            continue  # a row this viewer cannot read is left out, not guessed at
    return rows


def _row(run: StoredRun) -> TournamentRow:
    summary = run.summary or {}
    standings = summary.get("rows", [])
    first = standings[0].get("variant", {}).get("id") if standings else None
    spec = run.spec or {}
    return TournamentRow(
        id=run.id,
        name=run.name,
        status=run.status,
        model=summary.get("model") or spec.get("model"),
        variants=len(standings) or len(spec.get("variants") or []),
        cases=summary.get("cases"),
        winner=first,
        created_at=run.created_at,
    )


async def list_tournaments(look: Looking, paged: Paging) -> TournamentList:
    total, found = await look.records.page_runs(
        key_id=look.viewer.owner,
        kind=TOURNAMENT_KIND,
        limit=paged.per_page,
        offset=paged.offset,
    )
    return TournamentList(
        total=total,
        page=paged.page,
        per_page=paged.per_page,
        pages=paged.pages(total),
        tournaments=[_row(run) for run in found],
    )


async def one_tournament(look: Looking, run: str) -> TournamentDetail:
    stored = await look.records.get_run(run)
    if stored is None or stored.kind != TOURNAMENT_KIND or not look.viewer.may_read(stored.key_id):
        raise not_found(f"tournament {run}")
    summary = stored.summary or {}
    pairs = []
    for pair in summary.get("pairs", []):
        try:
            pairs.append(PeerRow.model_validate(pair))
        except ValidationError:
            continue
    return TournamentDetail(
        **_row(stored).model_dump(),
        spec=stored.spec or {},
        samples=summary.get("samples"),
        temperature=summary.get("temperature"),
        fitness={
            name: float(weight)
            for name, weight in (summary.get("fitness") or {}).items()
            if isinstance(weight, int | float)
        },
        ground_truth_metric=summary.get("ground_truth_metric"),
        standings=_standings(summary),
        pairs=pairs,
    )


@router.get(
    "/api/tournaments",
    response_model=TournamentList,
    summary="The tournaments of judge variants",
    description="The tournaments `jurist tournament` recorded that the caller may read, "
    "newest first, a page at a time: the model, how many variants and cases, the winner.",
    tags=["viewer"],
    responses=error_responses(422, 503),
)
async def tournaments_json(look: Look, paged: Paged) -> TournamentList:
    return await list_tournaments(look, paged)


@router.get("/tournaments", include_in_schema=False, response_class=HTMLResponse)
async def tournaments_page(request: Request, look: Look, paged: Paged) -> HTMLResponse:
    listed = await list_tournaments(look, paged)
    context = {
        "listed": listed,
        "previous": _link(listed, listed.page - 1),
        "next": _link(listed, listed.page + 1),
    }
    return page(look, request, "tournaments.html", context)


@router.get(
    "/api/tournaments/{run}",
    response_model=TournamentDetail,
    summary="One tournament's standings",
    description="A tournament (its run's id or name): what it ran, the fitness it ranked "
    "by, and the standings, best first: each variant's fitness, accuracy, balanced "
    "accuracy, kappa, AUC, consistency, peer agreement, errors, calls, tokens, cost, time "
    "and the judge id of its reputation; and every pair of variants compared. 404 for one "
    "that is not there or that the caller may not read.",
    tags=["viewer"],
    responses=error_responses(404, 422, 503),
)
async def tournament_json(look: Look, run: str) -> TournamentDetail:
    return await one_tournament(look, run)


@router.get("/tournaments/{run}", include_in_schema=False, response_class=HTMLResponse)
async def tournament_page(request: Request, look: Look, run: str) -> HTMLResponse:
    detail = await one_tournament(look, run)
    return page(look, request, "tournament.html", {"detail": detail})


def _link(listed: TournamentList, number: int) -> str | None:
    query = {"per_page": listed.per_page}
    return page_link(f"{PREFIX}/tournaments", query, number, listed.pages)
