"""Calibration reports: the stored calibration runs, one report's statistics with their
intervals and its plots, two reports compared. Each page at /view/calibration... has its
JSON at /view/api/calibration..., built by the same function."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from jurist.viewer._calibration_models import (
    CalibrationComparison,
    CalibrationDetail,
    CalibrationList,
)
from jurist.viewer._calibration_plots import comparison_plot, report_plots
from jurist.viewer._calibration_read import (
    SORTS,
    calibration_comparison,
    calibration_detail,
    calibration_list,
)
from jurist.viewer._context import Look, Paged, page
from jurist.viewer._errors import error_responses
from jurist.viewer._paths import PREFIX, with_query

router = APIRouter()

# The allowed values are in the schema for clients and checked by the reader, which names a
# bad one in the viewer's own words.
Search = Annotated[
    str | None,
    Query(
        description="sought, ignoring case, in the run's name and id",
        json_schema_extra={"maxLength": 200},
    ),
]
Sort = Annotated[
    str,
    Query(
        description=f"the order: {', '.join(SORTS)} (started: newest first)",
        json_schema_extra={"enum": SORTS},
    ),
]
_RUN = {"maxLength": 200, "pattern": r"\S"}  # not blank
RunA = Annotated[
    str | None,
    Query(description="the id or name of the first (before) run", json_schema_extra=_RUN),
]
RunB = Annotated[
    str | None,
    Query(description="the id or name of the second (after) run", json_schema_extra=_RUN),
]


@router.get(
    "/api/calibration",
    response_model=CalibrationList,
    responses=error_responses(422, 503),
    tags=["viewer"],
    summary="The stored calibration runs",
    description=(
        "The runs that keep a calibration report (`jurist calibrate` stores them) which the "
        "caller may read (a user key: the runs it made), newest first or by `sort=name`, "
        "`search`ed in the name and id, a page at a time. Each with its judge, "
        "model, dataset, n, the target and the target's statistic per dimension with its "
        "interval, and the verdict. The JSON of the page /view/calibration."
    ),
)
async def calibration_json(
    look: Look, paged: Paged, search: Search = None, sort: Sort = "started"
) -> CalibrationList:
    return await calibration_list(look, paged, search, sort)


@router.get("/calibration", response_class=HTMLResponse, include_in_schema=False)
async def calibration_page(
    request: Request, look: Look, paged: Paged, search: Search = None, sort: Sort = "started"
) -> Response:
    listed = await calibration_list(look, paged, search, sort)
    query: dict[str, str | int] = {
        "search": listed.search or "",
        "sort": listed.sort,
        "per_page": listed.per_page,
    }

    def page_url(number: int) -> str:
        return with_query(f"{PREFIX}/calibration", {**query, "page": number})

    context = {"listed": listed, "sorts": SORTS, "page_url": page_url}
    return page(look, request, "calibration.html", context)


# Before /calibration/{run}: "compare" is not a run.
@router.get(
    "/api/calibration/compare",
    response_model=CalibrationComparison,
    responses=error_responses(404, 422, 503),
    tags=["viewer"],
    summary="Two calibration reports compared",
    description=(
        "Report `a` (before) against report `b` (after), each a calibration run's id or name, "
        "as `jurist calibrate --compare A B` shows them: every statistic (per dimension and "
        "level) side by side, its change, and whether it moved beyond its intervals (they "
        "do not overlap). Reports of different kinds (ratings, binary, pairwise) are a 422. "
        "The JSON of the page /view/calibration/compare."
    ),
)
async def comparison_json(look: Look, a: RunA, b: RunB) -> CalibrationComparison:
    return await calibration_comparison(look, a, b)


@router.get("/calibration/compare", response_class=HTMLResponse, include_in_schema=False)
async def comparison_page(request: Request, look: Look, a: RunA = None, b: RunB = None) -> Response:
    compared = await calibration_comparison(look, a, b)
    json_url = with_query(f"{PREFIX}/api/calibration/compare", {"a": a, "b": b})
    context = {"compared": compared, "json_url": json_url, "plot": comparison_plot(compared)}
    return page(look, request, "calibration_compare.html", context)


@router.get(
    "/api/calibration/{run}",
    response_model=CalibrationDetail,
    responses=error_responses(404, 422, 503),
    tags=["viewer"],
    summary="One calibration report",
    description=(
        "The report a calibration run (by id or name) keeps: every statistic with its "
        "bootstrap interval (per dimension: Pearson, Spearman and Kendall pooled and per "
        "document, Cohen's kappa, Krippendorff's alpha, AUC and balanced accuracy at the "
        "top of the scale; for binary and pairwise sets their metrics), every item's human "
        "and judge score (the scatter plots and histograms), the confusion matrices, "
        "latency and cost per item. A run the caller may not read is 404, as a missing one. "
        "The JSON of the page /view/calibration/{run}."
    ),
)
async def report_json(look: Look, run: str) -> CalibrationDetail:
    return await calibration_detail(look, run)


@router.get("/calibration/{run}", response_class=HTMLResponse, include_in_schema=False)
async def report_page(request: Request, look: Look, run: str) -> Response:
    detail = await calibration_detail(look, run)
    context = {"detail": detail, "plots": report_plots(detail)}
    return page(look, request, "calibration_report.html", context)
