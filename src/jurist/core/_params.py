"""The types of judges' parameters, with their bounds in one place.

A judge's constructor is annotated with them, a spec that builds the judge validates its
fields with them (pydantic reads the `Field` constraints), and the constructor checks its
arguments with `checked` (or `threshold_of`, `min_score_of`), which reads the same bounds,
so the two never disagree. Bound a count further with `Annotated[Count, Field(le=N)]`.
"""

from typing import Annotated, Any, TypeVar

import annotated_types
from pydantic import AfterValidator, Field

# A probability compared with P(yes) or P(supported); 0 and 1 would decide before asking.
Threshold = Annotated[float, Field(gt=0.0, lt=1.0)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
MinScore = Annotated[float, Field(ge=0.0, le=1.0)]  # the 0..1 score a judgment needs to PASS
Count = Annotated[int, Field(ge=1)]
NonNegative = Annotated[int, Field(ge=0)]  # a length bound, an allowance: none is a number
RubricScore = Annotated[float, Field(ge=1.0, le=5.0)]  # on the 1-5 scale of human raters
Name = Annotated[str, Field(min_length=1)]  # non-empty text
Text = Annotated[str, Field(min_length=1)]  # what a judge checks (a criterion): non-empty


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


# Text with more than whitespace in it (a criterion's name and what it asks).
NonBlank = Annotated[str, AfterValidator(_non_blank)]

# Defaults shared by the judges and the specs that build them.
MAX_CLAIMS = 12  # claims (or statements) one output is checked on
KEY_FACTS = 8  # a short summary keeps a handful; more would reward long outputs

N = TypeVar("N", int, float, str)

_CONSTRAINTS: dict[str, type] = {
    "gt": annotated_types.Gt,
    "ge": annotated_types.Ge,
    "lt": annotated_types.Lt,
    "le": annotated_types.Le,
    "min_length": annotated_types.MinLen,
}


def _bounds(kind: Any) -> dict[str, Any]:
    """The constraints of an Annotated type, nested ones included (outer ones win)."""
    found: dict[str, Any] = {}
    for meta in getattr(kind, "__metadata__", ()):
        for item in getattr(meta, "metadata", [meta]):
            for bound, constraint in _CONSTRAINTS.items():
                if isinstance(item, constraint):
                    found[bound] = getattr(item, bound)
    return found


def _number(bound: float) -> str:
    return f"{bound:g}"


def _range(bounds: dict[str, Any]) -> str:
    sides = [
        f"{word} {_number(bounds[bound])}" for bound, word in _WORDS.items() if bound in bounds
    ]
    if set(bounds) == {"gt", "lt"}:
        return f"lie strictly between {_number(bounds['gt'])} and {_number(bounds['lt'])}"
    if set(bounds) == {"ge", "le"}:
        return f"lie between {_number(bounds['ge'])} and {_number(bounds['le'])}"
    return "be " + " and ".join(sides)  # "be at least 1", "be above 0 and at most 5"


_WORDS = {"gt": "above", "ge": "at least", "lt": "below", "le": "at most"}


def checked(value: N, kind: Any, name: str) -> N:
    """`value` if it meets the bounds of `kind` (one of this module's types, or one bounded
    further), else a ValueError naming the parameter: "threshold must lie strictly between
    0 and 1, not 1.5"."""
    bounds = _bounds(kind)
    if "min_length" in bounds:
        if len(str(value)) < bounds["min_length"]:
            raise ValueError(f"{name} must not be empty")
        return value
    # Compared as given (NaN fails every bound; text is a TypeError, not a number).
    ok = (
        ("gt" not in bounds or value > bounds["gt"])
        and ("ge" not in bounds or value >= bounds["ge"])
        and ("lt" not in bounds or value < bounds["lt"])
        and ("le" not in bounds or value <= bounds["le"])
    )
    if not ok:
        raise ValueError(f"{name} must {_range(bounds)}, not {value}")
    return value


def threshold_of(value: float, name: str = "threshold") -> float:
    """A probability to decide by (`Threshold`), or a ValueError naming it."""
    return float(checked(value, Threshold, name))


def min_score_of(value: float, name: str = "min_score") -> float:
    """A judge's 0..1 score to PASS (`MinScore`), or a ValueError naming it."""
    return float(checked(value, MinScore, name))
