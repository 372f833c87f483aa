"""The layers' judges are built from specs by jurist.specs: each judges exactly as the judge
built by hand with the same arguments (the same requests to the model, the same judgment),
and a request's schema is refused with the same message."""

import json

import pytest
from pydantic import ValidationError

from jurist.core import Judgment
from jurist.judges import CriteriaJudge, RubricJudge, SchemaJudge
from jurist.rubrics import get_rubric
from jurist.settings import Settings
from jurist.validation import (
    QUALITY_RUBRIC,
    ValidationRequest,
    ValidationType,
    Validator,
    context_for,
)
from service_script import ServiceScript, scripted_model

SORTS = "Code implements sorting functionality"
TESTS = "Tests are included"
SCHEMA = {"type": "object", "required": ["code", "tests"]}
REQUEST = ValidationRequest.model_validate(
    {
        "output": {"code": "def sort_list(lst): return sorted(lst)"},
        "validation_types": ["schema", "criteria", "quality"],
        "acceptance_criteria": [SORTS, TESTS],
        "expected_schema": SCHEMA,
        "context": {"goal": "Write a sort function with tests"},
    }
)
SCRIPT = ServiceScript(
    criteria={SORTS: 0.9, TESTS: 0.2}, quality={"completeness": 5, "clarity": 2, "consistency": 4}
)


def comparable(judgment: Judgment) -> dict[str, object]:
    """A judgment as JSON, without the time it took."""

    def untimed(value: object) -> object:
        if isinstance(value, dict):
            return {k: untimed(v) for k, v in value.items() if not k.endswith(("_ms", "_time"))}
        if isinstance(value, list):
            return [untimed(v) for v in value]
        return value

    data = untimed(json.loads(judgment.to_json()))
    assert isinstance(data, dict)
    return data


async def test_the_criteria_and_quality_layers_judge_as_their_judges_built_by_hand():
    through_specs = scripted_model(SCRIPT)
    validator = Validator(through_specs, settings=Settings(JURIST_CACHE="0"))
    judgments = (await validator.run(REQUEST)).judgments

    by_hand = scripted_model(SCRIPT)
    ctx = context_for(REQUEST.output, REQUEST.context, REQUEST.trusted_sources)
    built = {
        ValidationType.CRITERIA: CriteriaJudge(
            REQUEST.acceptance_criteria, by_hand, name="criteria"
        ),
        ValidationType.QUALITY: RubricJudge(get_rubric(QUALITY_RUBRIC), by_hand, name="quality"),
        ValidationType.SCHEMA: SchemaJudge(SCHEMA, parse_text=False, name="schema"),
    }
    for layer, judge in built.items():
        assert comparable(await judge.judge(ctx)) == comparable(judgments[layer]), layer
    # The layers run concurrently: the same requests, in whatever order.
    assert by_hand.requests
    assert sorted(map(repr, through_specs.requests)) == sorted(map(repr, by_hand.requests))


def test_an_invalid_expected_schema_is_refused_with_the_judges_message():
    body = {"output": 1, "validation_types": ["schema"], "expected_schema": {"type": 5}}
    with pytest.raises(ValueError, match="schema is not a valid JSON Schema") as by_hand:
        SchemaJudge({"type": 5}, parse_text=False, name="schema")
    with pytest.raises(ValidationError) as refused:
        ValidationRequest.model_validate(body)
    (error,) = refused.value.errors()
    assert error["msg"] == f"Value error, expected_schema: {by_hand.value}"


def test_a_deeply_nested_expected_schema_is_accepted():
    # A spec from a client is refused past MAX_SPEC_DEPTH; a request's schema is bounded by
    # the request's own JSON depth instead.
    schema: dict[str, object] = {"type": "string"}
    for _ in range(40):
        schema = {"type": "object", "properties": {"a": schema}}
    body = {"output": 1, "validation_types": ["schema"], "expected_schema": schema}
    assert ValidationRequest.model_validate(body).schema_judge.name == "schema"
