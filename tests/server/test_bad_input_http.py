"""Bad input over real HTTP: whatever a client sends, the answer is a 4xx naming the field
(never a 5xx, never FastAPI's 400), and the request has its audit record."""

import asyncio
import json

import pytest

from jurist.store import RecordStore
from service_script import ServiceScript

CONTEXT = {"output": "ok"}
# Each POST endpoint with a valid body, and the field a bad value is put in.
ENDPOINTS = {
    "/validate": ({"output": "x", "validation_types": ["schema"]}, "output"),
    "/judge": ({"context": CONTEXT, "criteria": ["Is polite"]}, "context"),
    "/sources/search": ({"query": "x"}, "sources"),
    "/sources/check": ({"sources": []}, "sources"),
    "/cycles/no-such-cycle/approve": ({"approve": True}, "note"),
}


def audit_entries(database: str) -> list:
    async def read() -> list:
        async with await RecordStore.open(database) as store:
            return await store.audit_entries(limit=1000)

    return asyncio.run(read())


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def with_field(body: dict, field: str, raw: str) -> bytes:
    """The body's JSON with `field` set to `raw`, a JSON text json.dumps would never write."""
    text = json.dumps({**body, field: "@@"})
    return text.replace('"@@"', raw).encode()


BAD_VALUES = {
    "deep 100": (nested(100), "nested deeper than 64 levels"),
    "deep 1,000": (nested(1_000), "nested deeper than 64 levels"),
    "deep 10,000": (nested(10_000), "nested deeper than 64 levels"),
    "5,000 digits": ("7" * 5_000, "an integer of 5000 digits"),
    "NaN": ("NaN", "NaN is not a JSON number"),
    "Infinity": ("[Infinity]", "Infinity is not a JSON number"),
    "-Infinity": ('{"a": -Infinity}', "-Infinity is not a JSON number"),
    "1e400": ("1e400", "too large for a float"),
    "lone surrogate": ('"\\ud800"', "lone surrogate"),
}


def send(client, path: str, content: bytes, content_type: str = "application/json"):
    return client.post(path, content=content, headers={"content-type": content_type})


def test_every_post_endpoint_names_the_field_of_bad_json_and_audits_it(serve, database):
    running = serve(ServiceScript(lenient=True))
    sent = 0
    with running.client() as client:
        for path, (body, field) in ENDPOINTS.items():
            for case, (raw, problem) in BAD_VALUES.items():
                response = send(client, path, with_field(body, field, raw))
                sent += 1
                assert response.status_code == 422, (path, case, response.text)
                answer = response.json()
                assert answer["error"] == "invalid_request"
                [error] = answer["errors"]
                assert error["field"].startswith(field), (path, case, error)
                assert problem in error["message"], (path, case, error)
            for data in (b'{"output": "caf\xe9"}', b"\xff\xfe{}", b'{"a": [1,'):
                response = send(client, path, data)
                sent += 1
                assert response.status_code == 422, (path, data, response.text)
                assert response.json()["errors"][0]["field"] == "body"
    running.stop()  # in-flight requests finish, their audit records with them
    refused = [e for e in audit_entries(database) if e.status_code == 422]
    assert len(refused) == sent
    assert all(e.verdict == "rejected" and e.request_sha256 for e in refused)
    judged = [e.detail["refused"][0]["field"] for e in refused if e.path == "/judge"]
    assert sum(field.startswith("context") for field in judged) == len(BAD_VALUES)


def test_the_depth_limit_is_a_setting(serve):
    running = serve(settings={"JURIST_MAX_JSON_DEPTH": "3"})
    with running.client() as client:
        body = {"output": [[1]], "validation_types": ["schema"], "expected_schema": {}}
        assert client.post("/validate", json=body).status_code == 200
        body["output"] = [[[1]]]
        response = client.post("/validate", json=body)
    assert response.status_code == 422
    error = response.json()["errors"][0]
    assert error["field"] == "output[0][0]"
    assert "nested deeper than 3 levels (JURIST_MAX_JSON_DEPTH)" in error["message"]


def test_a_body_that_is_not_json_is_415_and_strings_near_the_limit_are_no_5xx(serve):
    running = serve(config={"JURIST_MAX_BODY_BYTES": "65536"}, script=ServiceScript(lenient=True))
    with running.client() as client:
        for content_type in ("text/plain", "application/x-www-form-urlencoded", ""):
            response = send(client, "/judge", b'{"context": {"output": 1}}', content_type)
            assert response.status_code == 415, response.text
            assert response.json()["errors"][0]["field"] == "body"
        for size in (65_536 - 200, 65_536 + 1):
            body = {"output": "x" * size, "validation_types": ["schema"], "expected_schema": {}}
            response = client.post("/validate", json=body)
            assert response.status_code == (200 if size < 65_536 else 413), response.text


