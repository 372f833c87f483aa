"""Turn metadata into plain JSON values, or say exactly which value cannot be."""

import dataclasses
import json
import math
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from enum import Enum
from pathlib import PurePath
from typing import Any

import orjson

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
    plain = _plain(value)
    return _converted(value, where) if plain is _NOT_PLAIN else plain


_NOT_PLAIN: Any = object()  # what _plain returns for a value that is not plain JSON


def _plain(value: Any) -> Any:
    """A copy of plain JSON data (exact dict with str keys, list, str, int, bool, None, a
    finite float) or _NOT_PLAIN, found by exact type: what nearly every value is, without
    the isinstance checks and error paths the general conversion builds for every node."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                return _NOT_PLAIN
            safe = _plain(item)
            if safe is _NOT_PLAIN:
                return _NOT_PLAIN
            out[key] = safe
        return out
    if kind is list:
        items = []
        for item in value:
            safe = _plain(item)
            if safe is _NOT_PLAIN:
                return _NOT_PLAIN
            items.append(safe)
        return items
    if kind is float and math.isfinite(value):
        return value
    return _NOT_PLAIN


def _converted(value: Any, where: str) -> Any:
    if isinstance(value, Enum):
        return _converted(value.value, where)
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
            out[key] = _converted(item, f"{where}[{key!r}]")
        return out
    if isinstance(value, list | tuple):
        return [_converted(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return _converted(to_dict(), where)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _converted(dataclasses.asdict(value), where)
    raise NotJsonSafeError(f"{where}: a {type(value).__name__} is not JSON-safe")


def to_json_text(value: Any) -> str:
    """Compact, key-order-preserving JSON for a value (non-JSON leaves become strings)."""
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def exact_json(value: Any, *, sort_keys: bool = False) -> bytes | None:
    """orjson's compact UTF-8 JSON of `value` where it means what the json module's does,
    else None: orjson refuses an integer beyond 64 bits, a key that is not a string, a lone
    surrogate and types it does not know, and writes NaN and the infinities as null. Each
    caller falls back on the json module its own way (its separators, NaN allowed or not)."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None
    if b"null" in text and has_non_finite(value):
        return None
    return text


def dump_json(value: Any) -> bytes:
    """Compact UTF-8 JSON of `value`, as the json module writes it (NaN included): by orjson,
    several times faster, wherever the two agree (see `exact_json`)."""
    text = exact_json(value)
    if text is None:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return text


def has_non_finite(value: Any) -> bool:
    """Whether `value` holds a float that is NaN or infinite, at any depth."""
    # A loop over a stack, with exact types first: it runs on every record the store writes
    # that holds a null, and recursion through generators cost several times as much.
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif isinstance(item, float):
            if not math.isfinite(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False
