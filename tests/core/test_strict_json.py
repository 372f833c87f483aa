"""The strict JSON reader: what it refuses, and that it says where."""

import json
import sys

import pytest

from jurist.core import MAX_INT_DIGITS, StrictJsonError, loads_strict


def nested(depth: int, inner: str = "0") -> str:
    return "[" * depth + inner + "]" * depth


def refusal(data: str | bytes, **options) -> StrictJsonError:
    with pytest.raises(StrictJsonError) as caught:
        loads_strict(data, **options)
    return caught.value


def test_plain_json_reads_as_the_standard_library_reads_it():
    text = '{"a": [1, 2.5, -3e10, true, null, "é 😀 \\u00e9 \\ud83d\\ude00"], "b": {}}'
    assert loads_strict(text) == json.loads(text)
    assert loads_strict(text.encode()) == json.loads(text)
    assert loads_strict(b"\xef\xbb\xbf[1]") == [1]  # a byte-order mark is ignored


@pytest.mark.parametrize("depth", [100, 1_000, 10_000, 200_000])
def test_depth_is_measured_without_recursion_and_the_path_is_named(depth):
    limit = sys.getrecursionlimit()
    error = refusal('{"rows": [{"output": ' + nested(depth) + "}]}")
    assert sys.getrecursionlimit() == limit
    assert error.path.startswith("rows[0].output[0]")
    assert error.problem == "nested deeper than 64 levels"
    assert error.kind == "depth"


def test_the_depth_limit_is_exact_and_configurable():
    assert loads_strict(nested(64)) is not None
    assert refusal(nested(65)).path == "[0][0][0][0]…"
    assert loads_strict(nested(3), max_depth=3) == [[[0]]]
    assert refusal('{"a": {"b": [[]]}}', max_depth=3).path == "a.b[0]"
    with pytest.raises(ValueError, match="max_depth"):
        loads_strict("[]", max_depth=0)


def test_brackets_inside_strings_are_not_nesting():
    text = json.dumps({"output": "[" * 500 + '{"\\"' * 100})
    assert loads_strict(text)["output"].startswith("[[[")


@pytest.mark.parametrize(
    ("text", "path", "problem"),
    [
        ('{"score": NaN}', "score", "NaN is not a JSON number"),
        ('{"a": [1, Infinity]}', "a[1]", "Infinity is not a JSON number"),
        ('{"a": {"b": -Infinity}}', "a.b", "-Infinity is not a JSON number"),
        ('{"x": 1e400}', "x", "1e400 is too large for a float"),
        ('{"x": -1E+999}', "x", "too large for a float"),
        ('{"n": ' + "9" * 5000 + "}", "n", "an integer of 5000 digits"),
        ('{"n": -' + "9" * (MAX_INT_DIGITS + 1) + "}", "n", "at most 256"),
        ('{"s": "a\\ud800"}', "s", "lone surrogate (\\ud800 at character 1)"),
        ('{"\\udfff": 1}', '["\\udfff"]', "the key holds a lone surrogate"),
        ('{"bad key": [NaN]}', '["bad key"][0]', "NaN"),
    ],
)
def test_values_json_should_not_hold_are_refused_where_they_are(text, path, problem):
    error = refusal(text)
    assert error.path == path
    assert problem in error.problem


def test_the_first_refused_value_in_document_order_is_named():
    assert refusal('{"a": 1, "b": [2, NaN], "c": Infinity}').path == "b[1]"


def test_long_integers_within_the_bound_and_tiny_floats_are_read():
    assert loads_strict("9" * MAX_INT_DIGITS) == int("9" * MAX_INT_DIGITS)
    assert loads_strict("1e-400") == 0.0
    assert loads_strict('"\\\\ud800"') == "\\ud800"  # an escaped backslash, not a surrogate


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"a": "\xff"}', "not valid UTF-8: byte 0xff at offset 7"),
        (b'"\xed\xa0\x80"', "not valid UTF-8"),  # a surrogate encoded as UTF-8
        (b'{"a": 1,}', "not valid JSON"),
        (b"", "not valid JSON"),
        (b'"unterminated [[[[', "not valid JSON"),
    ],
)
def test_unreadable_documents_are_refused_as_a_whole(data, problem):
    error = refusal(data)
    assert error.path == ""
    assert error.field == "body"
    assert problem in error.problem


def test_syntax_errors_say_line_and_column_and_lines_can_be_placed():
    error = refusal('{\n  "a": [1 2]\n}')
    assert (error.line, error.column) == (2, 11)
    assert str(error).startswith("line 2 column 11: not valid JSON")
    placed = refusal('{"output": NaN}').on_line(7).within("rows[6]")
    assert (
        str(placed)
        == "line 7: rows[6].output: NaN is not a JSON number (JSON has no NaN or infinities)"
    )


def test_a_lone_surrogate_already_in_a_str_is_refused():
    assert "lone surrogate" in refusal('{"a": "\udc80"}').problem
