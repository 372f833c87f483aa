"""POST /validate over real HTTP: example requests, persistence, and every error path."""

import asyncio
import sqlite3

import pytest
from running import count_rows

from service_script import ServiceScript

SCHEMA = {
    "type": "object",
    "required": ["code", "tests"],
    "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
}
SORTS = "Code implements sorting functionality"
TESTS = "Tests are included"
NAMING = "Function has proper naming"
CLAIM = "Function is O(n log n) complexity"
QUALITY = {"completeness": 5, "clarity": 4, "consistency": 5}

# Example requests: a sorting function that passes, and one with a claim to check.
VALID = {
    "output": {
        "code": "def sort_list(lst): return sorted(lst)",
        "tests": "assert sort_list([3,1,2]) == [1,2,3]",
    },
    "validation_types": ["schema", "criteria", "quality"],
    "acceptance_criteria": [SORTS, TESTS, NAMING],
    "expected_schema": SCHEMA,
}
INVALID = {
    # The comment states the claim the hallucination layer checks (claims are drawn from
    # what the output says).
    "output": {
        "code": "def sort_list(lst):  # Function is O(n log n) complexity\n    return sorted(lst)"
    },
    "validation_types": ["schema", "criteria", "hallucination", "quality"],
    "acceptance_criteria": [SORTS, TESTS, NAMING],
    "expected_schema": SCHEMA,
    "context": {"task": "Write a sorting function", "notes": "Use Python's built-in sorted."},
}


def spec_script() -> ServiceScript:
    return ServiceScript(
        criteria={SORTS: 0.95, TESTS: 0.9, NAMING: 0.8},
        claims=[CLAIM],
        support={CLAIM: (0.1, "")},
        quality=QUALITY,
    )


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_the_spec_examples_are_answered_and_stored(serve):
    script = spec_script()
    running = serve(script)
    with running.client() as client:
        good = client.post("/validate", json=VALID)
        assert good.status_code == 200, good.text
        result = good.json()
        assert result["valid"] is True
        assert result["passed_criteria"] == [SORTS, TESTS, NAMING]
        assert result["failed_criteria"] == []
        assert 0.7 < result["quality_score"] <= 1.0
        assert result["metadata"]["validation_types_run"] == ["schema", "criteria", "quality"]

        script.criteria[TESTS] = 0.1
        script.criteria[NAMING] = 0.3
        bad = client.post("/validate", json=INVALID).json()
        assert bad["valid"] is False
        assert bad["passed_criteria"] == [SORTS]
        assert bad["failed_criteria"] == [TESTS, NAMING]
        kinds = [(i["severity"], i["type"]) for i in bad["issues"]]
        assert ("error", "schema_violation") in kinds
        assert kinds.count(("error", "criteria_not_met")) == 2
        assert ("warning", "unsupported_claim") in kinds
        assert bad["metadata"]["error_count"] == 3
        assert bad["metadata"]["warning_count"] == 1

        # Stored before it was answered: the same result comes back by id.
        stored = client.get(f"/validations/{bad['metadata']['validation_id']}")
        assert stored.status_code == 200
        assert stored.json()["result"] == bad
        assert stored.json()["request"]["acceptance_criteria"] == INVALID["acceptance_criteria"]
        assert len(stored.json()["judgment_ids"]) == 4

        criteria = bad["metadata"]["layers"]["criteria"]
        judgment = client.get(f"/judgments/{criteria['judgment_id']}").json()
        assert judgment["status"] == "fail"
        assert judgment["model"] == "test:judge"
        assert judgment["parameters"]["temperature"] == 0.0
        assert judgment["usage"]["input_tokens"] > 0
        assert judgment["validation_id"] == bad["metadata"]["validation_id"]
        assert client.get("/judgments/nope").status_code == 404
        assert client.get("/validations/nope").json()["error"] == "not_found"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"output": 1, "validation_types": ["telepathy"]}, "validation_types[0]"),
        ({"output": 1, "validation_types": ["schema"]}, "expected_schema"),
        ({"output": 1, "validation_types": ["criteria"]}, "acceptance_criteria"),
        ({"validation_types": ["schema"], "expected_schema": {}}, "output"),
        (
            {"output": 1, "validation_types": ["facts"], "trusted_sources": ["nowhere"]},
            "trusted_sources[0]",
        ),
        (
            {"output": 1, "validation_types": ["quality"], "severity_policy": {"typo": "error"}},
            "severity_policy",
        ),
    ],
)
def test_bad_requests_are_422_naming_the_field(serve, body, field):
    script = ServiceScript(fail_with=AssertionError("no model call for a bad request"))
    running = serve(script)
    with running.client() as client:
        response = client.post("/validate", json=body)
    assert response.status_code == 422, response.text
    answer = response.json()
    assert answer["error"] in {"invalid_request", "unknown_source"}
    assert field in [e["field"] for e in answer["errors"]]


