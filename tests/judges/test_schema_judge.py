"""SchemaJudge and JsonJudge: parsing, violations by JSON path, drafts, no network."""

import json
from pathlib import Path

import pytest

from jurist.core import BooleanScore, Context, Judgment, Status, judge_sync
from jurist.judges import JsonJudge, SchemaJudge

ORDER = {
    "type": "object",
    "required": ["id", "items"],
    "properties": {
        "id": {"type": "integer"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["price"],
                "properties": {"price": {"type": "number", "minimum": 0}},
            },
        },
    },
}


def judge(judge_, output: object) -> Judgment:
    return judge_sync(judge_, Context("produce an order", output=output))


def failed_names(judgment: Judgment) -> list[str]:
    return [check.name for check in judgment.checks if not check.passed]


def test_valid_json_text_passes():
    result = judge(SchemaJudge(ORDER), '{"id": 1, "items": [{"price": 2.5}]}')
    assert result.status is Status.PASS
    assert result.score == BooleanScore(True)
    assert [(c.name, c.passed) for c in result.checks] == [("schema", True)]
    assert result.metadata["violations"] == 0


def test_non_text_output_is_validated_as_is():
    schema = SchemaJudge({"type": "array", "items": {"type": "integer"}})
    assert judge(schema, [1, 2, 3]).status is Status.PASS
    assert judge(schema, (1, 2)).status is Status.PASS  # a tuple is a JSON array
    assert judge(schema, [1, "2"]).status is Status.FAIL
    assert judge(SchemaJudge({"type": "number"}), 4.5).status is Status.PASS
    # Text is JSON to be parsed, so "4.5" is a number, and '"4.5"' a string.
    assert judge(SchemaJudge({"type": "number"}), "4.5").status is Status.PASS
    assert judge(SchemaJudge({"type": "number"}), '"4.5"').status is Status.FAIL
    assert judge(SchemaJudge({"type": "number"}), {"n": 4.5}).status is Status.FAIL


def test_violation_in_nested_array_is_named_by_its_json_path():
    output = {"id": 7, "items": [{"price": 1}, {"price": 2}, {"price": "free"}]}
    result = judge(SchemaJudge(ORDER), output)
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert failed_names(result) == ["$.items[2].price"]
    assert "number" in result.checks[0].message
    assert "$.items[2].price" in result.reasoning
    assert result.metadata["violations"] == 1


def test_every_violation_is_reported():
    output = {"id": "seven", "items": [{"price": -1}, {}]}
    result = judge(SchemaJudge(ORDER), output)
    assert result.status is Status.FAIL
    assert sorted(failed_names(result)) == ["$.id", "$.items[0].price", "$.items[1]"]
    assert result.metadata["violations"] == 3
    assert "3 schema violations" in result.reasoning


def test_root_and_unusual_keys_have_unambiguous_paths():
    schema = SchemaJudge(
        {
            "type": "object",
            "properties": {"a b": {"type": "string"}, "2": {"type": "string"}},
            "required": ["must"],
        }
    )
    result = judge(schema, {"a b": 1, "2": 2})
    assert sorted(failed_names(result)) == ["$", '$["2"]', '$["a b"]']


def test_many_violations_are_summarised_in_the_reasoning():
    schema = SchemaJudge({"type": "array", "items": {"type": "string"}})
    result = judge(schema, list(range(10)))
    assert result.metadata["violations"] == 10
    assert len(result.checks) == 10
    assert "and 7 more" in result.reasoning


def test_unparseable_text_fails_with_line_and_column():
    result = judge(SchemaJudge(ORDER), '{\n  "id": 1,\n  "items": [\n}')
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert [(c.name, c.passed) for c in result.checks] == [("json", False)]
    assert "line 4 column 1" in result.reasoning
    assert result.metadata["line"] == 4
    assert result.metadata["column"] == 1


def test_nan_is_not_json():
    result = judge(SchemaJudge({"type": "number"}), "NaN")
    assert result.status is Status.FAIL
    assert "NaN" in result.reasoning
    assert judge(SchemaJudge({}), {"x": float("nan")}).status is Status.FAIL


def test_no_output_fails():
    result = judge(SchemaJudge({}), None)
    assert result.status is Status.FAIL
    assert result.reasoning == "no output"


def test_output_that_is_no_json_value_fails():
    result = judge(SchemaJudge({}), {"when": object()})
    assert result.status is Status.FAIL
    assert "output['when']" in result.reasoning


def test_invalid_schema_is_rejected_at_construction():
    with pytest.raises(ValueError, match=r"not a valid JSON Schema.*nonsense"):
        SchemaJudge({"type": "nonsense"})
    with pytest.raises(ValueError, match="not a valid JSON Schema"):
        SchemaJudge({"$ref": "#/$defs/missing"})


