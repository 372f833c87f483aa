"""JSON written by orjson where it is exact, by the json module where orjson refuses or would
change a value: what the store and the service write keeps its meaning."""

import json

import pytest
from pydantic import ValidationError

from jurist.core import dump_json
from jurist.validation import ValidationRequest


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2.5, None, True, "é ✓"], "b": {"c": ""}},
        {"huge": 2**70},  # beyond 64 bits: orjson refuses it, the json module writes it
        [-(2**64) - 1, 0],
    ],
)
def test_what_is_written_reads_back_equal(value: object) -> None:
    text = dump_json(value)
    assert isinstance(text, bytes)
    assert json.loads(text) == value


def test_a_key_that_is_not_a_string_is_written_as_the_json_module_writes_it() -> None:
    assert json.loads(dump_json({1: "x"})) == json.loads(json.dumps({1: "x"}))


def _request(schema: dict[str, object]) -> ValidationRequest:
    return ValidationRequest(output="{}", validation_types=["schema"], expected_schema=schema)


def test_a_schema_with_null_and_one_with_nan_are_never_taken_for_each_other() -> None:
    # orjson writes NaN as null: the schema judge's cache key must still tell them apart.
    with_null = _request({"type": "object", "properties": {"a": {"const": None}}})
    assert (
        with_null.schema_judge
        is _request({"type": "object", "properties": {"a": {"const": None}}}).schema_judge
    )
    with pytest.raises(ValidationError, match=r"expected_schema.*nan is not a finite number"):
        _request({"type": "object", "properties": {"a": {"const": float("nan")}}})


def test_the_same_schema_shares_one_judge_and_another_gets_its_own() -> None:
    first = _request({"type": "object", "required": ["n"]})
    again = _request({"type": "object", "required": ["n"]})
    other = _request({"type": "object", "required": ["m"]})
    assert first.schema_judge is again.schema_judge
    assert first.schema_judge is not other.schema_judge


def test_a_nan_is_written_as_the_json_module_writes_it_never_as_null() -> None:
    # orjson alone would write null: a stored NaN must not come back as a null.
    text = dump_json({"score": float("nan"), "high": float("inf")})
    assert (
        text
        == json.dumps({"score": float("nan"), "high": float("inf")}, separators=(",", ":")).encode()
    )


class _Scores(dict[str, object]):
    """A dict subclass, as some libraries hand back: orjson writes it as a dict."""


@pytest.mark.parametrize(
    "value",
    [
        {"deep": [[{"x": None, "y": [1, (2.0, float("-inf"))]}]]},
        [None, "nan", {"a": {"b": {"c": [float("nan")]}}}],
        _Scores(score=float("inf"), note=None),
    ],
)
def test_a_non_finite_number_at_any_depth_beside_a_null_is_written_as_the_json_module_writes_it(
    value: object,
) -> None:
    # The null beside it sends the writer looking for a NaN or infinity that orjson would
    # have written as null too: it must find one nested in tuples and dict subclasses.
    assert dump_json(value) == json.dumps(value, separators=(",", ":")).encode()


def test_nulls_and_finite_numbers_alone_are_written_by_orjson_unchanged() -> None:
    value = {"a": None, "b": [1.5, None, {"c": 2.0}], "d": "NaN"}
    assert dump_json(value) == json.dumps(value, separators=(",", ":")).encode()
