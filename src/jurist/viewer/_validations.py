"""The service's stored validations, with their layers and issues: the list (filtered by
verdict, severity, time and key, paged in the database) at /view/validations and one
validation at /view/validations/{id}; each page's value is also the JSON answer of the same
path under /view/api."""

import json
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, get_args

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from jurist.store import StoredJudgment, ValidationSummary
from jurist.viewer._context import Look, Looking, Paged, Paging, page
from jurist.viewer._errors import bad_parameter, error_responses, not_found
from jurist.viewer._paths import PREFIX, page_link
from jurist.viewer._validation_view import (
    SeverityFilter,
    ValidationDetail,
    ValidationFilters,
    ValidationList,
    Validity,
    validation_detail,
    validation_row,
)

router = APIRouter()

_VALIDITIES: tuple[str, ...] = get_args(Validity)
_SEVERITIES: tuple[str, ...] = get_args(SeverityFilter)
_KEY_LENGTH = 100  # the key_id column's


def validation_filters(
    # The allowed values are in the schema for clients and checked here, so that a bad one
    # is named in the viewer's own words.
    validity: Annotated[
        str,
        Query(description="all, valid or invalid", json_schema_extra={"enum": _VALIDITIES}),
    ] = "all",
    severity: Annotated[
        str,
        Query(
            description="error, warning or info: validations with such an issue",
            json_schema_extra={"enum": ("", *_SEVERITIES)},
        ),
    ] = "",
    since: Annotated[
        str,
        Query(
            description="a date (YYYY-MM-DD, UTC): made on it or after",
            json_schema_extra={"format": "date"},
        ),
    ] = "",
    until: Annotated[
        str,
        Query(
            description="a date (YYYY-MM-DD, UTC): made on it or before",
            json_schema_extra={"format": "date"},
        ),
    ] = "",
    key: Annotated[
        str,
        Query(
            description="an API key's id: only what it asked",
            json_schema_extra={"maxLength": _KEY_LENGTH},
        ),
    ] = "",
) -> ValidationFilters:
    """The filters as a query string gives them (a form's empty field: no filter), or a 422
    naming the parameter and what is wrong with it."""
    if validity not in _VALIDITIES:
        raise bad_parameter("validity", _not_one_of(_VALIDITIES, validity))
    if severity and severity not in _SEVERITIES:
        raise bad_parameter("severity", _not_one_of(_SEVERITIES, severity))
    first = _day("since", since)
    last = _day("until", until)
    # An end before the start is a range with nothing in it: it finds nothing, as any
    # other empty range does.
    if len(key) > _KEY_LENGTH:
        raise bad_parameter("key", f"a key's id has at most {_KEY_LENGTH} characters")
    return ValidationFilters(
        validity=validity,
        severity=severity or None,
        since=None if first is None else datetime.combine(first, datetime.min.time(), UTC),
        until=None
        if last is None
        else datetime.combine(last + timedelta(days=1), datetime.min.time(), UTC),
        key=key.strip() or None,
    )


Filtered = Annotated[ValidationFilters, Depends(validation_filters)]


async def list_validations(look: Looking, paged: Paging, filters: Filtered) -> ValidationList:
    """The page of validations `look.viewer` may read that `filters` keep."""
    owner = look.viewer.owner
    if owner is not None and filters.key is not None and filters.key != owner:
        total, rows = 0, list[ValidationSummary]()  # another key's: none this viewer reads
    else:
        total, rows = await look.records.list_validations(
            key_id=owner if owner is not None else filters.key,
            valid=None if filters.validity == "all" else filters.validity == "valid",
            severity=filters.severity,
            since=filters.since,
            until=filters.until,
            limit=paged.per_page,
            offset=paged.offset,
        )
    shows_keys = owner is None
    return ValidationList(
        total=total,
        page=paged.page,
        per_page=paged.per_page,
        pages=paged.pages(total),
        filters=filters,
        shows_keys=shows_keys,
        validations=[validation_row(row, shows_keys) for row in rows],
    )


