"""How near its floor the validation service runs: schema-only POST /validate under wrk.

Each row starts `jurist serve` on 127.0.0.1 (a fresh JURIST_HOME and database), makes an API
key for the bench with `jurist keys new --rate-limit`, sets JURIST_RATE_LIMIT explicitly
high (the default limit answers 429 to any load test from one address), and drives
schema-only POST /validate with wrk (one thread, `--connections` each of 16 and 64,
`--duration` seconds after a warm-up of 3 s). Persistence and audit are as deployed: every
validation stored before it is answered, its content sealed (JURIST_STORE_CONTENT=sealed,
the default; an inherited JURIST_STORE_CONTENT is ignored), every request's audit record (a
content-free outline) written. On PostgreSQL the service is given a fresh
JURIST_ENCRYPTION_KEY, as a deployment sets one. Every request's output differs (a counter
in it), so no cache of content answers for the service. With `--workers 2` too, and on
PostgreSQL when `--postgres` is given.

`--diagnostic` adds a row whose service stores redacted content instead
(JURIST_STORE_CONTENT=redacted, the default before sealing): every stored record and audit
detail goes through Presidio's analysis on the write path, which shows what that costs.

The floor rows run bench/floor_app.py (FastAPI reading the body, jsonschema_rs validating
it, a JSON answer; nothing stored) under the same uvicorn settings, with each `--workers`
count: what any Python service doing this work over HTTP costs on this machine, and what a
second process gives it.

Per row: requests/s, wrk's P50 and P99 latency, non-2xx answers and socket errors, and the
server's CPU time per request (user + system of the server process and its workers, read
from /proc before and after the timed run, divided by the requests wrk counted).

The machine's other load shows in every figure: wrk and the server share its cores (wrk's
thread takes one of them at high rates). Run it alone, under the bench lock on a shared
machine: flock /tmp/jurist-bench.lock python bench/serve_load.py

Printed: a markdown table with the machine and the command; appended: one JSON line per run
to bench/results/serve_load.jsonl.

Run: python bench/serve_load.py [--connections 16,64] [--workers 1,2] [--duration 10]
     [--postgres URL | --postgres tests] [--no-floor] [--diagnostic] [--port 18051]
"""

import argparse
import contextlib
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
from cryptography.fernet import Fernet
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).parent))
from machine_info import machine

BENCH = Path(__file__).parent
RESULTS = BENCH / "results" / "serve_load.jsonl"
TESTS = BENCH.parent / "tests"
# Schema-only requests never call a model; nothing listens here, so a call would fail loudly.
UNUSED_MODEL = "openai-compatible:unused@http://127.0.0.1:9/v1"
# High enough that no run of this bench reaches it, and set on both the key and the default.
BENCH_RATE = "100000000/minute"
STARTUP_S = 90.0
WARMUP_S = 3.0

SCHEMA = {
    "type": "object",
    "required": ["code", "tests"],
    "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
}
# The sorting-function example request, schema layer only; COUNTER becomes a number that
# differs for every request wrk sends.
BODY = json.dumps(
    {
        "output": {
            "code": "def sort_list(lst): return sorted(lst)  # COUNTER",
            "tests": "assert sort_list([3,1,2]) == [1,2,3]",
        },
        "validation_types": ["schema"],
        "expected_schema": SCHEMA,
    }
)

WRK_SCRIPT = """local prefix, suffix = [==[PREFIX]==], [==[SUFFIX]==]
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
AUTHORIZATION

request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, prefix .. counter .. suffix)
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK_JSON {\\"requests\\": %d, \\"duration_us\\": %d, \\"connect_errors\\": %d, " ..
    "\\"read_errors\\": %d, \\"write_errors\\": %d, \\"status_errors\\": %d, " ..
    "\\"timeouts\\": %d, \\"p50_ms\\": %.3f, \\"p99_ms\\": %.3f, \\"max_ms\\": %.3f}\\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
"""


def wrk_script(path: Path, secret: str | None) -> Path:
    prefix, _, suffix = BODY.partition("COUNTER")
    auth = f'wrk.headers["Authorization"] = "Bearer {secret}"' if secret else ""
    text = WRK_SCRIPT.replace("PREFIX", prefix).replace("SUFFIX", suffix)
    path.write_text(text.replace("AUTHORIZATION", auth), "utf-8")
    return path


