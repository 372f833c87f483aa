"""What the edge of the service answers with, over real HTTP: the headers of a stored
validation, of each refusal the edge or the caller check makes (401, 413, 429), in the order
the checks run (the body limit before the key); and that each leaves its audit record with
its status."""

import asyncio

from jurist.server import new_key
from jurist.store import RecordStore

SCHEMA_ONLY = {
    "output": {"answer": "ok"},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "required": ["answer"]},
}


def audited(database: str) -> list[int]:
    async def read() -> list[int]:
        async with await RecordStore.open(database) as store:
            entries = await store.audit_entries(limit=50)
        return sorted(e.status_code for e in entries if e.path == "/validate")

    return asyncio.run(read())


def test_each_answer_keeps_its_headers_and_the_checks_their_order(serve, database):
    secret, _ = new_key()
    running = serve(
        config={
            "JURIST_API_KEYS": f"ci:{secret}",
            "JURIST_RATE_LIMIT": "1/hour",
            "JURIST_MAX_BODY_BYTES": "2048",
        }
    )
    big = {**SCHEMA_ONLY, "output": {"answer": "x" * 4096}}
    with running.client(secret) as client, running.client() as anonymous:
        stored = client.post("/validate", json=SCHEMA_ONLY)
        assert stored.status_code == 200
        assert stored.headers["content-type"] == "application/json"
        assert int(stored.headers["content-length"]) == len(stored.content)
        assert stored.json()["metadata"]["validation_id"]

        # Too large is refused before the key is even looked at.
        too_large = anonymous.post("/validate", json=big)
        assert too_large.status_code == 413
        assert too_large.headers["connection"] == "close"

        unknown = anonymous.post("/validate", json=SCHEMA_ONLY)
        assert unknown.status_code == 401
        assert unknown.headers["www-authenticate"] == "Bearer"

        # The key's second request within the hour.
        limited = client.post("/validate", json=SCHEMA_ONLY)
        assert limited.status_code == 429
        assert limited.headers["content-type"] == "application/json"
        assert 0 < int(limited.headers["retry-after"]) <= 3600
    running.stop()
    assert audited(database) == [200, 401, 413, 429]
