"""The improvement cycles over HTTP: list them, read one with every message it exchanged,
and record a person's decision on a paused one. Cycles run from the command line
(`jurist improve`); after an approval here, `jurist improve --resume CYCLE` goes on.

Cycles live in the service's own database, next to its records, through the records'
engine. A cycle belongs to the key that started it, or to the operator when started from the
command line: a `user` key sees only its own, an `admin` key sees every cycle, and only an
admin may approve or reject a change.
"""

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from jurist.autonomy import (
    AutonomyStore,
    CycleStatus,
    StoredCycle,
    StoredCycleEvent,
    outcome_of,
)
from jurist.autonomy import approve_cycle as decide
from jurist.server._edge import StrictJsonRoute
from jurist.server._errors import ServiceError, error_responses
from jurist.server._routes import Caller, caller_of, service_of
from jurist.store import StoreError
from jurist.viewer import ErrorBody

router = APIRouter(tags=["cycles"], route_class=StrictJsonRoute)

NOTE_MAX_CHARS = 2000
_NOT_PAUSED: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "the cycle is not paused for approval"}
}


class CycleUsage(BaseModel):
    input_tokens: int
    output_tokens: int
    calls: int
    cost_usd: float | None = Field(description="None when some call had no known price")


class CycleSummary(BaseModel):
    """Where a cycle stands."""

    id: str
    name: str | None
    status: CycleStatus
    reason: str | None = Field(description="why it halted, failed, ended or paused")
    iterations: int
    baseline_score: float | None = Field(description="held-out score of the initial prompt")
    score: float | None = Field(description="held-out score of the current prompt")
    usage: CycleUsage
    seconds: float
    pending: dict[str, Any] | None = Field(
        description="the change waiting for approval: prompt, old_score, new_score, iteration, why"
    )
    created_at: datetime
    updated_at: datetime


class CycleEvent(BaseModel):
    seq: int
    stage: str
    kind: str
    message: dict[str, Any]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    at: datetime


class CycleDetail(CycleSummary):
    """A cycle with its spec, its prompts and every message, in order."""

    initial_prompt: str
    prompt: str = Field(description="the prompt in effect now")
    spec: dict[str, Any]
    events: list[CycleEvent]


class Approval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approve: bool = Field(description="true approves the waiting change, false rejects it")
    note: str = Field("", max_length=NOTE_MAX_CHARS, description="why, stored with it")


def _store(request: Request) -> AutonomyStore:
    """The cycles' store, on the engine the service's records use (opened at start-up from
    the service's settings, migrated); made once and kept, so its writes take turns."""
    records = service_of(request).require_store()
    state = request.app.state
    found: AutonomyStore | None = getattr(state, "autonomy_store", None)
    if found is None or found.engine is not records.engine:
        found = state.autonomy_store = AutonomyStore(records.engine)
    return found


def _summary_fields(stored: StoredCycle) -> dict[str, Any]:
    outcome = outcome_of(stored)
    usage = outcome.usage
    return {
        "id": stored.id,
        "name": stored.name,
        "status": stored.status,
        "reason": outcome.reason,
        "iterations": outcome.iterations,
        "baseline_score": outcome.baseline_score,
        "score": outcome.score,
        "usage": CycleUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            calls=usage.calls,
            cost_usd=usage.cost_usd,
        ),
        "seconds": outcome.seconds,
        "pending": outcome.pending,
        "created_at": stored.created_at,
        "updated_at": stored.updated_at,
        "initial_prompt": outcome.initial_prompt,
        "prompt": outcome.prompt,
    }


def _summary(stored: StoredCycle) -> CycleSummary:
    fields = _summary_fields(stored)
    return CycleSummary(**{k: v for k, v in fields.items() if k in CycleSummary.model_fields})


def _event(event: StoredCycleEvent) -> CycleEvent:
    return CycleEvent(
        seq=event.seq,
        stage=event.stage,
        kind=event.kind,
        message=event.message,
        input_tokens=event.input_tokens,
        output_tokens=event.output_tokens,
        cost_usd=event.cost_usd,
        at=event.at,
    )


def _unavailable(exc: StoreError) -> ServiceError:
    return ServiceError(503, "store_unavailable", str(exc))


async def _found(store: AutonomyStore, cycle_id: str, request: Request) -> StoredCycle:
    stored = await store.get_cycle(cycle_id)
    # Another tenant's cycle answers exactly as a missing one does.
    if stored is None or not caller_of(request).may_read(stored.key_id):
        raise ServiceError(404, "not_found", f"no cycle {cycle_id!r}")
    return stored


@router.get(
    "/cycles",
    response_model=list[CycleSummary],
    responses=error_responses(401, 422, 429, 503),
    summary="The improvement cycles, newest first",
)
async def list_cycles(
    request: Request,
    key_id: Caller,
    limit: Annotated[int, Query(ge=1, le=500, description="cycles to return")] = 100,
    status: Annotated[CycleStatus | None, Query(description="only cycles in this status")] = None,
) -> list[CycleSummary]:
    try:
        found = await _store(request).list_cycles(
            limit, status, owner=caller_of(request).owner_filter()
        )
    except StoreError as exc:
        raise _unavailable(exc) from None
    return [_summary(stored) for stored in found]


@router.get(
    "/cycles/{cycle_id}",
    response_model=CycleDetail,
    responses=error_responses(401, 404, 429, 503),
    summary="One cycle (by id or name): where it stands, and every message it exchanged",
)
async def get_cycle(cycle_id: str, request: Request, key_id: Caller) -> CycleDetail:
    store = _store(request)
    try:
        stored = await _found(store, cycle_id, request)
        events = await store.cycle_events(stored.id)
    except StoreError as exc:
        raise _unavailable(exc) from None
    return CycleDetail(
        **_summary_fields(stored), spec=stored.spec, events=[_event(e) for e in events]
    )


@router.post(
    "/cycles/{cycle_id}/approve",
    response_model=CycleSummary,
    responses={**error_responses(401, 403, 404, 413, 422, 429, 503), **_NOT_PAUSED},
    summary="Approve or reject the change a paused cycle waits on",
    description="Records the decision only: the cycle goes on when it is resumed "
    "(`jurist improve --resume CYCLE`). A cycle that is not paused answers 409.",
)
async def approve_cycle(
    cycle_id: str, body: Approval, request: Request, key_id: Caller
) -> CycleSummary:
    # The audit log keeps who decided what, and why.
    request.state.audit_detail = {"cycle": cycle_id, **body.model_dump()}
    if not caller_of(request).is_admin:
        raise ServiceError(403, "forbidden", "approving or rejecting a cycle needs an admin key")
    store = _store(request)
    try:
        stored = await _found(store, cycle_id, request)
        try:
            decided = await decide(
                store, stored.id, approve=body.approve, note=body.note, by=key_id
            )
        except ValueError as exc:  # not paused, or nothing waits
            raise ServiceError(409, "not_paused", str(exc)) from None
        except LookupError:  # removed since it was read
            raise ServiceError(404, "not_found", f"no cycle {cycle_id!r}") from None
    except StoreError as exc:
        raise _unavailable(exc) from None
    request.state.verdict = "approved" if body.approve else "rejected"
    return _summary(decided)
