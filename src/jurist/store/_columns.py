"""The checks a record's fields pass before they reach a column, so a bad value is refused
where it is made rather than by the database, and the UTC times the store reads back."""

import functools
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from jurist.core import to_json_safe


def utc(value: datetime) -> datetime:
    # SQLite keeps no time zone: the store writes UTC there, so a naive value read is UTC.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


@functools.cache
def column_length(table: sa.Table, name: str) -> int | None:
    # Cached: every record checks its columns, and the tables (so their lengths) are fixed.
    kind = table.c[name].type
    return kind.length if isinstance(kind, sa.String) else None


def check_text(
    owner: str, table: sa.Table, name: str, value: Any, *, required: bool = False
) -> None:
    if value is None:
        if required:
            raise ValueError(f"{owner}.{name} is required")
        return
    if not isinstance(value, str):
        raise TypeError(f"{owner}.{name} must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise ValueError(f"{owner}.{name} must not be empty")
    limit = column_length(table, name)
    if limit is not None and len(value) > limit:
        raise ValueError(
            f"{owner}.{name} has {len(value)} characters; the column holds at most {limit}"
        )


def check_number(
    owner: str,
    name: str,
    value: Any,
    *,
    low: float | None = 0.0,
    high: float | None = None,
    optional: bool = False,
) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{owner}.{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{owner}.{name} must be a finite number, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
        raise ValueError(f"{owner}.{name} {value!r} lies outside {bounds}")


def check_count(owner: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}.{name} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{owner}.{name} cannot be negative, got {value}")


def check_time(owner: str, name: str, value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, datetime):
        raise TypeError(f"{owner}.{name} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{owner}.{name} must be timezone-aware (UTC, say), got {value}")


def set_json(record: object, name: str, *, optional: bool = False) -> None:
    # Stored as plain JSON (tuples become lists, ...), so what is read back equals the record.
    value = getattr(record, name)
    if value is None and optional:
        return
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{type(record).__name__}.{name} must be a mapping, got {type(value).__name__}"
        )
    object.__setattr__(record, name, to_json_safe(value, f"{type(record).__name__}.{name}"))


def set_json_list(record: object, name: str) -> None:
    """Like `set_json` for an optional list of mappings."""
    value = getattr(record, name)
    if value is None:
        return
    owner = f"{type(record).__name__}.{name}"
    if not isinstance(value, list) or not all(isinstance(entry, Mapping) for entry in value):
        raise TypeError(f"{owner} must be a list of mappings, got {type(value).__name__}")
    object.__setattr__(record, name, to_json_safe(value, owner))
