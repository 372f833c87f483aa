"""The service's writes go through the store's group commit: concurrent POST /validate share
commits, every validation answered is readable afterwards (it was committed before the
answer), each request keeps its audit entry, and stopping the service flushes the writes
still queued."""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import sqlalchemy as sa
from running import Running, count_rows

from jurist.server import ServiceSettings
from jurist.server._service import Service
from jurist.settings import Settings
from jurist.store import AuditRecord, RecordStore

REQUESTS = 48
SCHEMA = {"type": "object", "required": ["code"]}


def request(n: int) -> dict[str, Any]:
    return {"output": {"code": f"f{n}"}, "validation_types": ["schema"], "expected_schema": SCHEMA}


class Commits:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, _connection: Any) -> None:
        self.count += 1


def eventually_audited(running: Running, url: str, count: int) -> None:
    # Audit entries are written after the answer: the service flushes them when it stops.
    running.stop()
    assert count_rows(url, "audit_log") == count


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_concurrent_validations_share_commits_and_each_answered_one_is_stored(serve, database):
    running = serve()
    engine = running.service.require_store().engine
    with running.client() as client:
        assert client.post("/validate", json=request(-1)).status_code == 200  # warm
    commits = Commits()
    sa.event.listen(engine.sync_engine, "commit", commits)

    def post(n: int) -> str:
        with running.client() as client:
            response = client.post("/validate", json=request(n))
        assert response.status_code == 200, response.text
        validation_id: str = response.json()["metadata"]["validation_id"]
        return validation_id

    with ThreadPoolExecutor(max_workers=16) as pool:
        ids = list(pool.map(post, range(REQUESTS)))
    # Each request writes its validation (with its judgment) and its audit entry.
    writes = 2 * REQUESTS
    sa.event.remove(engine.sync_engine, "commit", commits)
    assert 0 < commits.count < writes, commits.count
    with running.client() as client:
        for validation_id in ids:
            shown = client.get(f"/validations/{validation_id}")
            assert shown.status_code == 200, shown.text
            assert len(shown.json()["judgment_ids"]) == 1
    assert count_rows(database, "validations") == REQUESTS + 1
    eventually_audited(running, database, REQUESTS + 1 + len(ids))  # and the GETs


async def test_stopping_the_service_flushes_the_writes_still_queued(tmp_path):
    settings = Settings(JURIST_HOME=str(tmp_path / "home"), JURIST_CACHE="0")
    url = f"sqlite:///{tmp_path / 'flush.sqlite3'}"
    async with await RecordStore.open(url) as store:
        service = Service(settings, ServiceSettings(), store=store, load_model=False)
        queued = [
            asyncio.ensure_future(
                store.write_audit(
                    AuditRecord(method="POST", path=f"/q/{n}", status_code=200, latency_ms=1.0)
                )
            )
            for n in range(20)
        ]
        await asyncio.sleep(0)
        assert not any(write.done() for write in queued)
        await service.stop()
        # Answered by the time stop returns: committed, not merely queued.
        assert all(write.done() and write.exception() is None for write in queued)
        assert len(await store.audit_entries()) == 20
