"""How close `jurist.validation.validate()` comes to its floor on a schema-only request, in
process: an output checked against a JSON Schema, no model layer.

Target: `await validate(request)` P50 <= 50 us, and at most 10 x the floor (jsonschema_rs
compiling the schema and checking the output).

Rows, each `--n` calls after `--warmup` calls, P50/P90/P99 and the mean in microseconds:

validate(request dict)          `await validate(SCHEMA_ONLY)` on a fresh dict each call, as a
                                user calls it: the request parsed, a Validator made, the
                                layer run, the result built.
asyncio.run(validate(...))      the same with an event loop started and closed per call, as
                                a synchronous script calling it once would (diagnostic: the
                                loop's start and close are asyncio's, not jurist's).
Validator.run(request dict)     a Validator made once and reused, `await validator.run(...)`.
Validator.run(parsed request)   the same on a request parsed once.
jsonschema_rs compile + check   `jsonschema_rs.validator_for(schema)` then its errors listed,
                                per call: the floor a fresh call is measured against.
jsonschema_rs check (compiled)  the errors listed with a validator compiled once.

The machine (CPUs, load average, Python) and the command are printed with the table; one
JSON line per run is appended to bench/results/validate_inprocess.jsonl. Other load on the
machine shows in every figure: read the load average printed with them.

Run: uv run python bench/validate_inprocess.py [--n 5000] [--warmup 500] [--profile ROW]
"""

import argparse
import asyncio
import cProfile
import datetime
import importlib.metadata
import json
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs

from jurist.validation import ValidationRequest, ValidationResult, Validator, validate

RESULTS = Path(__file__).parent / "results" / "validate_inprocess.jsonl"
# Schema-only requests never call a model; nothing listens here, so a call would fail loudly.
UNUSED_MODEL = "openai-compatible:unused@http://127.0.0.1:9/v1"
TARGET_P50_US = 50.0
TARGET_FLOOR_RATIO = 10.0

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "tests"],
    "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
}
OUTPUT: dict[str, Any] = {
    "code": "def sort_list(lst): return sorted(lst)",
    "tests": "assert sort_list([3,1,2]) == [1,2,3]",
}
# The sorting-function example request, schema layer only.
SCHEMA_ONLY: dict[str, Any] = {
    "output": OUTPUT,
    "validation_types": ["schema"],
    "expected_schema": SCHEMA,
}

VALIDATE = "validate(request dict)"
ASYNCIO_RUN = "asyncio.run(validate(request dict))"
REUSED_DICT = "Validator.run(request dict), reused"
REUSED_PARSED = "Validator.run(parsed request), reused"
FLOOR_COMPILE = "jsonschema_rs compile + check"
FLOOR_CHECK = "jsonschema_rs check (compiled)"


@dataclass(frozen=True)
class Row:
    label: str
    n: int
    p50_us: float
    p90_us: float
    p99_us: float
    mean_us: float

    @classmethod
    def of(cls, label: str, seconds: Sequence[float]) -> "Row":
        us = sorted(s * 1e6 for s in seconds)
        return cls(
            label,
            len(us),
            _quantile(us, 0.50),
            _quantile(us, 0.90),
            _quantile(us, 0.99),
            statistics.fmean(us),
        )

    def line(self) -> str:
        return (
            f"{self.label:<40}{self.n:>7}{self.p50_us:>10.1f}{self.p90_us:>10.1f}"
            f"{self.p99_us:>10.1f}{self.mean_us:>10.1f}"
        )


HEADER = f"{'':<40}{'n':>7}{'P50 us':>10}{'P90 us':>10}{'P99 us':>10}{'mean us':>10}"


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, by linear interpolation."""
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def request() -> dict[str, Any]:
    """A new request dict, its schema and output new too, as a caller's are each call."""
    return {
        "output": {"code": OUTPUT["code"], "tests": OUTPUT["tests"]},
        "validation_types": ["schema"],
        "expected_schema": {
            "type": "object",
            "required": ["code", "tests"],
            "properties": {"code": {"type": "string"}, "tests": {"type": "string"}},
        },
    }


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpus": os.cpu_count(),
        "load_1m": round(load[0], 2),
        "processor": platform.processor() or platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "jsonschema_rs": importlib.metadata.version("jsonschema_rs"),
    }