def test_work_per_request_is_bounded_and_the_field_is_named(serve, database):
    running = serve(ServiceScript(lenient=True), config={"JURIST_MAX_SPEC_JUDGES": "4"})
    many = [f"criterion {i}" for i in range(5_000)]
    json_judges = [{"type": "json", "name": f"j{i}"} for i in range(5)]
    cases = {
        "criteria": ("/judge", {"context": CONTEXT, "criteria": many}),
        "acceptance_criteria": (
            "/validate",
            {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": many},
        ),
        "judge.judges[3]": (
            "/judge",
            {"context": CONTEXT, "judge": {"type": "all_of", "judges": json_judges}},
        ),
        "judge.criteria": (
            "/judge",
            {"context": CONTEXT, "judge": {"type": "criteria", "criteria": many[:101]}},
        ),
        "judge.max_claims": (
            "/judge",
            {"context": CONTEXT, "judge": {"type": "hallucination", "max_claims": 10_000}},
        ),
    }
    with running.client() as client:
        for field, (path, body) in cases.items():
            response = client.post(path, json=body)
            assert response.status_code == 422, (field, response.text)
            assert field in [e["field"] for e in response.json()["errors"]], response.text
        assert running.service.validator.model() is not None
    running.stop()
    assert sum(e.status_code == 422 for e in audit_entries(database)) == len(cases)


@pytest.mark.parametrize("depth", [40, 600])
def test_a_deeply_nested_judge_spec_is_a_422_naming_judge(serve, database, depth):
    spec: dict = {"type": "json"}
    for _ in range(depth):
        spec = {"type": "not", "judge": spec}
    # Judges are not what this counts: the spec's depth is.
    running = serve(config={"JURIST_MAX_SPEC_JUDGES": "1000"})
    with running.client() as client:
        response = client.post("/judge", json={"context": CONTEXT, "judge": spec})
    assert response.status_code == 422, response.text
    [error] = response.json()["errors"]
    assert error["field"].startswith("judge.judge")
    assert "nested deeper than" in error["message"]
    running.stop()
    [entry] = [e for e in audit_entries(database) if e.path == "/judge"]
    assert entry.status_code == 422


def test_model_calls_per_request_are_bounded(serve):
    running = serve(ServiceScript(lenient=True), config={"JURIST_MAX_MODEL_CALLS": "3"})
    criteria = [f"criterion {i}" for i in range(5)]
    with running.client() as client:
        response = client.post("/judge", json={"context": CONTEXT, "criteria": criteria})
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["status"] == "error"
        assert "JURIST_MAX_MODEL_CALLS" in json.dumps(answer["judgment"])
        # The budget is per request: the next one starts afresh.
        fine = client.post("/judge", json={"context": CONTEXT, "criteria": criteria[:3]})
        assert fine.json()["status"] != "error", fine.text


def test_model_calls_per_validation_are_bounded(serve):
    running = serve(ServiceScript(lenient=True), config={"JURIST_MAX_MODEL_CALLS": "2"})
    body = {
        "output": "The refund arrives in 10 days.",
        "validation_types": ["criteria"],
        "acceptance_criteria": [f"criterion {i}" for i in range(4)],
    }
    with running.client() as client:
        answer = client.post("/validate", json=body)
        assert answer.status_code == 200, answer.text
        result = answer.json()
        # Past the budget a criterion is an error, never a pass: the output is not valid.
        assert result["valid"] is False
        assert "JURIST_MAX_MODEL_CALLS" in json.dumps(result)
        fine = client.post("/validate", json={**body, "acceptance_criteria": ["criterion 0"]})
        assert fine.json()["valid"] is True, fine.text


def test_the_openapi_documents_every_error_with_the_service_error_body(serve):
    with serve().client() as client:
        schema = client.get("/openapi.json").json()
    ours = {path: ops for path, ops in schema["paths"].items() if not path.startswith("/keys")}
    for path, operations in ours.items():
        for method, operation in operations.items():
            responses = operation["responses"]
            if method == "post":
                assert {"413", "415", "422"} <= set(responses), (method, path)
            for status, response in responses.items():
                if status.startswith(("4", "5")) and path not in ("/ready",):
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorBody"), (method, path, status)
    judge_request = schema["components"]["schemas"]["JudgeRequest"]
    assert judge_request["oneOf"] == [
        {"required": ["rubric"]},
        {"required": ["criteria"]},
        {"required": ["judge"]},
    ]


def test_a_source_name_the_knowledge_base_reads_as_blank_is_a_422_naming_sources(serve):
    # "\x1e" (a record separator) passes the request model yet is blank to the knowledge base.
    running = serve()
    with running.client() as client:
        response = client.post("/sources/search", json={"query": "refund", "sources": ["\x1e"]})
    assert response.status_code == 422, response.text
    assert "sources" in response.text
