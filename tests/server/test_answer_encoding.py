"""POST /validate's answer is the result dumped once for the store's raw copy and encoded
as it is: it must be exactly what FastAPI would make of the returned model, and the record
the store keeps must name the same validation and judgments."""

import json

from jurist.validation import ValidationResult
from service_script import ServiceScript

SCHEMA = {
    "type": "object",
    "required": ["code"],
    "properties": {"code": {"type": "string"}},
}
REQUEST = {
    # Non-ASCII and a float in the output: the encodings that differ between JSON writers.
    "output": {"code": "def tri(x): return sorted(x)  # café 0.1"},
    "validation_types": ["schema", "quality"],
    "expected_schema": SCHEMA,
}


def _as_fastapi_encodes(result: ValidationResult) -> bytes:
    # FastAPI's JSONResponse: UTF-8, compact, no NaN.
    dumped = result.model_dump(mode="json", by_alias=True)
    return json.dumps(
        dumped, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


def test_the_answer_is_the_result_model_encoded_as_fastapi_would(serve):
    running = serve(ServiceScript(quality={"completeness": 5, "clarity": 4, "consistency": 3}))
    with running.client() as client:
        answer = client.post("/validate", json=REQUEST)
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"] == "application/json"
        # Valid against the response model, and byte for byte its canonical encoding.
        result = ValidationResult.model_validate_json(answer.content)
        assert answer.content == _as_fastapi_encodes(result)
        assert int(answer.headers["content-length"]) == len(answer.content)

        metadata = result.metadata
        assert metadata.validation_id is not None
        stored = client.get(f"/validations/{metadata.validation_id}")
        assert stored.status_code == 200, stored.text
        kept = stored.json()
        assert kept["result"]["metadata"]["validation_id"] == metadata.validation_id
        judgment_ids = {s.judgment_id for s in metadata.layers.values() if s.judgment_id}
        assert judgment_ids
        assert judgment_ids == set(kept["judgment_ids"])
        assert kept["result"]["valid"] == result.valid


def test_every_answer_is_its_own_result(serve):
    # Answers are encoded per request: two requests never share an id or an answer.
    running = serve(ServiceScript(quality={"completeness": 5, "clarity": 4, "consistency": 3}))
    with running.client() as client:
        first = client.post("/validate", json=REQUEST).json()
        second = client.post("/validate", json=REQUEST).json()
    assert first["metadata"]["validation_id"] != second["metadata"]["validation_id"]


def test_the_schema_still_names_the_result_model(serve):
    running = serve()
    with running.client() as client:
        schema = client.get("/openapi.json").json()
    answer = schema["paths"]["/validate"]["post"]["responses"]["200"]
    assert answer["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ValidationResult"
    }


def test_content_types_are_told_apart_after_many_requests(serve):
    # What a Content-Type is (JSON or not) is remembered per header value: a JSON one and
    # a plain-text one, asked again and again, each keep their answer.
    running = serve()
    body = json.dumps(REQUEST)
    with running.client() as client:
        for _ in range(3):
            for kind, status in (
                ("application/json; charset=utf-8", 200),
                ("application/problem+json", 200),
                ("text/plain", 415),
                ("application/jsonx", 415),
            ):
                answer = client.post("/validate", content=body, headers={"Content-Type": kind})
                assert answer.status_code == status, (kind, answer.text)
