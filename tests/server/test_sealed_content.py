"""Sealed content (JURIST_STORE_CONTENT=sealed, the default): where its key comes from, what
the audit log keeps instead of the request, and what a bad setting says."""

import asyncio
import json
import stat

import pytest
from cryptography.fernet import Fernet

from jurist.server import ServiceSettings, create_app
from jurist.server._config import ConfigError, load_config
from jurist.settings import Settings
from jurist.store import RecordStore
from service_script import ServiceScript

SECRET = "Write to jane.roe@example.com or call 212-555-0187 about card 4111 1111 1111 1111."
SCHEMA_ONLY = {"output": SECRET, "validation_types": ["schema"], "expected_schema": {}}


def _settings(tmp_path, database: str | None = None) -> Settings:
    values = {"JURIST_HOME": str(tmp_path / "home"), "JURIST_CACHE": "0"}
    if database is not None:
        values["JURIST_DATABASE_URL"] = database
    return Settings(**values)


def _openable(token: str, key: str) -> bool:
    try:
        Fernet(key.encode()).decrypt(token.encode())
    except Exception:  # any failure means this key does not open it
        return False
    return True


def test_on_sqlite_without_a_key_one_is_made_once_kept_private_and_reused(
    serve, database, tmp_path, capfd
):
    key_file = tmp_path / "home" / "encryption.key"
    assert not key_file.exists()
    first = serve()
    with first.client() as client:
        answer = client.post("/validate", json=SCHEMA_ONLY)
    assert answer.status_code == 200, answer.text
    first.stop()
    made = key_file.read_text().strip()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # The warning (a JSON log line) names the file and the variable to set for backups and
    # replicas.
    lines = [json.loads(line) for line in capfd.readouterr().err.splitlines() if line.strip()]
    warned = [line for line in lines if "encryption.key" in line["message"]]
    assert len(warned) == 1
    assert warned[0]["level"] == "WARNING"
    assert "JURIST_ENCRYPTION_KEY" in warned[0]["message"]
    assert str(key_file) in warned[0]["message"]
    # A later start reads the same key, and what the first sealed opens with it.
    second = serve()
    with second.client() as client:
        validation_id = answer.json()["metadata"]["validation_id"]
        stored = client.get(f"/validations/{validation_id}").json()
    second.stop()
    assert key_file.read_text().strip() == made
    assert stored["raw_copy"] == "shown"
    assert stored["request"]["output"] == SECRET
    assert _openable(_sealed_validation(database, validation_id), made)


def _sealed_validation(database: str, validation_id: str) -> str:
    async def read() -> str:
        async with await RecordStore.open(database) as store:
            found = await store.get_validation(validation_id)
            assert found is not None
            assert found.sealed is not None
            return found.sealed

    return asyncio.run(read())


def test_a_given_key_is_used_and_no_key_file_is_made(serve, tmp_path):
    key = Fernet.generate_key().decode()
    running = serve(config={"JURIST_ENCRYPTION_KEY": key})
    with running.client() as client:
        assert client.post("/validate", json=SCHEMA_ONLY).is_success
    running.stop()
    assert not (tmp_path / "home" / "encryption.key").exists()


def test_postgresql_without_a_key_refuses_to_start_naming_both_ways_out(tmp_path):
    # Refused before any connection is made: the URL need not answer.
    settings = _settings(tmp_path, "postgresql://jurist@127.0.0.1:1/jurist")
    with pytest.raises(ConfigError) as raised:
        create_app(settings, ServiceSettings(), model="test:judge")
    message = str(raised.value)
    assert "JURIST_ENCRYPTION_KEY" in message
    assert "JURIST_STORE_CONTENT=redacted" in message
    assert not (tmp_path / "home" / "encryption.key").exists()
    # Either way out starts.
    create_app(settings, ServiceSettings(JURIST_STORE_CONTENT="redacted"), model="test:judge")
    key = Fernet.generate_key().decode()
    create_app(settings, ServiceSettings(JURIST_ENCRYPTION_KEY=key), model="test:judge")


