"""The service through a PostgreSQL outage, on a server of the module's own: stopped or
frozen (SIGSTOP, what a network partition looks like), the database costs each request a
503 with a body within the configured bounds, never a hang; every refused request is still
audited (kept on disk, written once when the database returns); and afterwards the service
answers as before."""

import contextlib
import os
import pwd
import shutil
import signal
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from running import Running, count_rows

from postgres import _as_server_user, _binaries, _free_port, _run

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


@dataclass
class Server:
    """A PostgreSQL server only this module uses: stopping or freezing it disturbs no other
    test."""

    directory: Path
    port: int
    pg_ctl: list[str]
    options: str

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        _run(_as_server_user([*self.pg_ctl, "-m", "fast", "-w", "stop"]))

    def start(self) -> None:
        log = str(self.directory / "log")
        _run(_as_server_user([*self.pg_ctl, "-l", log, "-w", "-o", self.options, "start"]))

    def processes(self) -> list[int]:
        master = int((self.directory / "data" / "postmaster.pid").read_text().split()[0])
        children = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    fields = (entry / "stat").read_text().rpartition(")")[2].split()
                    if int(fields[1]) == master:
                        children.append(int(entry.name))
        return [master, *children]

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        processes = self.processes()
        try:
            for pid in processes:
                os.kill(pid, signal.SIGSTOP)
            yield
        finally:
            for pid in processes:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    binaries = _binaries()
    directory = Path(tempfile.mkdtemp(prefix="jurist-pg-outage-"))
    if os.geteuid() == 0:
        os.chown(directory, pwd.getpwnam("postgres").pw_uid, -1)
    data = directory / "data"
    port = _free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {directory} -c fsync=off"
    running = Server(directory, port, [str(binaries / "pg_ctl"), "-D", str(data)], options)
    try:
        _run(
            _as_server_user(
                [
                    *(str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"),
                    *("--no-sync", "-E", "UTF8", "--locale", "C"),
                ]
            )
        )
        running.start()
        yield running
    finally:
        if (data / "postmaster.pid").exists():
            _run(_as_server_user([*running.pg_ctl, "-m", "immediate", "-w", "stop"]))
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def database(server) -> Iterator[str]:
    """The `serve` fixture's database: a new one on this module's server."""
    name = f"jurist_outage_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.url(), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield server.url(name)
    if not (server.directory / "data" / "postmaster.pid").exists():
        server.start()  # a test that failed while it was stopped
    with psycopg.connect(server.url(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