async def one_validation(look: Looking, validation_id: str) -> ValidationDetail:
    """The validation `validation_id` with its judgments; one the viewer may not read is
    missing, exactly as one that is not there."""
    stored = await look.records.get_validation(validation_id)
    if stored is None or not look.viewer.may_read(stored.key_id):
        raise not_found(f"validation {validation_id}")
    judgments: dict[str, StoredJudgment] = {}
    for judgment_id in stored.judgment_ids:
        found = await look.records.get_judgment(judgment_id)
        if found is not None and look.viewer.may_read(found.key_id):
            judgments[judgment_id] = found
    return validation_detail(stored, judgments, shows_keys=look.viewer.owner is None)


@router.get(
    "/api/validations",
    response_model=ValidationList,
    responses=error_responses(422, 503),
    summary="The stored validations",
    description="The service's stored validations the caller may read (a user key: its own; "
    "an admin key or `jurist view`: every key's), newest first, a page at a time: each "
    "with its verdict, confidence, quality score, counts of issues by severity, duration "
    "and the layers that ran. Filters: `validity` (all, valid, invalid), `severity` "
    "(error, warning, info: at least one issue of it), `since` and `until` (dates, UTC, "
    "both days included), `key` (an API key's id).",
    tags=["viewer"],
)
async def validations_json(look: Look, paged: Paged, filters: Filtered) -> ValidationList:
    return await list_validations(look, paged, filters)


@router.get("/validations", include_in_schema=False, response_class=HTMLResponse)
async def validations_page(
    request: Request, look: Look, paged: Paged, filters: Filtered
) -> HTMLResponse:
    listed = await list_validations(look, paged, filters)
    context = {
        "listed": listed,
        "previous": _page_link(listed, listed.page - 1),
        "next": _page_link(listed, listed.page + 1),
        "validities": _VALIDITIES,
        "severities": _SEVERITIES,
        "since": _shown_day(listed.filters.since),
        "until": _shown_day(listed.filters.until, last=True),
    }
    return page(look, request, "validations.html", context)


@router.get(
    "/api/validations/{validation_id}",
    response_model=ValidationDetail,
    responses=error_responses(404, 422, 503),
    summary="One stored validation",
    description="A stored validation: the request as stored (the redacted copy, or a "
    "content-free outline when the service keeps content sealed), each layer's summary "
    "with the judgment behind it (status, score, reasoning, checks, usage), and every issue "
    "with its severity, layer, message, location and suggestion. 404 for one that is not "
    "there or that the caller may not read.",
    tags=["viewer"],
)
async def validation_json(look: Look, validation_id: str) -> ValidationDetail:
    return await one_validation(look, validation_id)


@router.get("/validations/{validation_id}", include_in_schema=False, response_class=HTMLResponse)
async def validation_page(request: Request, look: Look, validation_id: str) -> HTMLResponse:
    detail = await one_validation(look, validation_id)
    context = {"detail": detail, "request_fields": _request_fields(detail)}
    return page(look, request, "validation.html", context)


def _not_one_of(allowed: tuple[str, ...], given: str) -> str:
    return f"must be one of {', '.join(allowed)}, not {given!r}"


def _day(name: str, text: str) -> date | None:
    if not text.strip():
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise bad_parameter(name, f"not a date (YYYY-MM-DD): {text!r}") from None


def _shown_day(moment: datetime | None, *, last: bool = False) -> str:
    """A filter's time as the form's date field shows it (`until` is kept as the next
    day's start)."""
    if moment is None:
        return ""
    return (moment - timedelta(days=1) if last else moment).date().isoformat()


def _page_link(listed: ValidationList, number: int) -> str | None:
    filters = listed.filters
    query = {
        "validity": None if filters.validity == "all" else filters.validity,  # the default
        "severity": filters.severity,
        "since": _shown_day(filters.since),
        "until": _shown_day(filters.until, last=True),
        "key": filters.key,
        "per_page": listed.per_page,
    }
    return page_link(f"{PREFIX}/validations", query, number, listed.pages)


def _request_fields(detail: ValidationDetail) -> list[tuple[str, str]]:
    """The stored request's fields as the page prints them: text as it is, anything else
    as indented JSON."""
    fields: list[tuple[str, str]] = []
    for name, value in detail.request.items():
        if name == "outline":
            continue
        text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
        fields.append((name, text))
    return fields
