"""Turn metadata into plain JSON values, or say exactly which value cannot be."""

import dataclasses
import math
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from enum import Enum
from pathlib import PurePath
from typing import Any

from jurist.core._errors import JuristError

JsonValue = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]


class NotJsonSafeError(JuristError, ValueError):
    """A value has no lossless JSON form."""


def to_json_safe(value: Any, where: str = "value") -> Any:
    """Return `value` as JSON-safe data (dicts with str keys, lists, scalars).

    Tuples become lists, enums their value, paths strings, datetimes ISO strings and
    timedeltas seconds, so that a JSON round trip gives back exactly what is stored.
    Anything else is an error naming where it sits, e.g. ``metadata['a'][2]``.
    """
    if isinstance(value, Enum):
        return to_json_safe(value.value, where)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotJsonSafeError(
                f"{where}: {value!r} is not a finite number; JSON cannot hold it"
            )
        return float(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotJsonSafeError(
                    f"{where}: key {key!r} is a {type(key).__name__}; JSON keys must be strings"
                )
            out[key] = to_json_safe(item, f"{where}[{key!r}]")
        return out
    if isinstance(value, list | tuple):
        return [to_json_safe(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_json_safe(to_dict(), where)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json_safe(dataclasses.asdict(value), where)
    raise NotJsonSafeError(f"{where}: a {type(value).__name__} is not JSON-safe")


def to_json_text(value: Any) -> str:
    """Compact, key-order-preserving JSON for a value (non-JSON leaves become strings)."""
    import json

    return json.dumps(value, ensure_ascii=False, default=str)
