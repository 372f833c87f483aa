"""Improvement cycles: the list (/view/cycles), one cycle with its events in order a page at
a time (/view/cycles/{cycle}), and a person's decision on the change a paused cycle waits on
(POST /view/cycles/{cycle}/approve or /reject, an admin's only, through the same
`approve_cycle` as the service's API). Each page's value is its JSON twin under /view/api.
Tournaments and reputations have modules of their own; their routes join this router."""

from typing import Annotated, Literal, get_args

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from jurist.autonomy import CycleStatus, StoredCycle, approve_cycle
from jurist.viewer._access import form_fields, same_origin
from jurist.viewer._context import PER_PAGE, Look, Looking, Paged, Paging, page
from jurist.viewer._cycle_view import CycleDetail, CycleList, cycle_detail, cycle_row
from jurist.viewer._errors import ViewerError, bad_parameter, error_responses, not_found
from jurist.viewer._paths import PREFIX, page_link
from jurist.viewer._reputations import router as reputations_router
from jurist.viewer._tournaments import router as tournaments_router

router = APIRouter()
router.include_router(tournaments_router)
router.include_router(reputations_router)

NOTE_MAX_CHARS = 2000  # as the service's API takes

# The list's form sends "" for any status.
StatusName = Literal["", "running", "paused", "halted", "accepted", "rejected", "failed", "done"]
StatusFilter = Annotated[StatusName, Query(description="only cycles in this status")]


def _status(status: str) -> CycleStatus | None:
    return CycleStatus(status) if status else None


async def list_cycles(look: Looking, paged: Paging, status: str) -> CycleList:
    """The page of cycles `look.viewer` may read, newest first."""
    chosen = _status(status)
    owner = look.viewer.owner
    total = await look.autonomy.count_cycles(chosen, owner=owner)
    found = await look.autonomy.list_cycles(
        paged.per_page, chosen, owner=owner, offset=paged.offset
    )
    return CycleList(
        total=total,
        page=paged.page,
        per_page=paged.per_page,
        pages=paged.pages(total),
        status=None if chosen is None else chosen.value,
        cycles=[cycle_row(stored) for stored in found],
    )


async def _readable(look: Looking, cycle: str) -> StoredCycle:
    stored = await look.autonomy.get_cycle(cycle)
    # Another key's cycle is missing, exactly as one that is not there.
    if stored is None or not look.viewer.may_read(stored.key_id):
        raise not_found(f"cycle {cycle}")
    return stored


async def one_cycle(look: Looking, cycle: str, paged: Paging) -> CycleDetail:
    """The cycle (by id or name) with a page of its events; events are numbered from 1
    without gaps, so a page starts after the previous page's last number."""
    stored = await _readable(look, cycle)
    total = await look.autonomy.count_events(stored.id)
    events = await look.autonomy.cycle_events(stored.id, paged.offset, limit=paged.per_page)
    return cycle_detail(
        stored,
        events,
        total=total,
        page=paged.page,
        per_page=paged.per_page,
        may_decide=look.viewer.admin,
    )


@router.get(
    "/api/cycles",
    response_model=CycleList,
    summary="The improvement cycles",
    description="The improvement cycles the caller may read (a user key: those it started; "
    "an admin key or `jurist view`: all), newest first, a page at a time: status, why it "
    "stopped or waits, iterations, the held-out score of the initial and of the current "
    "prompt, calls, tokens and cost. Filter: `status` (running, paused, halted, accepted, "
    "rejected, failed, done).",
    tags=["viewer"],
    responses=error_responses(422, 503),
)
async def cycles_json(look: Look, paged: Paged, status: StatusFilter = "") -> CycleList:
    return await list_cycles(look, paged, status)


@router.get("/cycles", include_in_schema=False, response_class=HTMLResponse)
async def cycles_page(
    request: Request, look: Look, paged: Paged, status: StatusFilter = ""
) -> HTMLResponse:
    listed = await list_cycles(look, paged, status)
    query = {"status": listed.status, "per_page": listed.per_page}
    path = f"{PREFIX}/cycles"
    context = {
        "listed": listed,
        "statuses": [name for name in get_args(StatusName) if name],
        "previous": page_link(path, query, listed.page - 1, listed.pages),
        "next": page_link(path, query, listed.page + 1, listed.pages),
    }
    return page(look, request, "cycles.html", context)


@router.get(
    "/api/cycles/{cycle}",
    response_model=CycleDetail,
    summary="One improvement cycle with its events",
    description="A cycle (by id or name): where it stands, its prompts and criteria, the "
    "change it waits on when paused for approval (the prompt in effect and the one "
    "proposed, their held-out scores, why a person must decide), and a page of its events "
    "in order, each made readable (who spoke, what was asked or answered: prompts, "
    "answers, scores on held-back cases, verdicts, circuit breakers, decisions) beside the "
    "message as stored. 404 for a cycle that is not there or that the caller may not read.",
    tags=["viewer"],
    responses=error_responses(404, 422, 503),
)
async def cycle_json(look: Look, cycle: str, paged: Paged) -> CycleDetail:
    return await one_cycle(look, cycle, paged)


@router.get("/cycles/{cycle}", include_in_schema=False, response_class=HTMLResponse)
async def cycle_page(request: Request, look: Look, cycle: str, paged: Paged) -> HTMLResponse:
    detail = await one_cycle(look, cycle, paged)
    path, query = f"{PREFIX}/cycles/{detail.id}", {"per_page": detail.per_page}
    context = {
        "detail": detail,
        "previous": page_link(path, query, detail.page - 1, detail.pages),
        "next": page_link(path, query, detail.page + 1, detail.pages),
        "note_max": NOTE_MAX_CHARS,
    }
    return page(look, request, "cycle.html", context)


@router.post("/cycles/{cycle}/approve", include_in_schema=False)
async def approve(request: Request, look: Look, cycle: str) -> RedirectResponse:
    return await _decide(request, look, cycle, approved=True)


@router.post("/cycles/{cycle}/reject", include_in_schema=False)
async def reject(request: Request, look: Look, cycle: str) -> RedirectResponse:
    return await _decide(request, look, cycle, approved=False)


async def _decide(
    request: Request, look: Looking, cycle: str, *, approved: bool
) -> RedirectResponse:
    if not same_origin(request):
        raise ViewerError(403, "a decision must be sent from the viewer's own page")
    if not look.viewer.admin:
        raise ViewerError(403, "approving or rejecting a change needs an admin key")
    fields = await form_fields(request)
    note = fields.get("note", "").strip()
    if len(note) > NOTE_MAX_CHARS:
        raise bad_parameter("note", f"at most {NOTE_MAX_CHARS} characters, not {len(note)}")
    stored = await _readable(look, cycle)
    try:
        await approve_cycle(
            look.autonomy, stored.id, approve=approved, note=note, by=look.viewer.key_id
        )
    except ValueError as exc:  # not paused (any more), or nothing waits
        raise ViewerError(409, str(exc)) from None
    except LookupError:  # removed since it was read
        raise not_found(f"cycle {cycle}") from None
    # Back to the page of events the decision ended, at the decision.
    last = await look.autonomy.count_events(stored.id)
    shown = max(1, -(-last // PER_PAGE))
    target = f"{PREFIX}/cycles/{stored.id}?page={shown}#event-{last}"
    return RedirectResponse(target, status_code=303)