def test_a_bad_store_content_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("JURIST_STORE_CONTENT", "plain")
    with pytest.raises(ConfigError, match="JURIST_STORE_CONTENT") as raised:
        load_config()
    assert "sealed" in str(raised.value)
    assert "redacted" in str(raised.value)


class CountingRedactor:
    def __init__(self) -> None:
        self.texts = 0

    def redact(self, text: str) -> str:
        self.texts += 1
        return text.replace("jane.roe@example.com", "<EMAIL_ADDRESS>")


def _audit(database: str) -> list:
    async def read() -> list:
        async with await RecordStore.open(database) as store:
            return await store.audit_entries(limit=50)

    return asyncio.run(read())


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_sealed_records_and_their_audit_detail_need_no_redactor_and_hold_no_content(
    serve, database
):
    redactor = CountingRedactor()
    running = serve(
        ServiceScript(criteria={"Mentions a contact": 0.9}),
        redactor=redactor,
        settings={"ENABLE_FACT_CHECKING": "false"},
    )
    body = {
        "output": {"reply": SECRET},
        "validation_types": ["schema", "criteria"],
        "acceptance_criteria": ["Mentions a contact"],
        "expected_schema": {"type": "object", "required": ["reply"]},
        "context": {"customer": SECRET},
    }
    judge = {"context": {"output": SECRET}, "criteria": ["Mentions a contact"]}
    with running.client() as client:
        assert client.post("/validate", json=body).status_code == 200
        assert client.post("/judge", json=judge).status_code == 200
        # Refused by the validator after it was read: audited from the request, no content.
        refused = client.post("/validate", json={"output": SECRET, "validation_types": ["facts"]})
        assert refused.status_code == 422
    running.stop()
    # Nothing on the write path went through the redactor.
    assert redactor.texts == 0
    entries = {(e.path, e.status_code): e.detail for e in _audit(database)}
    validated = entries[("/validate", 200)]
    judged = entries[("/judge", 200)]
    assert validated == {
        "fields": [
            "acceptance_criteria",
            "context",
            "expected_schema",
            "output",
            "validation_types",
        ],
        "validation_types": ["schema", "criteria"],
        "output_type": "object",
        "output_length": 1,
        "acceptance_criteria": 1,
        "trusted_sources": 0,
        "expected_schema": True,
        "context_fields": 1,
    }
    assert judged == {
        "fields": ["context", "criteria"],
        "judge_by": "criteria",
        "output_type": "string",
        "output_length": len(SECRET),
    }
    assert entries[("/validate", 422)]["validation_types"] == ["facts"]
    text = json.dumps(list(entries.values()))
    for piece in ("jane.roe", "212-555-0187", "4111", "Mentions a contact", "customer", "reply"):
        assert piece not in text, piece


class BrokenRedactor:
    def redact(self, text: str) -> str:
        raise RuntimeError("the NER model could not be loaded")


def test_an_admin_read_whose_redactor_fails_answers_503_with_the_cause_and_no_content(serve):
    owner, admin = "o" * 20, "a" * 20
    running = serve(
        redactor=BrokenRedactor(),
        config={"JURIST_API_KEYS": f"alice:{owner},root:admin:{admin}"},
    )
    with running.client(owner) as alice:
        answer = alice.post("/validate", json=SCHEMA_ONLY)
        assert answer.status_code == 200
        validation_id = answer.json()["metadata"]["validation_id"]
        # The owner's read needs no redactor.
        assert alice.get(f"/validations/{validation_id}").status_code == 200
    with running.client(admin) as root:
        seen = root.get(f"/validations/{validation_id}")
    assert seen.status_code == 503
    assert seen.json()["error"] == "redactor_unavailable"
    assert "RuntimeError: the NER model could not be loaded" in seen.json()["message"]
    assert "jane.roe@example.com" not in seen.text
