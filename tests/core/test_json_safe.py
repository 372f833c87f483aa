"""to_json_safe: plain JSON data comes back as an equal copy of its own, and anything else is
converted or refused, naming where it sits, wherever in the data it is."""

import math
import re
from enum import Enum
from pathlib import PurePosixPath

import pytest

from jurist.core import NotJsonSafeError, to_json_safe


class Colour(Enum):
    RED = "red"


def test_plain_data_is_an_equal_copy_keeping_each_type():
    data = {"a": [1, 1.0, True, None, "x"], "b": {"c": [{"d": 2.5}]}}
    safe = to_json_safe(data)
    assert safe == data
    assert [type(v) for v in safe["a"]] == [int, float, bool, type(None), str]
    assert safe is not data
    assert safe["a"] is not data["a"]
    assert safe["b"] is not data["b"]
    data["b"]["c"][0]["d"] = 3.5  # the copy is its own: a later change leaves it as it was
    assert safe["b"]["c"][0]["d"] == 2.5


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": {"b": [1, (2, 3)]}}, {"a": {"b": [1, [2, 3]]}}),
        ({"a": [Colour.RED]}, {"a": ["red"]}),
        ({"a": {"p": PurePosixPath("/x/y")}}, {"a": {"p": "/x/y"}}),
    ],
)
def test_a_value_deep_inside_plain_data_is_still_converted(value, expected):
    assert to_json_safe(value) == expected


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"a": [1, {"b": math.nan}]}, "value['a'][1]['b']"),
        ({"a": {"b": {1: "x"}}}, "value['a']['b']"),
        ({"a": [{1, 2}]}, "value['a'][0]"),
    ],
)
def test_what_cannot_be_json_is_named_where_it_sits(value, where):
    with pytest.raises(NotJsonSafeError, match="^" + re.escape(where) + ": "):
        to_json_safe(value)
