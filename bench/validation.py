"""How fast the validation service answers: schema-only in process and over HTTP, requests/s
under wrk, and full validations against a simulated model of fixed latency.

Targets: schema-only P50 <= 1 ms in process (the service must answer within 10 ms); a full
validation's wall time <= 1.2 x the critical path of its model calls.

Parts (`--parts`, all by default):

inprocess  P50/P95 over `--n` runs of the spec's example request, validation_types
           ["schema"]: `await validator.run(request)` on a parsed request and on the JSON
           dict (parsing and compiling the schema included); then that plus
           `RecordStore.save_validation` on SQLite, as the service stores every validation;
           the two halves of the audit record the service writes after answering (Presidio
           redaction of its summary in a thread, then `write_audit`); and all of it in
           sequence, the service's own work per request without HTTP.
http       P50/P95 of POST /validate, the same request, `--n` sequential requests on one
           keep-alive httpx client against `jurist serve` (a subprocess, SQLite store).
wrk        requests/s and wrk's latency percentiles for that request (16 connections, one
           wrk thread, 30 s timeout), with 1 and 2 workers (`jurist serve --workers N`), per
           store in `--stores` (PostgreSQL is the tests' throwaway server, tests/postgres.py).
           The audit record of a request is written after its response is sent, while the
           connection's next request already runs: it is not in the latency of its own
           request, but it is in the CPU and the store's write lock every request competes
           for, so it bounds requests/s.

Rows marked "audit unredacted (diagnostic)" run the service with
JURIST_REDACTOR=validation:unredacted (a redactor that keeps the text) to show what the
audit's Presidio redaction costs; they are not a configuration to deploy.

full       schema, criteria x3, hallucination (3 claims) and quality (3 rubric criteria)
           against bench/simulated_model.py answering after `--latency-ms`, `--repeats`
           times: wall time against the critical path, the longest chain of dependent model
           calls as derived from each call's arrival and answer time at the simulated server
           (a call depends on an earlier call of its layer when it arrived after that one's
           answer). In process (`validator.run`) and over HTTP (POST /validate to
           `jurist serve` using the simulated model).

The machine's other load shows in every figure: wrk, the client and the server share its
cores. No embedded model is loaded: schema-only requests never call a model, and the
service's model spec points at the simulated server (or at a port nothing listens on).

Printed: a table per part; appended: one JSON line per part to bench/results/validation.jsonl.

Run: uv run python bench/validation.py [--parts inprocess,http,wrk,full] [--n 2000]
     [--latency-ms 200] [--duration 10] [--repeats 20] [--connections 16]
     [--stores sqlite,postgresql] [--profile]
"""

import argparse
import asyncio
import contextlib
import cProfile
import datetime
import hashlib
import json
import os
import pstats
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from simulated_model import Call, Chain, SimulatedModel, chains, critical_path

from jurist.llm import load_redactor, redact_json
from jurist.server import Sealer, new_encryption_key
from jurist.server._records import audit_detail, prepare_validation, sealed_validation
from jurist.settings import Settings
from jurist.store import AuditRecord, RecordStore
from jurist.validation import ValidationRequest, Validator

RESULTS = Path(__file__).parent / "results" / "validation.jsonl"
TESTS = Path(__file__).parents[1] / "tests"
PARTS = ("inprocess", "http", "wrk", "full")
STORES = ("sqlite", "postgresql")
# Schema-only requests never call a model; nothing listens here, so a call would fail loudly.
UNUSED_MODEL = "openai-compatible:unused@http://127.0.0.1:9/v1"
UNREDACTED_SPEC = "validation:unredacted"
AS_DEPLOYED = "audit redacted"
UNREDACTED = "audit unredacted (diagnostic)"
STARTUP_S = 60.0
TARGET_P50_MS = 1.0
TARGET_RATIO = 1.2

