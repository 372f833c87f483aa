"""Keys, rate limits, the body limit, the audit log and PII redaction, over real HTTP."""

import asyncio
import json

import pytest

from jurist.server import new_key
from jurist.store import RecordStore
from service_script import ServiceScript

SCHEMA_ONLY = {
    "output": {"answer": "ok"},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "required": ["answer"]},
}


def audit_entries(database: str) -> list:
    async def read() -> list:
        async with await RecordStore.open(database) as store:
            return await store.audit_entries(limit=50)

    return asyncio.run(read())


def test_keys_are_required_once_configured_and_only_their_ids_are_kept(serve, database, capfd):
    secret, digest = new_key()
    running = serve(config={"JURIST_API_KEYS": f"ci:{secret},ops:sha256:{'0' * 64}"})
    with running.client() as anonymous:
        missing = anonymous.post("/validate", json=SCHEMA_ONLY)
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"] == "Bearer"
        assert missing.json()["error"] == "unauthorized"
        assert anonymous.get("/health").status_code == 200  # probes need no key
        assert anonymous.get("/metrics").status_code == 200
    with running.client("jur_not-a-key-at-all-0000") as wrong:
        assert wrong.post("/validate", json=SCHEMA_ONLY).status_code == 401
    with running.client(secret) as client:
        answer = client.post("/validate", json=SCHEMA_ONLY)
        assert answer.status_code == 200
        validation_id = answer.json()["metadata"]["validation_id"]
        assert client.get(f"/validations/{validation_id}").status_code == 200

    running.stop()  # in-flight requests finish, their audit records with them
    entries = audit_entries(database)
    by_status = {(e.status_code, e.key_id, e.verdict) for e in entries}
    assert (200, "ci", "valid") in by_status
    assert (401, None, "unauthorized") in by_status
    assert all(e.path != "/health" for e in entries)
    validated = next(e for e in entries if e.verdict == "valid")
    assert validated.request_sha256
    assert len(validated.request_sha256) == 64
    assert validated.latency_ms > 0
    logged = capfd.readouterr()
    assert secret not in logged.out + logged.err
    assert digest not in logged.out + logged.err


def test_a_key_cannot_read_another_keys_validation(serve):
    first, _ = new_key()
    second, _ = new_key()
    running = serve(config={"JURIST_API_KEYS": f"a:{first},b:{second}"})
    with running.client(first) as a, running.client(second) as b:
        validation_id = a.post("/validate", json=SCHEMA_ONLY).json()["metadata"]["validation_id"]
        assert b.get(f"/validations/{validation_id}").status_code == 404
        assert a.get(f"/validations/{validation_id}").status_code == 200


def test_the_rate_limit_answers_429_with_retry_after_per_key(serve):
    first, _ = new_key()
    second, _ = new_key()
    running = serve(
        config={"JURIST_API_KEYS": f"a:{first},b:{second}", "JURIST_RATE_LIMIT": "2/hour"}
    )
    with running.client(first) as a, running.client(second) as b:
        assert [a.post("/validate", json=SCHEMA_ONLY).status_code for _ in range(3)] == [
            200,
            200,
            429,
        ]
        limited = a.post("/validate", json=SCHEMA_ONLY)
        assert limited.json()["error"] == "rate_limited"
        assert 0 < int(limited.headers["retry-after"]) <= 3600
        assert b.post("/validate", json=SCHEMA_ONLY).status_code == 200


def test_bodies_over_the_limit_are_413_declared_or_streamed(serve):
    running = serve(config={"JURIST_MAX_BODY_BYTES": "2048"})
    big = {**SCHEMA_ONLY, "output": {"answer": "x" * 4096}}
    with running.client() as client:
        declared = client.post("/validate", json=big)
        assert declared.status_code == 413
        assert "JURIST_MAX_BODY_BYTES" in declared.json()["message"]

        def chunks():
            payload = json.dumps(big).encode()
            for start in range(0, len(payload), 512):
                yield payload[start : start + 512]

        streamed = client.post(
            "/validate", content=chunks(), headers={"content-type": "application/json"}
        )
        assert streamed.status_code == 413
    with running.client() as client:
        assert client.post("/validate", json=SCHEMA_ONLY).status_code == 200


def test_the_audit_log_is_redacted_always(serve, database):
    # Stored redacted, the audit detail keeps the request redacted (sealed, an outline: see
    # test_pii_at_rest).
    running = serve(
        ServiceScript(criteria={"Mentions a contact": 0.9}),
        config={"JURIST_STORE_CONTENT": "redacted"},
    )
    output = "Write to jane.roe@example.com or call 212-555-0187."
    with running.client() as client:
        answer = client.post(
            "/validate",
            json={
                "output": output,
                "validation_types": ["criteria"],
                "acceptance_criteria": ["Mentions a contact"],
            },
        )
        assert answer.status_code == 200
    running.stop()
    entry = next(e for e in audit_entries(database) if e.path == "/validate")
    text = json.dumps(entry.detail)
    assert "jane.roe@example.com" not in text
    assert "212-555-0187" not in text
    assert "<EMAIL_ADDRESS>" in text
    assert entry.detail["request"]["acceptance_criteria"] == ["Mentions a contact"]


@pytest.mark.parametrize("log_results", [True, False])
def test_logs_are_json_lines_and_validations_are_logged_when_asked(serve, capfd, log_results):
    running = serve(
        config={"LOG_LEVEL": "info", "LOG_VALIDATION_RESULTS": "true" if log_results else "false"}
    )
    with running.client() as client:
        validation_id = client.post("/validate", json=SCHEMA_ONLY).json()["metadata"][
            "validation_id"
        ]
    running.stop()
    lines = [json.loads(line) for line in capfd.readouterr().err.splitlines() if line.strip()]
    assert any(line["message"] == "request" and line["path"] == "/validate" for line in lines)
    logged = [line for line in lines if line["message"] == "validation"]
    if log_results:
        assert [line["validation_id"] for line in logged] == [validation_id]
        assert logged[0]["valid"] is True
        assert "answer" not in json.dumps(logged[0])  # counts and verdicts, never content
    else:
        assert logged == []
