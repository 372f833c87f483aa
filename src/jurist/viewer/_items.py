"""One item of a run with its whole judgment, and two runs of a dataset compared item by
item. Each page's JSON twin under /view/api comes from the same function."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from jurist.store import StoredRun
from jurist.viewer._compare import CHANGE_FILTERS, Comparison, compare
from jurist.viewer._context import Look, Looking, Paged, page
from jurist.viewer._errors import error_responses, not_found
from jurist.viewer._item_view import ItemView, item_view
from jurist.viewer._run_inputs import run_inputs

router = APIRouter()

RunParameter = Annotated[str, Query(description="a run's id or name")]
Only = Annotated[
    str,
    Query(description=f"which items: {', '.join(CHANGE_FILTERS)} (changed: every kind but same)"),
]
Force = Annotated[
    bool, Query(description="compare runs of different datasets (by sha256) item by item")
]


async def readable_run(look: Looking, run: str) -> StoredRun:
    """The run named `run` when this viewer may read it; else 404, as for no run at all."""
    found = await look.records.get_run(run)
    if found is None or not look.viewer.may_read(found.key_id):
        raise not_found(f"run {run!r}")
    return found


async def item_of(look: Looking, run: str, item_id: str) -> ItemView:
    found = await readable_run(look, run)
    stored = await look.records.item_judgments(found.id, item_id)
    if not stored:
        raise not_found(f"item {item_id!r} in run {run!r}")
    inputs = await run_inputs(found.spec or {})
    return item_view(found, item_id, stored, inputs.contexts.get(item_id), inputs.note)


async def comparison_of(
    look: Looking, a: str, b: str, *, only: str, force: bool, paged: Paged
) -> Comparison:
    first, second = await readable_run(look, a), await readable_run(look, b)
    return await compare(look.records, first, second, only=only, force=force, paging=paged)


@router.get(
    "/api/runs/{run}/items/{item_id:path}",
    response_model=ItemView,
    responses=error_responses(404, 422, 503),
    tags=["viewer"],
    summary="One item of a run with its whole judgment",
    description=(
        "The item's inputs (read again from the run's dataset file; `inputs_note` says why "
        "when they cannot be), with each claim's quote marked in the source, and every "
        "judgment stored for it: the run's verdict with its jury's votes as `members`, then "
        "any other judge's; each with status, score, confidence, reasoning, checks, its "
        "typed report, model, parameters, tokens, cost, latency and, when the run kept "
        "them, the calls (prompts sent, raw answers). `total` sums the verdicts' usage."
    ),
)
async def item_json(look: Look, run: str, item_id: str) -> ItemView:
    return await item_of(look, run, item_id)


@router.get(
    "/runs/{run}/items/{item_id:path}", response_class=HTMLResponse, include_in_schema=False
)
async def item_page(look: Look, request: Request, run: str, item_id: str) -> Response:
    view = await item_of(look, run, item_id)
    return page(look, request, "item.html", {"item": view})


@router.get(
    "/api/compare",
    response_model=Comparison,
    responses=error_responses(404, 422, 503),
    tags=["viewer"],
    summary="Two runs of one dataset compared item by item",
    description=(
        "Each item's verdict (status, score) in run `a` and run `b` and what changed: "
        "`status` (a flip), `score` (moved), `added` (only b judged it), `removed` (only a "
        "did), `same`. Rows come status flips first, then the largest score moves; "
        "`changes` counts each kind and `flips` each status flip over every item. Runs of "
        "different datasets (by sha256) are refused with 422 unless `force=true`."
    ),
)
async def compare_json(
    look: Look,
    *,
    paged: Paged,
    a: RunParameter,
    b: RunParameter,
    only: Only = "all",
    force: Force = False,
) -> Comparison:
    return await comparison_of(look, a, b, only=only, force=force, paged=paged)


@router.get("/compare", response_class=HTMLResponse, include_in_schema=False)
async def compare_page(
    look: Look,
    *,
    request: Request,
    paged: Paged,
    a: RunParameter,
    b: RunParameter,
    only: Only = "all",
    force: Force = False,
) -> Response:
    view = await comparison_of(look, a, b, only=only, force=force, paged=paged)
    context = {"compared": view, "filters": CHANGE_FILTERS, "force": force}
    return page(look, request, "compare.html", context)