SCHEMA = {
    "type": "object",
    "required": ["code", "tests"],
    "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
}
OUTPUT = {
    "code": "def sort_list(lst): return sorted(lst)",
    "tests": "assert sort_list([3,1,2]) == [1,2,3]",
}
CRITERIA = [
    "Code implements sorting functionality",
    "Tests are included",
    "Function has proper naming",
]
# The sorting-function example request, schema layer only.
SCHEMA_ONLY: dict[str, Any] = {
    "output": OUTPUT,
    "validation_types": ["schema"],
    "expected_schema": SCHEMA,
}
FULL: dict[str, Any] = {
    "output": OUTPUT,
    "validation_types": ["schema", "criteria", "hallucination", "quality"],
    "acceptance_criteria": CRITERIA,
    "expected_schema": SCHEMA,
    "context": {
        "task": "Write a sorting function",
        "notes": "The function sorts the list with Python's built-in sorted. sorted returns "
        "a new list. Sorting takes O(n log n) time.",
    },
}
# (calls, rounds of dependent calls) per layer the full request should make of the simulated
# model: another shape means the derived critical path would not measure what it claims.
FULL_CALLS = {"criteria": (3, 1), "hallucination": (4, 2), "quality": (3, 1)}


# -- measuring -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Latency:
    label: str
    n: int
    p50_ms: float
    p95_ms: float
    mean_ms: float

    @classmethod
    def of(cls, label: str, seconds: Sequence[float]) -> "Latency":
        ms = sorted(s * 1000 for s in seconds)
        return cls(label, len(ms), _quantile(ms, 0.50), _quantile(ms, 0.95), statistics.fmean(ms))

    def line(self) -> str:
        return (
            f"{self.label:<56}{self.n:>7}"
            f"{self.p50_ms:>10.3f}{self.p95_ms:>10.3f}{self.mean_ms:>10.3f}"
        )


LATENCY_HEADER = f"{'':<56}{'n':>7}{'P50 ms':>10}{'P95 ms':>10}{'mean ms':>10}"


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, by linear interpolation."""
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _warmup(n: int) -> int:
    return max(20, min(200, n // 10))


async def time_async(
    label: str, step: Callable[[], Awaitable[object]], n: int, profiler: cProfile.Profile | None
) -> Latency:
    for _ in range(_warmup(n)):
        await step()
    seconds = []
    if profiler:
        profiler.enable()
    for _ in range(n):
        started = time.perf_counter()
        await step()
        seconds.append(time.perf_counter() - started)
    if profiler:
        profiler.disable()
    return Latency.of(label, seconds)


def print_profile(profiler: cProfile.Profile | None, title: str) -> None:
    if profiler is not None:
        print(f"\ncProfile of {title} (cumulative, top 30):")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


# -- what the service does per request, in process -----------------------------------------


def audit_record(detail: dict[str, Any], sha: str) -> AuditRecord:
    return AuditRecord(
        method="POST",
        path="/validate",
        status_code=200,
        latency_ms=1.0,
        client="127.0.0.1",
        request_sha256=sha,
        verdict="valid",
        detail=detail,
    )


def unredacted(text: str) -> str:
    """A redactor that keeps the text: `JURIST_REDACTOR=validation:unredacted` shows what
    the audit's Presidio redaction costs the service."""
    return text


