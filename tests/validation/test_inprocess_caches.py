"""What validations share in process: the schema layer's judge by the schema's content and
the quality rubric's lookup for a moment, none of it bound to an event loop; and a
schema-only validation completes without a turn of the event loop."""

import asyncio
import copy

import pytest
import yaml
from pydantic import ValidationError

from jurist.rubrics import get_rubric
from jurist.settings import Settings, get_settings
from jurist.validation import (
    QUALITY_RUBRIC,
    ValidationRequest,
    Validator,
    _models,
    _pipeline,
    validate,
)

SCHEMA = {
    "type": "object",
    "required": ["code", "tests"],
    "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
}
OUTPUT = {"code": "def f(): pass", "tests": "assert f() is None"}
UNUSED_MODEL = "openai-compatible:unused@http://127.0.0.1:9/v1"


def request(schema: dict[str, object], output: object = OUTPUT) -> dict[str, object]:
    return {"output": output, "validation_types": ["schema"], "expected_schema": schema}


def settings() -> Settings:
    return Settings(JURIST_CACHE="0", JURIST_MODEL=UNUSED_MODEL)


def test_requests_with_the_same_schema_share_its_judge():
    first = ValidationRequest.model_validate(request(copy.deepcopy(SCHEMA)))
    second = ValidationRequest.model_validate(request(copy.deepcopy(SCHEMA)))
    other = ValidationRequest.model_validate(request({**SCHEMA, "required": ["code"]}))
    assert second.schema_judge is first.schema_judge
    assert other.schema_judge is not first.schema_judge


async def test_a_schema_changed_after_a_validation_is_not_judged_as_it_was():
    schema = copy.deepcopy(SCHEMA)
    output = {"code": "def f(): pass", "tests": "assert f() is None"}
    assert (await validate(request(schema, output), settings=settings())).valid
    schema["properties"]["tests"] = {"type": "integer"}
    changed = await validate(request(schema, output), settings=settings())
    assert not changed.valid
    assert [issue.location for issue in changed.issues] == ["$.tests"]


def test_a_schema_that_is_not_json_data_is_refused_as_before():
    with pytest.raises(ValidationError, match="expected_schema") as caught:
        ValidationRequest.model_validate(request({"type": "number", "minimum": float("nan")}))
    assert "not a finite number" in str(caught.value)


def test_only_so_many_schema_judges_are_kept():
    for bound in range(_models.SCHEMA_JUDGES_KEPT + 5):
        ValidationRequest.model_validate(request({"type": "integer", "maximum": bound}))
    info = _models._schema_judge_of.cache_info()
    assert info.maxsize == _models.SCHEMA_JUDGES_KEPT
    assert info.currsize <= _models.SCHEMA_JUDGES_KEPT


def test_a_schema_only_validation_completes_without_a_turn_of_the_event_loop():
    # A coroutine that never suspends finishes on its first step: no task, no loop needed.
    running = validate(request(copy.deepcopy(SCHEMA)), settings=settings())
    with pytest.raises(StopIteration) as finished:
        running.send(None)
    assert finished.value.value.valid


def test_a_validator_made_in_one_loop_and_used_in_another_still_validates():
    made = Validator(settings=settings())
    for _ in range(2):
        result = asyncio.run(made.validate(request(copy.deepcopy(SCHEMA))))
        assert result.valid


@pytest.fixture
def own_quality_rubric(rubrics_path, monkeypatch):
    """An output-quality rubric of the test's own in JURIST_RUBRICS_PATH, and validators
    that look the library up each time they are made."""
    monkeypatch.setattr(_pipeline, "RUBRIC_RECHECK_S", 0.0)
    data = get_rubric(QUALITY_RUBRIC).model_dump(mode="json")
    path = rubrics_path / f"{QUALITY_RUBRIC}.yaml"

    def write(description: str) -> None:
        path.write_text(yaml.safe_dump({**data, "description": description}, sort_keys=False))

    write("first")
    return write


def test_a_changed_quality_rubric_is_seen_by_the_next_validator(own_quality_rubric):
    assert Validator(settings=settings()).quality_rubric.description == "first"
    own_quality_rubric("second, a longer description")
    assert Validator(settings=settings()).quality_rubric.description == (
        "second, a longer description"
    )


def test_validators_made_together_share_the_rubric_lookup(own_quality_rubric, monkeypatch):
    monkeypatch.setattr(_pipeline, "RUBRIC_RECHECK_S", 3600.0)
    lookups: list[str] = []

    def counted(id_or_path: str):
        lookups.append(id_or_path)
        return get_rubric(id_or_path)

    monkeypatch.setattr(_pipeline, "get_rubric", counted)
    get_settings.cache_clear()
    first = Validator(settings=settings())
    second = Validator(settings=settings())
    assert second.quality_rubric is first.quality_rubric
    assert lookups == [QUALITY_RUBRIC]
