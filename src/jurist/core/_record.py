"""The immutable, validated record type behind every value of the vocabulary."""

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, Self, TypeVar, dataclass_transform

from pydantic import ConfigDict, TypeAdapter
from pydantic.dataclasses import dataclass

T = TypeVar("T")

_CONFIG = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record(cls: type[T]) -> type[T]:
    """A frozen pydantic dataclass whose validation errors name fields, not positions.

    pydantic reports a bad positional argument by its index ("0"); a caller deserves
    "goal: Input should be a valid string". So positional arguments are handed on by name.
    """
    built: Any = dataclass(frozen=True, config=_CONFIG)(cls)
    init: Callable[..., None] = built.__init__
    names = [f.name for f in dataclasses.fields(built) if f.init and not f.kw_only]

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(
                f"{built.__name__}() takes at most {len(names)} positional arguments "
                f"({', '.join(names)}), got {len(args)}"
            )
        for name, value in zip(names, args, strict=False):
            if name in kwargs:
                raise TypeError(f"{built.__name__}() got two values for {name!r}")
            kwargs[name] = value
        init(self, **kwargs)

    built.__init__ = __init__
    result: type[T] = built
    return result


class JsonRoundTrip:
    """Lossless JSON for a record class: `to_json()` then `from_json()` gives an equal value."""

    @classmethod
    def _adapter(cls) -> TypeAdapter[Any]:
        # One adapter per class, built on first use: building one costs milliseconds.
        adapter = cls.__dict__.get("_json_adapter")
        if adapter is None:
            adapter = TypeAdapter(cls)
            cls._json_adapter = adapter  # type: ignore[attr-defined]
        return adapter

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = self._adapter().dump_python(self, mode="json")
        return result

    def to_json(self, indent: int | None = None) -> str:
        return self._adapter().dump_json(self, indent=indent).decode()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        result: Self = cls._adapter().validate_python(dict(data))
        return result

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        result: Self = cls._adapter().validate_json(text)
        return result