async def part_inprocess(args: argparse.Namespace, home: Path) -> list[Latency]:
    settings = Settings(JURIST_HOME=str(home), JURIST_CACHE="0", JURIST_MODEL=UNUSED_MODEL)
    validator = Validator(settings=settings)
    parsed = ValidationRequest.model_validate(SCHEMA_ONLY)
    sha = hashlib.sha256(json.dumps(SCHEMA_ONLY).encode()).hexdigest()
    redactor = load_redactor(None)
    load = getattr(redactor, "load", None)
    if callable(load):
        load()  # seconds, once: the service builds it at start-up too
    detail = audit_detail(SCHEMA_ONLY)
    redacted = redact_json(detail, redactor)
    profiler = cProfile.Profile() if args.profile else None

    async def run_parsed() -> None:
        await validator.run(parsed)

    async def run_dict() -> None:
        await validator.run(SCHEMA_ONLY)

    async def redact() -> None:
        # As the app's audit hook does it: in a worker thread, off the event loop.
        await asyncio.to_thread(redact_json, detail, redactor)

    sealer = Sealer.parse(new_encryption_key())
    async with await RecordStore.open(f"sqlite:///{home / 'inprocess.sqlite3'}", settings) as store:

        async def run_and_save() -> None:
            body = ValidationRequest.model_validate(SCHEMA_ONLY)
            validation = await validator.run(body)
            if not validation.result.valid:
                raise SystemExit(f"schema-only request not valid: {validation.result.issues}")
            # As the service stores it by default: sealed, with an outline in plain columns.
            prepared = prepare_validation(body, validation, request_sha256=sha)
            _, record, judgments = sealed_validation(prepared, sealer)
            await store.save_validation(record, judgments)

        async def write() -> None:
            await store.write_audit(audit_record(redacted, sha))

        async def everything() -> None:
            await run_and_save()
            await store.write_audit(
                audit_record(await asyncio.to_thread(redact_json, detail, redactor), sha)
            )

        rows = [
            await time_async("validator.run(parsed request)", run_parsed, args.n, None),
            await time_async("validator.run(request dict)", run_dict, args.n, None),
            await time_async("  + save_validation (SQLite)", run_and_save, args.n, None),
            await time_async("audit: redact_json (Presidio, in a thread)", redact, args.n, None),
            await time_async("audit: write_audit (SQLite)", write, args.n, None),
            await time_async(
                "run + save + redact + write, in sequence", everything, args.n, profiler
            ),
        ]
    print_profile(profiler, "run + save + redact + write (the event loop's thread only)")
    return rows


