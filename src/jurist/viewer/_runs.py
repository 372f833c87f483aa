"""Runs: the list of runs, and one run's page of items. Each page at /view/runs... has its
JSON twin at /view/api/runs..., both drawn from one value."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from jurist.calibration import REPORT_KEY
from jurist.viewer._context import PER_PAGE, Look, Looking, Paged, Paging, page
from jurist.viewer._errors import bad_parameter, error_responses
from jurist.viewer._paths import PREFIX, with_query
from jurist.viewer._run_models import (
    ItemSort,
    JudgmentStatus,
    Order,
    Pages,
    RunKind,
    RunsFilters,
    RunsList,
    RunSort,
    RunStatus,
    RunView,
)
from jurist.viewer._run_page import item_columns, run_view
from jurist.viewer._run_rows import (
    CALIBRATION,
    EVAL,
    FORMATS,
    KINDS,
    MAX_SEARCH,
    RUN_STATUSES,
    chosen,
    ordered,
    run_counts,
    run_judge,
    run_row,
    searched,
    sort_mark,
)

router = APIRouter()

RUN_SORTS: tuple[RunSort, ...] = ("started", "name", "cost", "duration")

# The JSON routes' parameters, typed so that the OpenAPI schema says what each may be.
KindChoice = Annotated[RunKind | None, Query(description="a calibration is an eval run's kind")]
RunStatusChoice = Annotated[RunStatus | None, Query()]
SearchText = Annotated[
    str | None, Query(max_length=MAX_SEARCH, description="text sought, ignoring case")
]
RunSortChoice = Annotated[RunSort | None, Query(description="started by default")]
OrderChoice = Annotated[Order | None, Query()]
JudgeName = Annotated[
    str | None, Query(description="the judge whose status filters the items (the run's own)")
]
ItemStatusChoice = Annotated[JudgmentStatus | None, Query()]
ItemSortChoice = Annotated[ItemSort | None, Query(description="item by default")]
# The pages' parameters, checked by the same code: a bad one is an error page naming it.
Text = Annotated[str | None, Query()]


def _run_sort(value: str | None) -> RunSort:
    if value is None or not value.strip():
        return "started"
    for sort in RUN_SORTS:
        if value == sort:
            return sort
    raise bad_parameter("sort", f"{value!r} is not one of {', '.join(RUN_SORTS)}")


async def runs_list(
    look: Looking,
    paging: Paging,
    *,
    kind: str | None,
    status: str | None,
    search: str | None,
    sort: str | None,
    order: str | None,
) -> RunsList:
    filters = RunsFilters(
        kind=chosen("kind", kind, KINDS),
        status=chosen("status", status, RUN_STATUSES),
        search=searched(search),
        sort=_run_sort(sort),
        order=ordered(order, "desc"),
    )
    # A calibration is an eval run whose summary keeps its report; an eval run keeps none.
    calibration = filters.kind == CALIBRATION
    total, found = await look.records.page_runs(
        key_id=look.viewer.owner,
        kind=EVAL if calibration else filters.kind,
        summary_key=REPORT_KEY if filters.kind in (EVAL, CALIBRATION) else None,
        summary_holds=calibration,
        status=filters.status,
        search=filters.search,
        sort=filters.sort,
        descending=filters.order == "desc",
        limit=paging.per_page,
        offset=paging.offset,
    )
    rows = [run_row(run, await run_counts(look.records, run, run_judge(run))) for run in found]
    return RunsList(
        runs=rows,
        paging=Pages(
            page=paging.page, per_page=paging.per_page, pages=paging.pages(total), total=total
        ),
        filters=filters,
        kinds=list(KINDS),
        statuses=list(RUN_STATUSES),
    )


@router.get(
    "/api/runs",
    response_model=RunsList,
    responses=error_responses(422, 503),
    tags=["viewer"],
    summary="The runs, filtered, sorted and paged",
    description=(
        "The runs the caller may read (a user key: the runs it made), newest first unless "
        "`sort` (started, name, cost, duration) and `order` (asc, desc) say otherwise; "
        "filtered by `kind`, `status`, and `search` (in the name, id and dataset path). "
        "Each with its dataset, judge, counts by status, cost and duration. The JSON of the "
        "page /view/runs."
    ),
)
async def runs_json(
    look: Look,
    paged: Paged,
    *,
    kind: KindChoice = None,
    status: RunStatusChoice = None,
    search: SearchText = None,
    sort: RunSortChoice = None,
    order: OrderChoice = None,
) -> RunsList:
    return await runs_list(
        look, paged, kind=kind, status=status, search=search, sort=sort, order=order
    )


@router.get("/runs", response_class=HTMLResponse, include_in_schema=False)
async def runs_page(
    request: Request,
    look: Look,
    paged: Paged,
    *,
    kind: Text = None,
    status: Text = None,
    search: Text = None,
    sort: Text = None,
    order: Text = None,
) -> Response:
    listed = await runs_list(
        look, paged, kind=kind, status=status, search=search, sort=sort, order=order
    )
    query = {**listed.filters.model_dump(), "per_page": _per_page(paged)}

    def sort_url(key: str) -> str:
        flip = "asc" if listed.filters.sort == key and listed.filters.order == "desc" else "desc"
        return with_query(f"{PREFIX}/runs", {**query, "sort": key, "order": flip})

    def page_url(number: int) -> str:
        return with_query(f"{PREFIX}/runs", {**query, "page": number})

    context = {
        **FORMATS,
        "listed": listed,
        "sort_url": sort_url,
        "sort_mark": sort_mark(listed.filters.sort, listed.filters.order),
        "page_url": page_url,
    }
    return page(look, request, "runs.html", context)


@router.get(
    "/api/runs/{run}",
    response_model=RunView,
    responses=error_responses(404, 422, 503),
    tags=["viewer"],
    summary="One run and a page of its items",
    description=(
        "The run (by id or name) with its spec and summary, and a page of its items: each "
        "item's inputs (when its dataset file is still there, unchanged), and every judge's "
        "status, score and reasoning (clipped). Filter by `status` (of `judge`, by default "
        "the run's own judge), `search` (in the item id, the reasoning and the inputs); "
        "sort by `sort` (item, score, status) and `order`. A run the caller may not read is "
        "404, as a missing one. The JSON of the page /view/runs/{run}."
    ),
)
async def run_json(
    look: Look,
    paged: Paged,
    run: str,
    *,
    judge: JudgeName = None,
    status: ItemStatusChoice = None,
    search: SearchText = None,
    sort: ItemSortChoice = None,
    order: OrderChoice = None,
) -> RunView:
    return await run_view(
        look, run, paged, judge=judge, status=status, search=search, sort=sort, order=order
    )


@router.get("/runs/{run}", response_class=HTMLResponse, include_in_schema=False)
async def run_page(
    request: Request,
    look: Look,
    paged: Paged,
    run: str,
    *,
    judge: Text = None,
    status: Text = None,
    search: Text = None,
    sort: Text = None,
    order: Text = None,
) -> Response:
    view = await run_view(
        look, run, paged, judge=judge, status=status, search=search, sort=sort, order=order
    )
    here = view.run.href
    query = {**view.filters.model_dump(), "per_page": _per_page(paged)}

    def sort_url(key: str) -> str:
        flip = "desc" if view.filters.sort == key and view.filters.order == "asc" else "asc"
        return with_query(here, {**query, "sort": key, "order": flip})

    def page_url(number: int) -> str:
        return with_query(here, {**query, "page": number})

    def status_url(value: str | None) -> str:
        return with_query(here, {**query, "status": value})

    context = {
        **FORMATS,
        "view": view,
        "columns": item_columns(view),
        "sort_url": sort_url,
        "sort_mark": sort_mark(view.filters.sort, view.filters.order),
        "page_url": page_url,
        "status_url": status_url,
    }
    return page(look, request, "run.html", context)


def _per_page(paged: Paging) -> int | None:
    # Left out of links when it is the default, so that they stay short.
    return None if paged.per_page == PER_PAGE else paged.per_page
