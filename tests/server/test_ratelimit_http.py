"""Rate limits over real HTTP: per client address when the service has no keys, per key
when it has; the 429 says when to retry; what a limited key is refused leaves the others'
windows alone; a limit counted in leases still answers every header as before."""

import pytest

from jurist.server import new_key

SCHEMA_ONLY = {
    "output": {"answer": "ok"},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "required": ["answer"]},
}


@pytest.mark.parametrize("storage", ["database", "memory"])
def test_without_keys_the_client_address_is_limited(serve, storage):
    running = serve(config={"JURIST_RATE_LIMIT": "2/hour", "JURIST_RATE_LIMIT_STORAGE": storage})
    with running.client() as client:
        codes = [client.post("/validate", json=SCHEMA_ONLY).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        refused = client.post("/validate", json=SCHEMA_ONLY)
        assert refused.status_code == 429
        assert refused.headers["content-type"] == "application/json"
        assert 0 < int(refused.headers["retry-after"]) <= 3600
        assert refused.json()["error"] == "rate_limited"
        # Probes are never limited.
        assert client.get("/health").status_code == 200


def test_a_busy_key_is_let_through_in_leases_up_to_its_limit(serve):
    busy, _ = new_key()
    quiet, _ = new_key()
    running = serve(
        config={"JURIST_API_KEYS": f"busy:{busy},quiet:{quiet}", "JURIST_RATE_LIMIT": "40/hour"}
    )
    with running.client(busy) as client, running.client(quiet) as other:
        codes = [client.post("/validate", json=SCHEMA_ONLY).status_code for _ in range(45)]
        assert codes == [200] * 40 + [429] * 5
        assert other.post("/validate", json=SCHEMA_ONLY).status_code == 200
