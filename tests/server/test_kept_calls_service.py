"""The service keeps no calls: what it stores is redacted or sealed, and prompts would hold
the request's content in the clear."""

import asyncio

from test_validate_http import VALID, spec_script

from jurist.store import RecordStore


def test_a_validation_s_judgments_are_stored_without_their_calls(serve, database):
    running = serve(spec_script())
    with running.client() as client:
        answered = client.post("/validate", json=VALID)
        assert answered.status_code == 200, answered.text
        validation_id = answered.json()["metadata"]["validation_id"]

    async def kept() -> list[object]:
        async with await RecordStore.open(database) as store:
            validation = await store.get_validation(validation_id)
            assert validation is not None
            assert validation.judgment_ids
            judgments = [await store.get_judgment(id) for id in validation.judgment_ids]
        assert all(judgment is not None for judgment in judgments)
        assert any(judgment.model == "test:judge" for judgment in judgments if judgment)
        return [judgment.calls for judgment in judgments if judgment]

    calls = asyncio.run(kept())
    assert calls
    assert calls == [None] * len(calls)
