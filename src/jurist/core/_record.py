"""The immutable, validated record type behind every value of the vocabulary."""

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

from pydantic import ConfigDict
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