def time_sync(label: str, step: Callable[[], object], n: int, warmup: int) -> Row:
    for _ in range(warmup):
        step()
    seconds = []
    for _ in range(n):
        started = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - started)
    return Row.of(label, seconds)


async def time_async(label: str, step: Callable[[], Awaitable[object]], n: int, warmup: int) -> Row:
    for _ in range(warmup):
        await step()
    seconds = []
    for _ in range(n):
        started = time.perf_counter()
        await step()
        seconds.append(time.perf_counter() - started)
    return Row.of(label, seconds)


def check(result: ValidationResult) -> None:
    if not result.valid:
        raise SystemExit(f"the schema-only request is not valid: {result.issues}")


def floor_rows(n: int, warmup: int) -> list[Row]:
    compiled = jsonschema_rs.validator_for(SCHEMA, offline=True)

    def compile_and_check() -> None:
        errors = list(jsonschema_rs.validator_for(SCHEMA, offline=True).iter_errors(OUTPUT))
        assert not errors

    def check_compiled() -> None:
        assert not list(compiled.iter_errors(OUTPUT))

    return [
        time_sync(FLOOR_COMPILE, compile_and_check, n, warmup),
        time_sync(FLOOR_CHECK, check_compiled, n, warmup),
    ]


async def jurist_rows(n: int, warmup: int, profile: str | None) -> list[Row]:
    validator = Validator()
    parsed = ValidationRequest.model_validate(request())

    async def fresh() -> None:
        check(await validate(request()))

    async def reused_dict() -> None:
        check((await validator.run(request())).result)

    async def reused_parsed() -> None:
        check((await validator.run(parsed)).result)

    rows = [
        await time_async(VALIDATE, fresh, n, warmup),
        await time_async(REUSED_DICT, reused_dict, n, warmup),
        await time_async(REUSED_PARSED, reused_parsed, n, warmup),
    ]
    if profile is not None:
        step = fresh if profile == "validate" else reused_dict
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(n):
            await step()
        profiler.disable()
        print(f"cProfile of {profile!r} ({n} calls, cumulative, top 40):")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    return rows


def new_loop_row(n: int, warmup: int) -> Row:
    def run_loop() -> None:
        check(asyncio.run(validate(request())))

    return time_sync(ASYNCIO_RUN, run_loop, n, warmup)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000, help="timed calls per row")
    parser.add_argument("--warmup", type=int, default=500, help="untimed calls before each row")
    parser.add_argument(
        "--profile",
        choices=("validate", "reused"),
        help="cProfile that row's timed calls and print the top functions",
    )
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="jurist-validate-bench-"))
    # Set before jurist first reads its settings: validate() reads them from the environment.
    os.environ.update({"JURIST_HOME": str(home), "JURIST_CACHE": "0", "JURIST_MODEL": UNUSED_MODEL})
    if request() != SCHEMA_ONLY:
        raise SystemExit("request() must build the example request")
    check(asyncio.run(validate(request())))

    # Making the dict is the caller's work, not validate()'s: it is measured apart.
    making = time_sync("(making the request dict, not counted)", request, args.n, args.warmup)
    rows = asyncio.run(jurist_rows(args.n, args.warmup, args.profile))
    rows.insert(1, new_loop_row(args.n, args.warmup))
    rows += [*floor_rows(args.n, args.warmup), making]
    report(rows)


def report(rows: list[Row]) -> None:
    about = machine()
    command = " ".join([Path(sys.executable).name, *sys.argv])
    print(f"machine: {json.dumps(about)}")
    print(f"command: {command}")
    print(HEADER)
    for row in rows:
        print(row.line())
    by_label = {row.label: row for row in rows}
    p50 = by_label[VALIDATE].p50_us
    floor = by_label[FLOOR_COMPILE].p50_us
    ratio = p50 / floor if floor else float("inf")
    met = p50 <= TARGET_P50_US and ratio <= TARGET_FLOOR_RATIO
    print(
        f"validate() P50 {p50:.1f} us = {ratio:.1f} x the floor ({floor:.1f} us); target "
        f"<= {TARGET_P50_US:.0f} us and <= {TARGET_FLOOR_RATIO:.0f} x: "
        f"{'met' if met else 'NOT met'}"
    )
    RESULTS.parent.mkdir(exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        line = {
            "at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "command": command,
            "machine": about,
            "rows": [asdict(row) for row in rows],
            "floor_ratio": round(ratio, 2),
            "target_met": met,
        }
        out.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
