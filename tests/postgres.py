"""A throwaway PostgreSQL server for tests, and a fresh database per test.

`postgres_server` starts one server per session (initdb into a temporary directory, as the
`postgres` user when running as root, since initdb refuses root; loopback only, a free port,
the socket in the same directory) and removes it at the end. `postgres_url` creates an
empty database for one test and drops it afterwards. Without the server binaries the tests
fail rather than skip: CI must exercise PostgreSQL.
"""

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

_USER = "postgres"


@dataclass(frozen=True)
class PostgresServer:
    port: int
    directory: Path
    start_seconds: float

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{_USER}@127.0.0.1:{self.port}/{database}"


def _binaries() -> Path:
    candidates = [Path(path).parent for path in filter(None, [shutil.which("pg_ctl")])]
    candidates += sorted(
        (Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin")),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
        reverse=True,
    )
    for directory in candidates:
        if (directory / "initdb").exists() and (directory / "pg_ctl").exists():
            return directory.resolve()
    pytest.fail(
        "PostgreSQL server binaries (initdb, pg_ctl) not found: the store's tests need a "
        "real server. Install it with `apt-get install postgresql`.",
        pytrace=False,
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", _USER, "--", *command]


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        pytest.fail(
            f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}{result.stderr}",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    binaries = _binaries()
    started = time.perf_counter()
    directory = Path(tempfile.mkdtemp(prefix="jurist-pg-"))
    if os.geteuid() == 0:
        os.chown(directory, pwd.getpwnam(_USER).pw_uid, -1)
    data = directory / "data"
    pg_ctl = [str(binaries / "pg_ctl"), "-D", str(data)]
    try:
        _run(
            _as_server_user(
                [
                    *(str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", _USER),
                    *("--no-sync", "-E", "UTF8", "--locale", "C"),
                ]
            )
        )
        port = _free_port()
        # A throwaway server: durability settings off, for speed.
        options = (
            f"-c listen_addresses=127.0.0.1 -p {port} -k {directory} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        _run(_as_server_user([*pg_ctl, "-l", str(directory / "log"), "-w", "-o", options, "start"]))
        server = PostgresServer(port, directory, time.perf_counter() - started)
        yield server
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_server_user([*pg_ctl, "-m", "immediate", "-w", "stop"]),
                capture_output=True,
                check=False,
            )
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A URL (`postgresql://...`) of a new, empty database, dropped after the test."""
    import psycopg

    name = f"jurist_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield postgres_server.url(name)
    finally:
        with (
            psycopg.connect(postgres_server.url(), autocommit=True) as admin,
            contextlib.suppress(psycopg.Error),
        ):
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class OwnServer:
    """A PostgreSQL server one test module has to itself, so that stopping or freezing it
    (SIGSTOP, what a network partition looks like) disturbs no other test."""

    directory: Path
    port: int
    pg_ctl: list[str]
    options: str

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{_USER}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        _run(_as_server_user([*self.pg_ctl, "-m", "fast", "-w", "stop"]))

    def start(self) -> None:
        log = str(self.directory / "log")
        _run(_as_server_user([*self.pg_ctl, "-l", log, "-w", "-o", self.options, "start"]))

    def processes(self) -> list[int]:
        """The postmaster and its children (the backends)."""
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
                # A backend may end between the listing and here: it needs no freezing.
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
            yield
        finally:
            for pid in processes:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)

    @contextlib.contextmanager
    def database(self, prefix: str) -> Iterator[str]:
        """The URL of a new, empty database, dropped afterwards (the server started again
        first if a test left it stopped)."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with psycopg_connect(self.url()) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield self.url(name)
        finally:
            if not (self.directory / "data" / "postmaster.pid").exists():
                self.start()
            with psycopg_connect(self.url()) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def own_server(prefix: str) -> Iterator[OwnServer]:
    """A new PostgreSQL server on a free loopback port, removed afterwards."""
    binaries = _binaries()
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0:
        os.chown(directory, pwd.getpwnam(_USER).pw_uid, -1)
    data = directory / "data"
    port = _free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {directory} -c fsync=off"
    server = OwnServer(directory, port, [str(binaries / "pg_ctl"), "-D", str(data)], options)
    try:
        _run(
            _as_server_user(
                [
                    *(str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", _USER),
                    *("--no-sync", "-E", "UTF8", "--locale", "C"),
                ]
            )
        )
        server.start()
        yield server
    finally:
        if (data / "postmaster.pid").exists():
            _run(_as_server_user([*server.pg_ctl, "-m", "immediate", "-w", "stop"]))
        shutil.rmtree(directory, ignore_errors=True)


def psycopg_connect(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)
