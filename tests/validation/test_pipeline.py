"""The validation pipeline with a scripted model: each layer's issues, the aggregate, the
fail-safe, and the requests it refuses."""

import asyncio

import pytest
from pydantic import ValidationError

from jurist.judges import Passage, UnknownSource
from jurist.llm import ErrorKind, ModelError
from jurist.settings import Settings
from jurist.validation import (
    NOT_ASSESSED_QUALITY,
    IssueType,
    RequestError,
    Severity,
    ValidationRequest,
    Validator,
    validate,
)
from service_script import ServiceScript, scripted_model

SCHEMA = {
    "type": "object",
    "required": ["code", "tests"],
    "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
}
SORTS = "Code implements sorting functionality"
TESTS = "Tests are included"
CONTEXT = {"question": "Where is the Eiffel Tower?", "document": "The Eiffel Tower is in Paris."}
PARIS = "The Eiffel Tower is in Paris."
ROME = "It was built in Rome."
QUALITY = {"completeness": 5, "clarity": 2, "consistency": 4}


def settings(**values) -> Settings:
    return Settings(JURIST_CACHE="0", **values)


def validator(script: ServiceScript, **setting_values) -> Validator:
    return Validator(scripted_model(script), settings=settings(**setting_values))


async def test_schema_violations_are_errors_located_by_json_path():
    result = await validate(
        {
            "output": {"code": 3},
            "validation_types": ["schema"],
            "expected_schema": SCHEMA,
        },
        settings=settings(),
    )
    assert not result.valid
    assert {(i.type, i.location) for i in result.issues} == {
        (IssueType.SCHEMA_VIOLATION, "$"),
        (IssueType.SCHEMA_VIOLATION, "$.code"),
    }
    missing = next(i for i in result.issues if i.location == "$")
    assert "tests" in missing.message
    assert "'tests'" in (missing.suggestion or "")
    assert result.confidence == 0.0
    assert result.quality_score == NOT_ASSESSED_QUALITY
    assert result.metadata.quality_assessed is False
    assert result.metadata.model is None  # no model was needed, or built


async def test_a_string_output_is_validated_as_the_string_it_is():
    result = await validate(
        {
            "output": '{"a": 1}',
            "validation_types": ["schema"],
            "expected_schema": {"type": "string"},
        },
        settings=settings(),
    )
    assert result.valid


async def test_the_spec_example_with_all_model_layers():
    script = ServiceScript(
        criteria={SORTS: 0.9, TESTS: 0.2},
        claims=[PARIS, ROME],
        support={PARIS: (0.95, PARIS), ROME: (0.1, "")},
        quality=QUALITY,
    )
    result = await validator(script).validate(
        {
            # The notes hold the claims the hallucination layer checks.
            "output": {
                "code": "def sort_list(lst): return sorted(lst)",
                "tests": "",
                "notes": f"{PARIS} {ROME}",
            },
            "validation_types": ["quality", "criteria", "hallucination", "schema"],
            "acceptance_criteria": [SORTS, TESTS],
            "expected_schema": SCHEMA,
            "context": CONTEXT,
        }
    )
    assert result.metadata.validation_types_run == [
        "schema",
        "criteria",
        "quality",
        "hallucination",
    ]
    assert not result.valid
    assert result.passed_criteria == [SORTS]
    assert result.failed_criteria == [TESTS]
    by_type = {i.type: i for i in result.issues}
    assert by_type[IssueType.CRITERIA_NOT_MET].severity is Severity.ERROR
    assert by_type[IssueType.CRITERIA_NOT_MET].message.startswith(
        f"Acceptance criterion not met: {TESTS}"
    )
    unsupported = by_type[IssueType.UNSUPPORTED_CLAIM]
    assert unsupported.severity is Severity.WARNING
    assert ROME in unsupported.message
    # Only clarity (2 of 5 -> 0.25 normalised, plus the distribution's spread) is below 0.7.
    assert [i.type for i in result.issues if i.type.startswith("low_")] == [IssueType.LOW_CLARITY]
    clarity = by_type[IssueType.LOW_CLARITY]
    assert clarity.suggestion
    assert clarity.suggestion.startswith("Aim for: Clear throughout")
    layers = result.metadata.layers
    assert result.quality_score == pytest.approx(layers["quality"].confidence, abs=1e-3)
    expected = (1.0 + 0.5 + layers["quality"].confidence + 0.5) / 4  # schema holds
    assert result.confidence == pytest.approx(expected, abs=1e-3)
    assert all(layer.status == "ok" for layer in layers.values())
    assert result.metadata.usage.calls > 0


async def test_a_warning_alone_leaves_the_output_valid():
    script = ServiceScript(claims=[ROME], support={ROME: (0.1, "")})
    result = await validator(script).validate(
        {
            "output": "It was built in Rome.",
            "validation_types": ["hallucination"],
            "context": CONTEXT,
        }
    )
    assert result.valid
    assert [i.severity for i in result.issues] == [Severity.WARNING]
    assert result.confidence == 0.0  # 1 - 1 unsupported / 1 claim


async def test_a_broken_model_is_a_layer_error_never_a_pass():
    script = ServiceScript(fail_with=ModelError(ErrorKind.UNAVAILABLE, "down", retryable=False))
    result = await validator(script).validate(
        {
            "output": "fine",
            "validation_types": ["criteria", "quality"],
            "acceptance_criteria": [SORTS],
        }
    )
    assert not result.valid
    errors = [i for i in result.issues if i.type == IssueType.LAYER_ERROR]
    assert {i.location for i in errors} == {"layer:criteria", "layer:quality"}
    assert all(i.severity is Severity.ERROR for i in errors)
    assert result.metadata.layers["quality"].status == "error"
    assert result.confidence == 0.0


