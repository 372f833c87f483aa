"""The audit record of a validation is made from the request as stored, redacted already:
the redactor reads each text of a request once, not once for the record and again for the
audit log, and the audit log holds what it replaced."""

import asyncio
from collections import Counter

from jurist.store import RecordStore

SECRET = "call me on the secret line"


class CountingRedactor:
    """Replaces 'secret' with <SECRET>, and counts every text it is given."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def redact(self, text: str) -> str:
        self.seen[text] += 1
        return text.replace("secret", "<SECRET>")


def audit_entries(database: str) -> list:
    async def read() -> list:
        async with await RecordStore.open(database) as store:
            return await store.audit_entries(limit=50)

    return asyncio.run(read())


REDACTED = {"JURIST_STORE_CONTENT": "redacted"}


def test_a_validation_is_redacted_once_and_audited_redacted(serve, database):
    redactor = CountingRedactor()
    running = serve(redactor=redactor, config=REDACTED)
    body = {"output": SECRET, "validation_types": ["schema"], "expected_schema": {}}
    with running.client() as client:
        answer = client.post("/validate", json=body)
    assert answer.status_code == 200
    running.stop()
    assert redactor.seen[SECRET] == 1
    [entry] = [e for e in audit_entries(database) if e.path == "/validate"]
    assert entry.detail["output_excerpt"] == "call me on the <SECRET> line"
    assert entry.detail["request"]["validation_types"] == ["schema"]


def test_a_refused_validation_is_still_audited_redacted(serve, database):
    redactor = CountingRedactor()
    running = serve(redactor=redactor, settings={"ENABLE_FACT_CHECKING": "false"}, config=REDACTED)
    # Read, then refused by the validator (a layer switched off here): the route's detail
    # was never stored, so the audit log redacts it itself.
    body = {"output": SECRET, "validation_types": ["facts"]}
    with running.client() as client:
        assert client.post("/validate", json=body).status_code == 422
    running.stop()
    [entry] = [e for e in audit_entries(database) if e.path == "/validate"]
    assert entry.detail["output_excerpt"] == "call me on the <SECRET> line"


def test_the_services_own_ids_are_not_analysed_and_still_name_the_records(serve):
    redactor = CountingRedactor()
    running = serve(redactor=redactor, config=REDACTED)
    body = {"output": SECRET, "validation_types": ["schema"], "expected_schema": {}}
    with running.client() as client:
        metadata = client.post("/validate", json=body).json()["metadata"]
        validation_id = metadata["validation_id"]
        judgment_id = metadata["layers"]["schema"]["judgment_id"]
        assert validation_id not in redactor.seen
        assert judgment_id not in redactor.seen
        stored = client.get(f"/validations/{validation_id}").json()
    assert stored["result"]["metadata"]["validation_id"] == validation_id
    assert stored["result"]["metadata"]["layers"]["schema"]["judgment_id"] == judgment_id
    assert stored["judgment_ids"] == [judgment_id]