def wrk(url: str, script: Path, connections: int, seconds: float) -> dict[str, Any]:
    # A long timeout: a slow answer counts in the percentiles instead of as an error.
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "30s"]
    done = subprocess.run(
        [*command, "-s", str(script), url], capture_output=True, text=True, check=False
    )
    found = re.search(r"^WRK_JSON (.*)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"wrk failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    summary: dict[str, Any] = json.loads(found.group(1))
    return summary


# -- the server's CPU ----------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            with contextlib.suppress(OSError):
                pending += [int(c) for c in (task / "children").read_text().split()]
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and every process below it (uvicorn's workers)."""
    total = 0
    for each in _descendants(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{each}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICK


# -- the servers ---------------------------------------------------------------------------


@dataclass
class Server:
    """A server process on 127.0.0.1:`port`, in its own session (so stopping it reaches its
    workers), logging to `log`, ready once `ready_path` answers 200."""

    command: list[str]
    env: dict[str, str]
    port: int
    log: Path
    ready_path: str
    process: "subprocess.Popen[bytes] | None" = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "Server":
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                self.command,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + STARTUP_S
        with httpx.Client(base_url=self.url, timeout=5) as client:
            # Waiting for start-up, not timing anything: the loop ends when it answers 200.
            while time.monotonic() < deadline and self.process.poll() is None:
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(self.ready_path).status_code == 200:
                        return self
                time.sleep(0.2)
        self.__exit__()
        raise SystemExit(f"{self.command} did not get ready:\n{self.log.read_text()[-3000:]}")

    def __exit__(self, *exc: object) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STARTUP_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def jurist_env(home: Path, database: str, content: str | None = None) -> dict[str, str]:
    env = {
        **os.environ,
        "JURIST_HOME": str(home),
        "JURIST_DATABASE_URL": database,
        "JURIST_MODEL": UNUSED_MODEL,
        "JURIST_CACHE": "0",
        "JURIST_RATE_LIMIT": BENCH_RATE,
        "PROMETHEUS_MULTIPROC_DIR": str(home / "metrics"),
    }
    # As deployed: the default log level (a JSON line per request, to the log file) and
    # the default storage of content, unless the row asks for another.
    for name in (
        "JUDGE_MODEL",
        "JURIST_API_KEYS",
        "LOG_LEVEL",
        "LOG_VALIDATION_RESULTS",
        "JURIST_STORE_CONTENT",
        "JURIST_ENCRYPTION_KEY",
    ):
        env.pop(name, None)
    if content is not None:
        env["JURIST_STORE_CONTENT"] = content
    if not database.startswith("sqlite"):
        # Replicas on one database share a key, set by the deployment; SQLite makes its own.
        env["JURIST_ENCRYPTION_KEY"] = Fernet.generate_key().decode("ascii")
    return env


def make_key(env: dict[str, str]) -> str:
    """A key in the fresh database, with the bench's own rate; its secret."""
    command = [sys.executable, "-m", "jurist.cli", "keys", "new", "bench"]
    done = subprocess.run(
        [*command, "--rate-limit", BENCH_RATE, "--note", "serve_load bench"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"^key:\s+(\S+)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"jurist keys new failed:\n{done.stdout}{done.stderr}")
    return found.group(1)


@contextlib.contextmanager
def database(store: str, home: Path, postgres: str | None) -> Iterator[str]:
    """A fresh, empty database for one row, dropped afterwards."""
    if store == "sqlite":
        yield f"sqlite:///{home / 'jurist.sqlite3'}"
        return
    import psycopg

    assert postgres is not None
    name = f"jurist_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(postgres).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(postgres, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def tests_postgres() -> Iterator[str]:
    """The URL of a throwaway PostgreSQL server (the tests' own), removed afterwards."""
    sys.path.insert(0, str(TESTS))
    from postgres import postgres_server  # type: ignore[import-not-found]

    # The pytest fixture is a plain generator underneath: run it as a context manager.
    with contextlib.contextmanager(postgres_server.__wrapped__)() as server:
        yield server.url()


# -- rows ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    server: str
    store: str
    workers: int
    connections: int
    seconds: float
    requests: int
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int
    cpu_ms_per_request: float

    def line(self) -> str:
        return (
            f"| {self.server} | {self.store} | {self.workers} | {self.connections} | "
            f"{self.requests_per_s:,.0f} | {self.p50_ms:.1f} | {self.p99_ms:.1f} | "
            f"{self.cpu_ms_per_request:.2f} | {self.non_2xx} | {self.socket_errors} |"
        )


HEADER = (
    "| server | store | workers | conns | req/s | P50 ms | P99 ms | CPU ms/req | non-2xx "
    "| socket errors |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def measure(
    server: Server, script: Path, label: tuple[str, str, int], connections: int, seconds: float
) -> Row:
    assert server.process is not None
    url = f"{server.url}/validate"
    wrk(url, script, connections, WARMUP_S)  # every worker warms up before the count
    before = cpu_seconds(server.process.pid)
    summary = wrk(url, script, connections, seconds)
    cpu = cpu_seconds(server.process.pid) - before
    requests = summary["requests"]
    taken = summary["duration_us"] / 1e6
    sockets = sum(summary[k] for k in ("connect_errors", "read_errors", "write_errors"))
    return Row(
        *label,
        connections=connections,
        seconds=round(taken, 2),
        requests=requests,
        requests_per_s=round(requests / taken, 1),
        p50_ms=summary["p50_ms"],
        p99_ms=summary["p99_ms"],
        non_2xx=summary["status_errors"],
        socket_errors=sockets + summary["timeouts"],
        cpu_ms_per_request=round(cpu * 1000 / max(requests, 1), 3),
    )


def runs(
    server: Server, script: Path, label: tuple[str, str, int], args: argparse.Namespace
) -> list[Row]:
    rows = []
    for connections in args.connections:
        rows.append(measure(server, script, label, connections, args.duration))
        print(rows[-1].line(), flush=True)
    return rows


def jurist_rows(
    args: argparse.Namespace,
    home: Path,
    store: str,
    postgres: str | None,
    workers: int,
    *,
    content: str | None = None,
) -> list[Row]:
    home.mkdir(parents=True)
    (home / "metrics").mkdir()
    with database(store, home, postgres) as url:
        env = jurist_env(home, url, content)
        secret = make_key(env)
        command = [sys.executable, "-m", "jurist.cli", "serve", "--port", str(args.port)]
        command += ["--workers", str(workers)]
        script = wrk_script(home / "post.lua", secret)
        with Server(command, env, args.port, home / "serve.log", "/ready") as server:
            name = "jurist" if content is None else f"jurist, {content} content (diagnostic)"
            return runs(server, script, (name, store, workers), args)


def floor_rows(args: argparse.Namespace, home: Path, workers: int) -> list[Row]:
    home.mkdir(parents=True)
    command = [sys.executable, "-m", "uvicorn", "floor_app:app", "--app-dir", str(BENCH)]
    command += ["--port", str(args.port), "--log-level", "warning", "--no-access-log"]
    command += ["--workers", str(workers)]
    script = wrk_script(home / "post.lua", None)
    env = dict(os.environ)
    with Server(command, env, args.port, home / "floor.log", "/docs") as server:
        return runs(server, script, ("floor app", "none", workers), args)


def _ints(text: str, name: str, parser: argparse.ArgumentParser) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--{name}: expected numbers separated by commas, got {text!r}")
    if not values or min(values) < 1:
        parser.error(f"--{name}: expected numbers of 1 or more, got {text!r}")
    return values


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", default="16,64", help="wrk connections per run")
    parser.add_argument("--workers", default="1,2", help="jurist serve --workers per row")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per timed run")
    parser.add_argument(
        "--postgres",
        default=None,
        help="also run on PostgreSQL: a server URL (a database is made and dropped per row), "
        "or 'tests' for the tests' throwaway server",
    )
    parser.add_argument("--no-floor", action="store_true", help="skip the floor app's rows")
    parser.add_argument(
        "--diagnostic",
        action="store_true",
        help="add a row storing redacted content (JURIST_STORE_CONTENT=redacted), to show "
        "what redacting every record on the write path costs",
    )
    parser.add_argument("--port", type=int, default=18051, help="the port servers listen on")
    args = parser.parse_args(argv)
    args.connections = _ints(args.connections, "connections", parser)
    args.workers = _ints(args.workers, "workers", parser)
    if args.duration <= 0:
        parser.error("--duration must be positive")
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install -y wrk")

    command = " ".join(["python", "bench/serve_load.py", *(argv or sys.argv[1:])])
    run = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    print(f"machine: {machine()}\ncommand: {command}\n")
    print(HEADER, flush=True)
    rows: list[Row] = []
    with (
        tempfile.TemporaryDirectory(prefix="jurist-serve-load-") as directory,
        contextlib.ExitStack() as stack,
    ):
        root = Path(directory)
        if not args.no_floor:
            # With each worker count too: what more processes give on this machine's cores
            # (wrk shares them) when nothing is stored.
            for workers in args.workers:
                rows += floor_rows(args, root / f"floor-{workers}", workers)
        stores: list[tuple[str, str | None]] = [("sqlite", None)]
        if args.postgres:
            url = args.postgres
            if url == "tests":
                url = stack.enter_context(tests_postgres())
            stores.append(("postgresql", url))
        for store, url in stores:
            for workers in args.workers:
                rows += jurist_rows(args, root / f"{store}-{workers}", store, url, workers)
        if args.diagnostic:
            rows += jurist_rows(args, root / "diagnostic", "sqlite", None, 1, content="redacted")
    RESULTS.parent.mkdir(exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps({"run": run, "machine": machine(), **asdict(row)}) + "\n")


if __name__ == "__main__":
    main()
