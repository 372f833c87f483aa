"""The service through a PostgreSQL outage, on a server of the module's own: stopped or
frozen (SIGSTOP, what a network partition looks like), the database costs each request a
503 with a body within the configured bounds, never a hang; every refused request is still
audited (kept on disk, written once when the database returns); and afterwards the service
answers as before."""

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from running import Running, count_rows

from postgres import OwnServer, own_server

CONNECT_S = 1.0
STATEMENT_S = 1.0
POOL_S = 1.0
SILENCE_S = STATEMENT_S + 0.25  # the client's grace over the server's statement_timeout
SETTINGS = {
    "JURIST_DB_CONNECT_TIMEOUT_S": str(CONNECT_S),
    "JURIST_DB_STATEMENT_TIMEOUT_S": str(STATEMENT_S),
    "JURIST_DB_POOL_TIMEOUT_S": str(POOL_S),
    "JURIST_AUDIT_RETRY_S": "0.2",
}
REQUEST = {
    "output": {"code": "def f(): pass"},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "required": ["code"]},
}


@pytest.fixture(scope="module")
def server() -> Iterator[OwnServer]:
    with own_server("jurist-pg-outage-") as running:
        yield running


@pytest.fixture
def database(server) -> Iterator[str]:
    """The `serve` fixture's database: a new one on this module's server."""
    with server.database("jurist_outage") as url:
        yield url


def post(running: Running) -> tuple[float, httpx.Response]:
    with running.client() as client:
        started = time.perf_counter()
        response = client.post("/validate", json=REQUEST)
        return time.perf_counter() - started, response


def post_concurrently(running: Running, count: int) -> list[tuple[float, httpx.Response]]:
    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(lambda _: post(running), range(count)))


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["error"] == "store_unavailable"
    assert body["message"]


def eventually(condition: Callable[[], bool], within: float = 30.0) -> None:
    """Wait for `condition` (the replay runs on its own clock), at most `within` seconds."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.05)


def audited(running: Running, url: str, count: int) -> Callable[[], bool]:
    def check() -> bool:
        if running.service.audit_spool.pending():
            return False
        return count_rows(url, "audit_log") >= count

    return check


def margin_of(running: Running) -> float:
    """Slack for the machine's own delays: a second, plus ten times a healthy request."""
    elapsed, response = post(running)
    assert response.status_code == 200, response.text
    return 1.0 + 10 * elapsed


def spooled(directory: Path) -> int:
    return sum(len(path.read_bytes().splitlines()) for path in directory.glob("*.jsonl"))


def test_a_stopped_database_costs_503s_and_loses_no_audit_record(serve, server, database, tmp_path):
    spool = tmp_path / "spool"
    running = serve(settings={**SETTINGS, "JURIST_AUDIT_SPOOL_DIR": str(spool)})
    margin = margin_of(running)
    eventually(audited(running, database, 1))  # written after the answer: before the stop
    server.stop()
    try:
        answers = post_concurrently(running, 12)
        with running.client() as client:
            ready = client.get("/ready")
        # Each refused request is on disk, in the directory configured.
        eventually(lambda: spooled(spool) == 12)
    finally:
        server.start()
    for elapsed, response in answers:
        assert_unavailable(response)
        assert elapsed < CONNECT_S + margin
    assert ready.status_code == 503
    assert ready.json()["database"]["reachable"] is False

    # Every refused request is audited once the database is back, and only once.
    eventually(audited(running, database, 13))
    assert count_rows(database, "audit_log") == 13
    for _ in range(5):
        elapsed, response = post(running)
        assert response.status_code == 200, response.text
    eventually(audited(running, database, 18))
    assert count_rows(database, "audit_log") == 18


def test_a_frozen_database_answers_503_within_the_bound_and_recovers(serve, server, database):
    running = serve(settings=SETTINGS)
    margin = margin_of(running)
    post_concurrently(running, 4)  # pooled connections for the freeze to catch idle
    eventually(audited(running, database, 5))
    # A pooled connection is pinged (silence), then a new one is tried (connect).
    bound = SILENCE_S + CONNECT_S + margin
    with server.frozen():
        sequential = [post(running) for _ in range(3)]
        with running.client() as client:
            started = time.perf_counter()
            ready = client.get("/ready")
            ready_s = time.perf_counter() - started
        concurrent = post_concurrently(running, 6)
    for elapsed, response in sequential:
        assert_unavailable(response)
        assert elapsed < bound
    assert ready.status_code == 503
    assert ready.json()["database"]["reachable"] is False
    assert ready_s < bound
    for elapsed, response in concurrent:
        assert_unavailable(response)
        assert elapsed < bound + POOL_S

    # 5 answered before the freeze, 9 refused during it: each audited exactly once.
    eventually(audited(running, database, 14))
    assert count_rows(database, "audit_log") == 14
    for _ in range(10):
        elapsed, response = post(running)
        assert response.status_code == 200, response.text
        assert elapsed < margin
    with running.client() as client:
        assert client.get("/ready").status_code == 200
    eventually(audited(running, database, 24))
    assert count_rows(database, "audit_log") == 24