def test_not_json_is_a_422(serve):
    with serve().client() as client:
        response = client.post(
            "/validate", content=b"{not json", headers={"content-type": "application/json"}
        )
    assert response.status_code == 422
    assert response.json()["error"] == "invalid_request"


def test_a_disabled_layer_is_refused(serve):
    running = serve(settings={"ENABLE_HALLUCINATION_DETECTION": "false"})
    with running.client() as client:
        response = client.post(
            "/validate",
            json={"output": "x", "validation_types": ["hallucination"], "context": {"doc": "y"}},
        )
    assert response.status_code == 422
    assert "ENABLE_HALLUCINATION_DETECTION" in response.json()["message"]


def test_a_broken_model_is_a_layer_error_not_a_pass(serve):
    from jurist.llm import ErrorKind, ModelError

    running = serve(ServiceScript(fail_with=ModelError(ErrorKind.TIMEOUT, "slow", retryable=False)))
    with running.client() as client:
        answer = client.post(
            "/validate",
            json={"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [SORTS]},
        ).json()
    assert answer["valid"] is False
    assert [i["type"] for i in answer["issues"]] == ["layer_error"]
    assert answer["metadata"]["layers"]["criteria"]["cause"] == "timeout"


def test_the_deadline_answers_504_and_stores_nothing(serve, database):
    never = asyncio.Event()

    async def hang(request):
        await never.wait()

    from scripted import LOGPROB_CAPABILITIES, ScriptedModel

    model = ScriptedModel("test:judge", [hang] * 5, capabilities=LOGPROB_CAPABILITIES)
    running = serve(model=model, config={"JURIST_REQUEST_TIMEOUT_S": "0.2"})
    with running.client() as client:
        response = client.post(
            "/validate",
            json={"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [SORTS]},
        )
    assert response.status_code == 504
    assert response.json()["error"] == "deadline_exceeded"
    assert "JURIST_REQUEST_TIMEOUT_S" in response.json()["message"]
    assert count_rows(database, "validations") == 0


def test_a_database_failure_is_a_503_and_nothing_is_reported_saved(serve, tmp_path):
    path = tmp_path / "broken.sqlite3"
    running = serve(settings={"JURIST_DATABASE_URL": f"sqlite:///{path}"})
    with running.client() as client:
        assert client.post("/validate", json=_schema_only()).status_code == 200
        with sqlite3.connect(path) as connection:
            connection.execute("DROP TABLE judgments")
            connection.execute("DROP TABLE validations")
        response = client.post("/validate", json=_schema_only())
    assert response.status_code == 503
    answer = response.json()
    assert answer["error"] == "store_unavailable"
    assert "could not be saved" in answer["message"]
    assert "valid" not in answer


def _schema_only(output=None) -> dict:
    return {
        "output": output if output is not None else {"code": "x", "tests": "y"},
        "validation_types": ["schema"],
        "expected_schema": SCHEMA,
    }