def test_schema_of_the_wrong_type_is_rejected():
    with pytest.raises(TypeError, match="schema must be"):
        SchemaJudge(42)
    with pytest.raises(ValueError, match="JSON object or boolean"):
        SchemaJudge("[1, 2]")


def test_boolean_schemas():
    assert judge(SchemaJudge(True), {"anything": 1}).status is Status.PASS
    assert judge(SchemaJudge(False), {"anything": 1}).status is Status.FAIL


def test_schema_from_json_text():
    schema = SchemaJudge(json.dumps(ORDER))
    assert judge(schema, {"id": 1, "items": []}).status is Status.PASS
    assert failed_names(judge(schema, {"id": 1})) == ["$"]


def test_str_schema_that_is_no_json_says_how_to_load_a_file():
    with pytest.raises(ValueError, match=r"JSON text.*pathlib\.Path"):
        SchemaJudge("schemas/order.json")


def test_schema_from_file(tmp_path: Path):
    path = tmp_path / "order.schema.json"
    path.write_text(json.dumps(ORDER))
    schema = SchemaJudge(path)
    assert judge(schema, {"id": 1, "items": [{"price": 3}]}).status is Status.PASS
    assert failed_names(judge(schema, {"id": 1, "items": [{"price": "x"}]})) == ["$.items[0].price"]


def test_missing_or_broken_schema_file_is_named(tmp_path: Path):
    missing = tmp_path / "nope.json"
    with pytest.raises(ValueError, match=r"schema file .*nope\.json: cannot read"):
        SchemaJudge(missing)
    broken = tmp_path / "broken.json"
    broken.write_text('{"type": "object",\n "required": [}')
    with pytest.raises(ValueError, match=r"broken\.json: not valid JSON.*line 2"):
        SchemaJudge(broken)


def test_the_default_draft_is_2020_12():
    # prefixItems exists only from 2019-09/2020-12 on; an older draft would ignore it.
    schema = SchemaJudge({"type": "array", "prefixItems": [{"type": "integer"}]})
    assert judge(schema, [1, "x"]).status is Status.PASS
    result = judge(schema, ["x"])
    assert result.status is Status.FAIL
    assert failed_names(result) == ["$[0]"]


def test_draft_07_is_honoured():
    draft7 = "http://json-schema.org/draft-07/schema#"
    # Under draft-07 an array-valued "items" checks items by position (it is not even a
    # valid 2020-12 schema), and "prefixItems" means nothing.
    positional = SchemaJudge({"$schema": draft7, "items": [{"type": "integer"}]})
    assert judge(positional, [1, "x"]).status is Status.PASS
    assert failed_names(judge(positional, ["x"])) == ["$[0]"]
    ignored = SchemaJudge({"$schema": draft7, "prefixItems": [{"type": "integer"}]})
    assert judge(ignored, ["x"]).status is Status.PASS
    with pytest.raises(ValueError, match="not a valid JSON Schema"):
        SchemaJudge({"items": [{"type": "integer"}]})


def test_remote_ref_is_never_fetched():
    # A non-routable address: were the network used, this would hang, not fail at once.
    url = "http://10.255.255.1/schemas/order.json"
    with pytest.raises(ValueError, match="not a valid JSON Schema") as caught:
        SchemaJudge({"$ref": url})
    assert url in str(caught.value)


def test_schema_judge_keeps_no_state_between_judgments():
    schema = SchemaJudge(ORDER)
    bad = judge(schema, {"id": "x", "items": []})
    good = judge(schema, {"id": 1, "items": []})
    assert good.status is Status.PASS
    assert judge(schema, {"id": "x", "items": []}) == bad


def test_json_judge_passes_json_text_and_json_values():
    json_judge = JsonJudge()
    for output in ('{"a": [1, 2]}', "  3 ", '"text"', {"a": 1}, [1], 2.5, True):
        result = judge(json_judge, output)
        assert result.status is Status.PASS, output
        assert result.score == BooleanScore(True)


def test_json_judge_fails_anything_else():
    result = judge(JsonJudge(), "{'single': 'quotes'}")
    assert result.status is Status.FAIL
    assert "line 1 column 2" in result.reasoning
    assert [(c.name, c.passed) for c in result.checks] == [("json", False)]
    assert judge(JsonJudge(), "").status is Status.FAIL
    assert judge(JsonJudge(), "Infinity").status is Status.FAIL
    assert judge(JsonJudge(), None).status is Status.FAIL
    assert judge(JsonJudge(), {1, 2}).status is Status.FAIL
