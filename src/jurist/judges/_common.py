"""Small helpers the judges share."""

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jurist.core import BooleanScore, Check, Judgment


def shorten(text: str, limit: int = 120) -> str:
    """`text` cut to at most `limit` characters, marking the cut with an ellipsis."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def listing(items: Iterable[str], limit: int = 5) -> str:
    """Quoted items joined by commas, with a count of those left out past `limit`."""
    items = list(items)
    shown = ", ".join(repr(item) for item in items[:limit])
    rest = len(items) - limit
    return f"{shown} and {rest} more" if rest > 0 else shown


def _reject_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity, but they are not JSON, and a schema validator
    # would see them as something else (jsonschema_rs turns NaN into null).
    raise ValueError(f"{name} is not valid JSON (JSON has no NaN or Infinity)")


def parse_json(text: str) -> Any:
    """Parse strict JSON text.

    Raises json.JSONDecodeError (which carries line and column) for malformed text and a
    plain ValueError for NaN/Infinity.
    """
    return json.loads(text, parse_constant=_reject_constant)


def describe_parse_error(exc: ValueError) -> tuple[str, dict[str, Any]]:
    """A message and metadata for a JSON parse failure, with line and column when known."""
    if isinstance(exc, json.JSONDecodeError):
        message = f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        return message, {"line": exc.lineno, "column": exc.colno, "position": exc.pos}
    return f"not valid JSON: {exc}", {}


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def decided(
    passed: bool,
    reasoning: str,
    checks: Iterable[Check],
    metadata: Mapping[str, Any] | None = None,
) -> Judgment:
    """A PASS or FAIL whose BooleanScore agrees with its status, as every yes/no judge gives."""
    factory = Judgment.ok if passed else Judgment.fail
    return factory(reasoning, score=BooleanScore(passed), checks=checks, metadata=metadata)


def _none(value: object) -> bool:
    return value is None


def omitted_when_none() -> Any:
    """A report field that defaults to None and is left out of the metadata while None: the
    key a judge writes only sometimes (a failed check's cause, a dimension not asked)."""
    return Field(None, exclude_if=_none)


class ReportRow(BaseModel):
    """A row nested in a typed report (a claim's check, an issue): frozen, extra keys ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ReportedIssue(ReportRow):
    """An issue in the validation service's shape, as a judge reports it in `issues`."""

    severity: Literal["error", "warning", "info"]
    type: str
    message: str
    location: str | None = omitted_when_none()
    suggestion: str | None = omitted_when_none()
