"""One shape for every error the service returns, and the handlers that produce it."""

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from jurist.core import JuristError

# One error body for every HTTP answer of jurist's; the viewer, a floor below, defines it.
from jurist.viewer import ErrorBody, FieldError


class ServiceError(JuristError):
    """An error answer: its status, code and message (and the fields at fault)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        errors: Sequence[FieldError] = (),
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = ErrorBody(error=code, message=message, errors=list(errors))
        self.headers = headers


# Declared on every route that can answer them, so the OpenAPI schema tells the truth.
def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    meanings = {
        401: "missing, unknown or revoked API key",
        403: "the API key's role does not allow this",
        404: "no such record",
        409: "the record exists already",
        413: "request body too large",
        415: "the body is not sent as JSON (Content-Type: application/json)",
        422: "the request is malformed or cannot run here; `errors` names the fields",
        429: "rate limit reached; see Retry-After",
        503: "the database or the model is unavailable",
        504: "the request's deadline passed",
    }
    return {s: {"model": ErrorBody, "description": meanings[s]} for s in statuses}


def _field(location: Sequence[int | str]) -> str:
    parts = [p for p in location if p not in ("body", "query", "path")]
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "body"


def field_errors(errors: Sequence[Any]) -> list[FieldError]:
    found = []
    for item in errors:
        message = str(item.get("msg", "invalid"))
        field = _field(item.get("loc", ()))
        # A check across fields reports on the whole body; its message starts with the field.
        message = message.removeprefix("Value error, ")
        if field == "body" and ": " in message:
            named, _, rest = message.partition(": ")
            if named.replace("_", "").replace("[", "").replace("]", "").isalnum():
                field, message = named, rest
        found.append(FieldError(field=field, message=message))
    return found


def summary(errors: Sequence[FieldError]) -> str:
    """The message of an answer with field errors: each field named once, with its problem."""
    shown = "; ".join(f"{e.field}: {e.message}" for e in errors[:_SHOWN_ERRORS])
    more = len(errors) - _SHOWN_ERRORS
    return f"{shown}; and {more} more" if more > 0 else shown


_SHOWN_ERRORS = 5


def install_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def _service(request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(exc.body.model_dump(), exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = field_errors(exc.errors())
        # The audit record of a refused request says why (the route never ran to say more).
        request.state.audit_detail = {"refused": [e.model_dump() for e in errors[:20]]}
        body = ErrorBody(error="invalid_request", message=summary(errors), errors=errors)
        return JSONResponse(body.model_dump(), 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        body = ErrorBody(error=code, message=str(exc.detail))
        return JSONResponse(body.model_dump(), exc.status_code, headers=exc.headers)
