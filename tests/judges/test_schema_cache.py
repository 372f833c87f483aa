"""Compiled JSON schemas are kept by content: the same schema text compiles once, another
text (a changed dict among them) compiles afresh, and only so many are kept."""

import copy

from jurist.core import Context, Status, judge_sync
from jurist.judges import SchemaJudge
from jurist.judges._schema import COMPILED_SCHEMAS_KEPT, _compiled

CODE = {
    "type": "object",
    "required": ["code"],
    "properties": {"code": {"type": "string"}},
}


def status(judge: SchemaJudge, output: object) -> Status:
    return judge_sync(judge, Context("write code", output=output)).status


def test_the_same_content_reuses_one_compiled_validator():
    first = SchemaJudge(copy.deepcopy(CODE))
    second = SchemaJudge(copy.deepcopy(CODE))  # another dict, equal content
    assert second._validator is first._validator


def test_changed_content_is_compiled_afresh():
    first = SchemaJudge(CODE)
    other = SchemaJudge({**CODE, "required": ["code", "tests"]})
    assert other._validator is not first._validator
    assert status(first, {"code": "x"}) is Status.PASS
    assert status(other, {"code": "x"}) is Status.FAIL


def test_a_dict_changed_after_use_is_not_judged_by_its_old_schema():
    schema = copy.deepcopy(CODE)
    before = SchemaJudge(schema)
    schema["required"].append("tests")
    after = SchemaJudge(schema)
    assert status(before, {"code": "x"}) is Status.PASS
    assert status(after, {"code": "x"}) is Status.FAIL
    assert before.schema["required"] == ["code"]  # the judge kept the schema it was given


def test_one_true_and_one_point_zero_are_different_schemas():
    # Equal as Python values (1 == 1.0 == True), different as JSON: never one cache entry.
    one = SchemaJudge({"const": 1})
    true = SchemaJudge({"const": True})
    assert true._validator is not one._validator
    assert status(one, True) is Status.FAIL
    assert status(true, True) is Status.PASS


def test_only_so_many_compiled_schemas_are_kept():
    first = SchemaJudge({"type": "integer", "minimum": -1})
    for bound in range(COMPILED_SCHEMAS_KEPT + 5):
        SchemaJudge({"type": "integer", "maximum": bound})
        assert _compiled.cache_info().currsize <= COMPILED_SCHEMAS_KEPT
    again = SchemaJudge({"type": "integer", "minimum": -1})
    assert again._validator is not first._validator  # the oldest was let go