# -- jurist serve as a subprocess -----------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ServiceProcess:
    """`jurist serve --workers N` on a free loopback port, its own home, store and log."""

    home: Path
    database: str
    workers: int = 1
    model: str = UNUSED_MODEL
    redactor: str | None = None  # JURIST_REDACTOR; a module of bench/ may be named
    port: int = field(default_factory=free_port)
    _process: "subprocess.Popen[bytes] | None" = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.home / f"serve-{self.port}.log"

    def __enter__(self) -> "ServiceProcess":
        self.home.mkdir(parents=True, exist_ok=True)
        metrics = self.home / f"metrics-{self.port}"
        metrics.mkdir()
        env = {
            **os.environ,
            "JURIST_HOME": str(self.home),
            "JURIST_DATABASE_URL": self.database,
            "JURIST_MODEL": self.model,
            "JURIST_CACHE": "0",
            "JURIST_RATE_LIMIT": "none",
            "LOG_LEVEL": "warning",
            "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        }
        env.pop("JUDGE_MODEL", None)
        if self.redactor is not None:
            env["JURIST_REDACTOR"] = self.redactor
            env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")])
            )
        command = [sys.executable, "-m", "jurist.cli", "serve", "--port", str(self.port)]
        command += ["--workers", str(self.workers)]
        with self.log.open("wb") as log:
            # Its own session, so that stopping it can reach the workers it forked.
            self._process = subprocess.Popen(
                command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_S
        with httpx.Client(base_url=self.url, timeout=5) as client:
            # Waiting for start-up, not timing anything: the loop ends when /ready says 200.
            while time.monotonic() < deadline:
                assert self._process is not None
                if self._process.poll() is not None:
                    break
                with contextlib.suppress(httpx.HTTPError):
                    if client.get("/ready").status_code == 200:
                        return
                time.sleep(0.1)
        self.__exit__()
        raise SystemExit(
            f"jurist serve did not get ready; its log:\n{self.log.read_text()[-3000:]}"
        )

    def __exit__(self, *exc: object) -> None:
        process = self._process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STARTUP_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def sqlite_url(home: Path, name: str) -> str:
    return f"sqlite:///{home / name}"


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """The URL of a throwaway PostgreSQL server (the tests' own), removed afterwards."""
    sys.path.insert(0, str(TESTS))
    from postgres import postgres_server  # type: ignore[import-not-found]

    # The pytest fixture is a plain generator underneath: run it as a context manager.
    with contextlib.contextmanager(postgres_server.__wrapped__)() as server:
        yield server.url()


@contextlib.contextmanager
def store_url(store: str, home: Path, name: str) -> Iterator[str]:
    if store == "sqlite":
        yield sqlite_url(home, f"{name}.sqlite3")
    else:
        with postgres() as url:
            yield url


# -- http ----------------------------------------------------------------------------------


def post_timed(client: httpx.Client, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    response = client.post("/validate", json=body)
    seconds = time.perf_counter() - started
    if response.status_code != 200:
        raise SystemExit(f"POST /validate answered {response.status_code}: {response.text[:500]}")
    result: dict[str, Any] = response.json()
    return seconds, result


def http_latency(label: str, service: ServiceProcess, n: int) -> Latency:
    with httpx.Client(base_url=service.url, timeout=30) as client:
        for _ in range(_warmup(n)):
            post_timed(client, SCHEMA_ONLY)
        seconds = []
        for _ in range(n):
            taken, result = post_timed(client, SCHEMA_ONLY)
            if not result["valid"]:
                raise SystemExit(f"schema-only request not valid: {result['issues']}")
            seconds.append(taken)
    return Latency.of(label, seconds)


def part_http(args: argparse.Namespace, home: Path) -> list[Latency]:
    rows = []
    for label, redactor in ((AS_DEPLOYED, None), (UNREDACTED, UNREDACTED_SPEC)):
        name = "http" if redactor is None else "http-unredacted"
        database = sqlite_url(home, f"{name}.sqlite3")
        with ServiceProcess(home / name, database, redactor=redactor) as service:
            rows.append(http_latency(f"POST /validate, SQLite, {label}", service, args.n))
        print(rows[-1].line(), flush=True)
    return rows


# -- wrk -----------------------------------------------------------------------------------

WRK_SCRIPT = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[BODY]==]

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK_JSON {\\"requests\\": %d, \\"duration_us\\": %d, \\"connect_errors\\": %d, " ..
    "\\"read_errors\\": %d, \\"write_errors\\": %d, \\"status_errors\\": %d, " ..
    "\\"timeouts\\": %d, \\"p50_ms\\": %.3f, \\"p90_ms\\": %.3f, \\"p99_ms\\": %.3f, " ..
    "\\"max_ms\\": %.3f}\\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000))
end
"""


@dataclass(frozen=True)
class WrkRun:
    store: str
    workers: int
    audit: str
    connections: int
    seconds: float
    requests: int
    requests_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    errors: int

    def line(self) -> str:
        return (
            f"{self.store:<12}{self.workers:>8}{self.connections:>7}{self.requests:>10}"
            f"{self.requests_per_s:>10.0f}{self.p50_ms:>9.2f}{self.p90_ms:>9.2f}"
            f"{self.p99_ms:>9.2f}{self.max_ms:>9.1f}{self.errors:>8}  {self.audit}"
        )


WRK_HEADER = (
    f"{'store':<12}{'workers':>8}{'conns':>7}{'requests':>10}{'req/s':>10}{'P50 ms':>9}"
    f"{'P90 ms':>9}{'P99 ms':>9}{'max ms':>9}{'errors':>8}  audit"
)


def wrk(url: str, script: Path, connections: int, seconds: float) -> dict[str, Any]:
    # A long timeout: a slow answer counts in the percentiles instead of as an error.
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "30s"]
    command += ["-s", str(script), url]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    found = re.search(r"^WRK_JSON (.*)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"wrk failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    summary: dict[str, Any] = json.loads(found.group(1))
    return summary


def wrk_run(
    args: argparse.Namespace,
    home: Path,
    script: Path,
    *,
    store: str,
    workers: int,
    redactor: str | None,
) -> WrkRun:
    name = f"wrk-{store}-{workers}" + ("-unredacted" if redactor else "")
    with (
        store_url(store, home, name) as database,
        ServiceProcess(home / name, database, workers, redactor=redactor) as service,
    ):
        # Every worker warms up (its redactor, its connections) before the count.
        wrk(f"{service.url}/validate", script, args.connections, 3)
        summary = wrk(f"{service.url}/validate", script, args.connections, args.duration)
    seconds = summary["duration_us"] / 1e6
    errors = sum(v for k, v in summary.items() if k.endswith("errors") or k == "timeouts")
    return WrkRun(
        store,
        workers,
        UNREDACTED if redactor else AS_DEPLOYED,
        args.connections,
        round(seconds, 2),
        summary["requests"],
        summary["requests"] / seconds,
        summary["p50_ms"],
        summary["p90_ms"],
        summary["p99_ms"],
        summary["max_ms"],
        errors,
    )


def part_wrk(args: argparse.Namespace, home: Path) -> list[WrkRun]:
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install -y wrk")
    script = home / "post.lua"
    script.write_text(WRK_SCRIPT.replace("BODY", json.dumps(SCHEMA_ONLY)), "utf-8")
    plan: list[tuple[str, int, str | None]] = [
        (store, workers, None) for store in args.stores for workers in (1, 2)
    ]
    plan.append((args.stores[0], 1, UNREDACTED_SPEC))
    runs = []
    for store, workers, redactor in plan:
        runs.append(wrk_run(args, home, script, store=store, workers=workers, redactor=redactor))
        print(runs[-1].line(), flush=True)
    return runs


# -- full validation against the simulated model -------------------------------------------


@dataclass(frozen=True)
class FullRun:
    label: str
    repeats: int
    wall_ms: float  # medians over the repeats
    critical_ms: float
    ratio: float
    worst_ratio: float
    chains: dict[str, tuple[int, int]]  # layer: (calls, rounds) of the median run

    def line(self) -> str:
        shape = " ".join(
            f"{layer}={calls}/{rounds}" for layer, (calls, rounds) in self.chains.items()
        )
        verdict = "ok" if self.ratio <= TARGET_RATIO else "MISSED"
        return (
            f"{self.label:<22}{self.repeats:>6}{self.wall_ms:>10.1f}{self.critical_ms:>10.1f}"
            f"{self.ratio:>8.3f}{self.worst_ratio:>8.3f}  {verdict:<7}{shape}"
        )


FULL_HEADER = (
    f"{'':<22}{'runs':>6}{'wall ms':>10}{'path ms':>10}{'ratio':>8}{'worst':>8}  "
    f"{'target':<7}calls/rounds per layer"
)


@dataclass(frozen=True)
class Measured:
    wall_ms: float
    path: Chain
    layers: dict[str, Chain]


def measured(wall_s: float, calls: Sequence[Call]) -> Measured:
    layers = chains(calls)
    shape = {layer: (chain.calls, chain.rounds) for layer, chain in layers.items()}
    if shape != FULL_CALLS:
        raise SystemExit(f"unexpected model calls per layer (calls, rounds): {shape}")
    return Measured(wall_s * 1000, critical_path(calls), layers)


def check_full(result: dict[str, Any]) -> None:
    layers = result["metadata"]["layers"]
    broken = {name: layer for name, layer in layers.items() if layer["status"] != "ok"}
    if broken or not result["valid"] or len(result["passed_criteria"]) != len(CRITERIA):
        raise SystemExit(
            f"the full validation did not pass as simulated: {json.dumps(result)[:2000]}"
        )


def summarise(label: str, runs: Sequence[Measured]) -> FullRun:
    ratios = [run.wall_ms / run.path.ms for run in runs]
    middle = sorted(range(len(runs)), key=lambda i: ratios[i])[len(runs) // 2]
    return FullRun(
        label,
        len(runs),
        statistics.median(run.wall_ms for run in runs),
        statistics.median(run.path.ms for run in runs),
        statistics.median(ratios),
        max(ratios),
        {layer: (c.calls, c.rounds) for layer, c in runs[middle].layers.items()},
    )


async def full_inprocess(sim: SimulatedModel, home: Path, repeats: int) -> list[Measured]:
    settings = Settings(JURIST_HOME=str(home), JURIST_CACHE="0")
    validator = Validator(sim.spec, settings=settings)
    check_full((await validator.run(FULL)).result.model_dump(mode="json"))  # warm-up
    runs = []
    for _ in range(repeats):
        since = sim.count()
        started = time.perf_counter()
        validation = await validator.run(FULL)
        wall = time.perf_counter() - started
        check_full(validation.result.model_dump(mode="json"))
        runs.append(measured(wall, sim.calls(since)))
    return runs


def full_http(sim: SimulatedModel, home: Path, repeats: int) -> list[Measured]:
    database = sqlite_url(home, "full.sqlite3")
    runs = []
    with (
        ServiceProcess(home / "full", database, model=sim.spec) as service,
        httpx.Client(base_url=service.url, timeout=60) as client,
    ):
        check_full(post_timed(client, FULL)[1])  # warm-up
        for _ in range(repeats):
            since = sim.count()
            wall, result = post_timed(client, FULL)
            check_full(result)
            runs.append(measured(wall, sim.calls(since)))
    return runs


def part_full(args: argparse.Namespace, home: Path) -> list[FullRun]:
    with SimulatedModel(args.latency_ms) as sim:
        inprocess = asyncio.run(full_inprocess(sim, home, args.repeats))
        over_http = full_http(sim, home, args.repeats)
    return [
        summarise("validator.run", inprocess),
        summarise("POST /validate (HTTP)", over_http),
    ]


# -- running -------------------------------------------------------------------------------


def append_result(run: str, part: str, args: argparse.Namespace, rows: Sequence[Any]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    line = {
        "run": run,
        "part": part,
        "cpus": os.cpu_count(),
        "args": {k: v for k, v in vars(args).items() if k != "parts"},
        "rows": [asdict(row) for row in rows],
    }
    with RESULTS.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def run_part(part: str, args: argparse.Namespace, home: Path) -> Sequence[Any]:
    if part == "inprocess":
        print(f"\n[inprocess] schema-only, target P50 <= {TARGET_P50_MS:g} ms\n{LATENCY_HEADER}")
        rows: Sequence[Any] = asyncio.run(part_inprocess(args, home))
        print(*(row.line() for row in rows), sep="\n")
    elif part == "http":
        print(f"\n[http] schema-only over HTTP\n{LATENCY_HEADER}")
        rows = part_http(args, home)
    elif part == "wrk":
        print(
            f"\n[wrk] schema-only, {args.duration:g} s per line after 3 s of warm-up\n{WRK_HEADER}"
        )
        rows = part_wrk(args, home)
    else:
        print(
            f"\n[full] simulated model latency {args.latency_ms:g} ms, target ratio <= "
            f"{TARGET_RATIO:g}\n{FULL_HEADER}"
        )
        rows = part_full(args, home)
        print(*(row.line() for row in rows), sep="\n")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--n", type=int, default=2000, help="requests per latency row")
    parser.add_argument("--latency-ms", type=float, default=200.0, help="the simulated model's")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per wrk run")
    parser.add_argument("--repeats", type=int, default=20, help="full validations per row")
    parser.add_argument("--connections", type=int, default=16, help="wrk's connections")
    parser.add_argument("--stores", default=",".join(STORES), help="the wrk part's stores")
    parser.add_argument("--profile", action="store_true", help="cProfile the in-process sequence")
    args = parser.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    if not parts or set(parts) - set(PARTS):
        parser.error(f"--parts: expected some of {','.join(PARTS)}, got {args.parts!r}")
    args.stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    if not args.stores or set(args.stores) - set(STORES):
        parser.error(f"--stores: expected some of {','.join(STORES)}, got {args.stores!r}")
    for name in ("n", "repeats", "connections"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: must be 1 or more, not {getattr(args, name)}")
    if args.duration <= 0 or args.latency_ms <= 0:
        parser.error("--duration and --latency-ms must be positive")

    run = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    print(f"{os.cpu_count()} CPUs; results appended to {RESULTS}")
    with tempfile.TemporaryDirectory(prefix="jurist-validation-bench-") as directory:
        for part in parts:
            started = time.perf_counter()
            home = Path(directory) / part
            home.mkdir()
            rows = run_part(part, args, home)
            print(f"({part}: {time.perf_counter() - started:.1f} s)")
            append_result(run, part, args, rows)


if __name__ == "__main__":
    main()
