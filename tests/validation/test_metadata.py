"""A result's metadata is typed (ValidationMetadata) and its JSON is the service's contract:
the keys and values as POST /validate has always answered them, read back unchanged."""

from jurist.llm import ErrorKind, ModelError
from jurist.settings import Settings
from jurist.validation import (
    LayerSummary,
    NoUsage,
    UsageSummary,
    ValidationResult,
    ValidationType,
    Validator,
    validate,
)
from service_script import ServiceScript, scripted_model

SCHEMA = {"type": "object", "required": ["code"]}
SORTS = "Code implements sorting functionality"
NO_USAGE = {"input_tokens": 0, "output_tokens": 0, "cost_usd": None, "calls": 0}


def settings() -> Settings:
    return Settings(JURIST_CACHE="0")


def round_trips(result: ValidationResult) -> dict[str, object]:
    data = result.model_dump(mode="json")
    again = ValidationResult.model_validate(data)
    assert again.model_dump(mode="json") == data
    assert again.model_dump_json() == result.model_dump_json()
    return data


async def test_a_schema_only_result_is_the_json_it_always_was():
    result = await validate(
        {"output": {"code": 3}, "validation_types": ["schema"], "expected_schema": SCHEMA},
        settings=settings(),
    )
    metadata = round_trips(result)["metadata"]
    assert isinstance(metadata, dict)
    duration = metadata["duration_ms"]
    layer_duration = metadata["layers"]["schema"]["duration_ms"]  # type: ignore[index]
    assert metadata == {
        "validation_types_run": ["schema"],
        "total_issues": 0,
        "error_count": 0,
        "warning_count": 0,
        "info_count": 0,
        "quality_assessed": False,
        "duration_ms": duration,
        "model": None,
        "usage": NO_USAGE,
        "layers": {
            "schema": {
                "status": "ok",
                "verdict": "pass",
                "judge_status": "pass",
                "confidence": 1.0,
                "issues": 0,
                "duration_ms": layer_duration,
                "usage": NO_USAGE,
            }
        },
    }
    assert list(metadata) == [
        "validation_types_run",
        "total_issues",
        "error_count",
        "warning_count",
        "info_count",
        "quality_assessed",
        "duration_ms",
        "model",
        "usage",
        "layers",
    ]


async def test_a_layer_names_its_cause_only_when_it_broke_and_its_usage_when_it_ran():
    down = ServiceScript(fail_with=ModelError(ErrorKind.UNAVAILABLE, "down", retryable=False))
    result = await Validator("local:no-such-model", settings=settings()).validate(
        {
            "output": {"code": "x"},
            "validation_types": ["schema", "criteria"],
            "acceptance_criteria": [SORTS],
            "expected_schema": SCHEMA,
        }
    )
    layers = round_trips(result)["metadata"]["layers"]  # type: ignore[index]
    assert "cause" not in layers["schema"]
    assert layers["criteria"]["status"] == "error"
    assert layers["criteria"]["cause"] == "bad_model"
    assert layers["criteria"]["judge_status"] is None
    assert layers["criteria"]["usage"] == NO_USAGE  # it never ran
    assert isinstance(result.metadata.layers[ValidationType.CRITERIA].usage, NoUsage)

    failed = await Validator(scripted_model(down), settings=settings()).validate(
        {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [SORTS]}
    )
    criteria = round_trips(failed)["metadata"]["layers"]["criteria"]  # type: ignore[index]
    assert (criteria["cause"], criteria["judge_status"]) == ("unavailable", "error")

    answered = ServiceScript(criteria={SORTS: 0.9})
    ran = await Validator(scripted_model(answered), settings=settings()).validate(
        {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [SORTS]}
    )
    criteria = round_trips(ran)["metadata"]["layers"]["criteria"]  # type: ignore[index]
    assert "cause" not in criteria
    assert criteria["usage"] == {
        "input_tokens": 10,
        "output_tokens": 3,
        "cost_usd": None,
        "calls": 1,
        "cached_calls": 0,
        "model": "test:scripted",
    }


def test_the_ids_the_service_adds_appear_once_given():
    summary = LayerSummary(
        status="ok",
        verdict="pass",
        judge_status=None,
        confidence=1.0,
        issues=0,
        duration_ms=1.5,
        usage=UsageSummary(
            input_tokens=1, output_tokens=2, cost_usd=None, calls=1, cached_calls=0, model=None
        ),
    )
    assert "judgment_id" not in summary.model_dump(mode="json")
    stored = summary.model_copy(update={"judgment_id": "j1"})
    assert list(stored.model_dump(mode="json"))[-1] == "judgment_id"
    assert LayerSummary.model_validate(stored.model_dump(mode="json")) == stored
