"""The judges' parameter types: one set of bounds for constructors, checks and specs."""

import re
from typing import Annotated

import pytest
from pydantic import Field, TypeAdapter, ValidationError

from jurist.core import (
    Count,
    Fraction,
    MinScore,
    Name,
    Threshold,
    checked,
    min_score_of,
    threshold_of,
)


@pytest.mark.parametrize(
    ("value", "kind", "name", "message"),
    [
        (1.0, Threshold, "threshold", "threshold must lie strictly between 0 and 1, not 1.0"),
        (0, Threshold, "p", "p must lie strictly between 0 and 1, not 0"),
        (float("nan"), Fraction, "share", "share must lie between 0 and 1, not nan"),
        (1.5, MinScore, "min_score", "min_score must lie between 0 and 1, not 1.5"),
        (0, Count, "passages", "passages must be at least 1, not 0"),
        (65, Annotated[Count, Field(le=64)], "facts", "facts must lie between 1 and 64, not 65"),
        ("", Name, "name", "name must not be empty"),
    ],
)
def test_a_value_out_of_bounds_is_refused_naming_the_parameter(
    value: object, kind: object, name: str, message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        checked(value, kind, name)  # type: ignore[type-var]


def test_values_in_bounds_come_back_as_given() -> None:
    assert checked(0.5, Threshold, "threshold") == 0.5
    assert checked(64, Annotated[Count, Field(le=64)], "facts") == 64
    assert checked("coverage", Name, "name") == "coverage"
    assert threshold_of(0.25) == 0.25
    assert min_score_of(1) == 1.0


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        (Threshold, 0.5, 1.0),
        (MinScore, 1.0, 1.01),
        (Count, 1, 0),
        (Annotated[Count, Field(le=64)], 64, 65),
        (Name, "x", ""),
    ],
)
def test_pydantic_reads_the_same_bounds(kind: object, good: object, bad: object) -> None:
    adapter: TypeAdapter[object] = TypeAdapter(kind)  # type: ignore[arg-type]
    assert adapter.validate_python(good) == good
    with pytest.raises(ValidationError):
        adapter.validate_python(bad)
    with pytest.raises(ValueError, match=r"^value must"):
        checked(bad, kind, "value")  # type: ignore[type-var]
