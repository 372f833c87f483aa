"""How the viewer answers what it cannot show: a page for a browser, the same message as
JSON under /view/api."""

from typing import Any

from pydantic import BaseModel, Field

from jurist.core import JuristError
from jurist.viewer._paths import API


class ViewerError(JuristError):
    """A request the viewer answers with `status` and a message naming the problem: 404 for a
    record that is not there (or not the viewer's), 422 for a bad parameter, 503 when the
    database fails."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def not_found(what: str) -> ViewerError:
    return ViewerError(404, f"no {what}")


def bad_parameter(name: str, problem: str) -> ViewerError:
    return ViewerError(422, f"{name}: {problem}")


def wants_json(path: str) -> bool:
    return path.startswith(API)


class FieldError(BaseModel):
    field: str = Field(description="where in the request, e.g. validation_types[0]")
    message: str


class ErrorBody(BaseModel):
    """The one shape of every error jurist answers over HTTP, the service's and the viewer's
    (the service, a floor above, uses this class): a stable code, a message naming the
    problem, and the fields at fault when there are several."""

    error: str = Field(description="a stable code: invalid_request, unauthorized, ...")
    message: str
    errors: list[FieldError] = Field(default_factory=list)


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI `responses` of a JSON twin that may answer these statuses."""
    meaning = {404: "not there, or not the caller's to read", 503: "the database failed"}
    return {
        status: {"model": ErrorBody, "description": meaning.get(status, "refused")}
        for status in statuses
    }