async def test_a_model_that_cannot_be_built_breaks_only_the_model_layers():
    result = await Validator("local:no-such-model", settings=settings()).validate(
        {
            "output": {"code": "x", "tests": "y"},
            "validation_types": ["schema", "criteria"],
            "acceptance_criteria": [SORTS],
            "expected_schema": SCHEMA,
        }
    )
    assert not result.valid
    layers = result.metadata.layers
    assert layers["schema"].status == "ok"
    assert layers["criteria"].status == "error"


async def test_layers_run_concurrently():
    """Both model layers are in flight before either finishes."""
    gate = asyncio.Event()
    script = ServiceScript(criteria={SORTS: 0.9}, quality=QUALITY)
    in_flight: set[str] = set()

    async def step(request):
        kind = "criteria" if "answer" in request.json_schema["properties"] else "quality"
        in_flight.add(kind)
        if len(in_flight) == 2:
            gate.set()
        await asyncio.wait_for(gate.wait(), 5)
        return script(request)

    from scripted import LOGPROB_CAPABILITIES, ScriptedModel

    model = ScriptedModel("test:judge", [step] * 10, capabilities=LOGPROB_CAPABILITIES)
    result = await Validator(model, settings=settings()).validate(
        {"output": "x", "validation_types": ["criteria", "quality"], "acceptance_criteria": [SORTS]}
    )
    assert result.valid
    assert in_flight == {"criteria", "quality"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"output": 1, "validation_types": ["telepathy"]}, "validation_types"),
        ({"output": 1, "validation_types": ["schema"]}, "expected_schema"),
        ({"output": 1, "validation_types": ["criteria"]}, "acceptance_criteria"),
        ({"output": 1, "validation_types": ["hallucination"]}, "context"),
        ({"output": 1, "validation_types": ["hallucination"], "context": {"goal": "x"}}, "context"),
        ({"output": 1, "validation_types": []}, "validation_types"),
        ({"validation_types": ["quality"]}, "output"),
        (
            {"output": 1, "validation_types": ["schema"], "expected_schema": {"type": 5}},
            "expected_schema",
        ),
        ({"output": 1, "validation_types": ["quality"], "surprise": 1}, "surprise"),
    ],
)
def test_malformed_requests_name_the_field(body, field):
    with pytest.raises(ValidationError) as caught:
        ValidationRequest.model_validate(body)
    assert field in str(caught.value)


class Sources:
    def __init__(self, known: set[str]) -> None:
        self.known = known

    async def retrieve(self, query, sources, limit):
        return [Passage(PARIS, "atlas", "paris")]

    async def check_sources(self, sources):
        for source in sources:
            if source not in self.known:
                raise UnknownSource(source, sorted(self.known))


async def test_disabled_layers_and_unknown_sources_are_refused_by_field():
    model = scripted_model(ServiceScript())
    off = Validator(
        model, settings=settings(ENABLE_FACT_CHECKING="false"), retriever=Sources(set())
    )
    with pytest.raises(RequestError, match="ENABLE_FACT_CHECKING") as caught:
        await off.run({"output": "x", "validation_types": ["facts"]})
    assert caught.value.field == "validation_types"
    without = Validator(model, settings=settings())
    with pytest.raises(RequestError, match="knowledge base"):
        await without.run({"output": "x", "validation_types": ["facts"]})
    known = Validator(model, settings=settings(), retriever=Sources({"atlas"}))
    with pytest.raises(RequestError) as unknown:
        await known.run(
            {"output": "x", "validation_types": ["facts"], "trusted_sources": ["atlas", "gossip"]}
        )
    assert unknown.value.field == "trusted_sources[1]"
    assert model.calls == 0


async def test_facts_layer_reports_unverified_facts_as_warnings():
    script = ServiceScript(claims=[PARIS, ROME], support={PARIS: (0.95, PARIS), ROME: (0.05, "")})
    result = await Validator(
        scripted_model(script), settings=settings(), retriever=Sources({"atlas"})
    ).validate(
        {"output": f"{PARIS} {ROME}", "validation_types": ["facts"], "trusted_sources": ["atlas"]}
    )
    assert result.valid
    assert [(i.type, i.severity) for i in result.issues] == [
        (IssueType.UNVERIFIED_FACT, Severity.WARNING)
    ]
    assert ROME in result.issues[0].message
    assert result.confidence == 0.5


async def test_facts_and_hallucination_read_the_claims_once():
    script = ServiceScript(claims=[PARIS], support={PARIS: (0.95, PARIS)})
    model = scripted_model(script)
    validator = Validator(model, settings=settings(), retriever=Sources({"atlas"}))
    result = await validator.validate(
        {
            "output": PARIS,
            "validation_types": ["facts", "hallucination"],
            "trusted_sources": ["atlas"],
            "context": CONTEXT,
        }
    )
    assert result.valid
    asked_for_claims = [
        r for r in model.requests if "claims" in (r.json_schema or {}).get("properties", {})
    ]
    assert len(asked_for_claims) == 1
    layers = result.metadata.layers
    # The extraction's tokens are counted once, with one of the two layers.
    total = layers["facts"].usage.calls + layers["hallucination"].usage.calls
    assert total == len(model.requests)
    assert result.metadata.usage.calls == len(model.requests)
