"""What the PII redactor costs per record the service stores, per short text and per 1,000
characters, in process, and a digest of what it finds (so a change that makes it faster can
be shown to find the same).

Rows, each over `--n` inputs that all differ (as every request's output does), after
`--warmup` others; CPU time of the process (`time.process_time`) and wall time per call:

record (schema-only)      `redact_json` of what the service redacts of one schema-only
                          validation (the request, the result, the schema layer's
                          judgment), built by jurist's own validator and record code.
8 records in one call     the same records, eight per `redact_json` call, as the service's
                          redaction batch hands them under load; figures per record.
short text                `PresidioRedactor.redact` of a sentence of about 45 characters.
short prose, no digit     the same on a sentence without a digit (no phone number to parse).
1 KB text                 `PresidioRedactor.redact` of a 1,024-character request with
                          personal data among ordinary prose.

The findings digest is a sha256 over what the redactor makes of the labelled recall set
(tests/llm/pii_cases.py: every case and clean sentence) and of the records' strings: equal
digests before and after a change mean equal findings. The script runs itself with
PYTHONHASHSEED=0: where two recognizers give a span the same score, the label it gets
follows the order of a set, which the hash seed changes. The machine (CPUs, load average,
Python) and the command are printed with the table; one JSON line per run is appended to
bench/results/redaction_speed.jsonl. Other load on the machine shows in every figure.

Run: uv run python bench/redaction_speed.py [--n 300] [--warmup 30] [--profile ROW]
     [--cache-size 0]   (0: every string analysed, as before the redactor had its cache)
"""

import argparse
import asyncio
import cProfile
import datetime
import hashlib
import json
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "llm"))

from pii_cases import CASES, CLEAN

from jurist.llm import PresidioRedactor, redact_json
from jurist.store import JudgmentRecord
from jurist.validation import ValidationRequest, Validator

RESULTS = Path(__file__).parent / "results" / "redaction_speed.jsonl"
# Schema-only requests never call a model; nothing listens here, so a call would fail loudly.
UNUSED_MODEL = "openai-compatible:unused@http://127.0.0.1:9/v1"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "tests", "author"],
    "properties": {
        "code": {"type": "string"},
        "tests": {"type": "string"},
        "author": {"type": "string", "format": "email"},
    },
}

TYPICAL = (
    "Dear support, my name is Maria Schmidt and I live at Musterstraße 12, 10115 Berlin. "
    "Please call me on +49 30 1234567 or write to maria.schmidt@example.de. Order {n} "
    "arrived on 2024-05-01, but the box was damaged and version 2.1 of the app crashed "
    "three times while I tried to report it. The judge should check whether the answer "
    "below is grounded in the policy, which says refunds take 14 days and are sent to "
    "the original card. Answer: We are sorry; a refund of 49.90 EUR was issued today and "
    "will arrive within two weeks. Reference number 2024-77812. Kind regards, the team. "
    "Additional notes from the agent: the customer was polite, asked twice, and agreed "
    "to wait. No further action is needed unless she writes again before the deadline. "
    "The agent adds that the parcel was left at the neighbour's door by the courier."
)


@dataclass
class Row:
    label: str
    n: int
    chars: float
    cpu_p50_ms: float
    cpu_mean_ms: float
    wall_p50_ms: float
    cpu_ms_per_1000_chars: float


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpus": os.cpu_count(),
        "load_1m": round(load[0], 2),
        "processor": platform.processor() or platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def output(n: int) -> dict[str, Any]:
    """A schema-only output, different for every `n`; one in three breaks the schema, so its
    violations quote the values back (as a real stream of requests would)."""
    code = f"def add_{n}(a, b):\n    return a + b + {n % 97}"
    if n % 3 == 0:
        return {"code": code, "tests": n, "author": f"dev{n}@example.com"}
    return {"code": code, "tests": f"assert add_{n}(1, 2) == {3 + n % 97}", "author": "x"}


async def records(count: int, start: int) -> list[dict[str, Any]]:
    """What the service hands the redactor for `count` schema-only validations: the request
    and the result with the service's ids left out, and each judgment's content."""
    validator = Validator(UNUSED_MODEL)
    made = []
    for n in range(start, start + count):
        body = ValidationRequest.model_validate(
            {"output": output(n), "validation_types": ["schema"], "expected_schema": SCHEMA}
        )
        validation = await validator.run(body)
        raw = {
            "request": body.model_dump(mode="json"),
            "result": validation.result.model_dump(mode="json"),
        }
        judgments = [
            JudgmentRecord.of(
                judgment, judge=layer.value, layer=layer.value, validation_id="-", id="-"
            )
            for layer, judgment in validation.judgments.items()
        ]
        content = [{"judgment": j.judgment, "parameters": j.parameters} for j in judgments]
        made.append({"validation": raw, "judgments": content})
    return made


def _letters(n: int) -> str:
    """`n` written with letters (a made-up name), for texts that differ but hold no digit."""
    return "".join(chr(ord("a") + int(digit)) for digit in str(n)).title()


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in strings(item)]
    return []


def chars(value: Any) -> int:
    return sum(len(s) for s in strings(value))


def findings_digest(redactor: PresidioRedactor, sample: Sequence[dict[str, Any]]) -> str:
    """A sha256 over what `redactor` finds in the recall set and makes of `sample`'s strings."""
    digest = hashlib.sha256()
    for cases in CASES.values():
        for case in cases:
            for span in redactor.findings(case.text):
                digest.update(f"{case.text}|{span.entity_type}|{span.start}|{span.end}\n".encode())
    for text in CLEAN:
        digest.update(redactor.redact(text).encode())
    for record in sample:
        digest.update(json.dumps(strings(redact_json(record, redactor))).encode())
    return digest.hexdigest()


def timed(
    label: str,
    step: Callable[[Any], object],
    inputs: Sequence[Any],
    size: Callable[[Any], int],
    per: int = 1,
) -> Row:
    cpu: list[float] = []
    wall: list[float] = []
    for item in inputs:
        c0, w0 = time.process_time(), time.perf_counter()
        step(item)
        cpu.append((time.process_time() - c0) / per)
        wall.append((time.perf_counter() - w0) / per)
    mean_chars = statistics.fmean(size(item) for item in inputs) / per
    mean_cpu = statistics.fmean(cpu)
    return Row(
        label=label,
        n=len(inputs) * per,
        chars=round(mean_chars, 1),
        cpu_p50_ms=round(statistics.median(cpu) * 1000, 3),
        cpu_mean_ms=round(mean_cpu * 1000, 3),
        wall_p50_ms=round(statistics.median(wall) * 1000, 3),
        cpu_ms_per_1000_chars=round(mean_cpu * 1000 / mean_chars * 1000, 3),
    )


def main() -> None:
    # Which label a span two recognizers score alike gets (an Aadhaar number is a phone
    # number too) follows set order, so the hash seed: fixed, digests of runs compare.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(
            sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"}
        )
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="inputs per row (all different)")
    parser.add_argument("--warmup", type=int, default=30, help="inputs run before each row")
    parser.add_argument(
        "--profile", choices=["record", "batch", "short", "prose", "1kb"], help="cProfile one row"
    )
    parser.add_argument(
        "--cache-size",
        type=int,
        default=None,
        help="the redactor's cache of strings seen before (default: its own; 0: none)",
    )
    args = parser.parse_args()

    started = time.perf_counter()
    redactor = (
        PresidioRedactor()
        if args.cache_size is None
        else PresidioRedactor(cache_size=args.cache_size)
    )
    redactor.load()
    load_seconds = time.perf_counter() - started

    total = args.warmup + args.n
    made = asyncio.run(records(3 * total, 0))
    # The same records whatever --n is, so digests of runs with other --n compare.
    sample = asyncio.run(records(50, 1_000_000))
    digest = findings_digest(redactor, sample)

    def batch(chunk: list[dict[str, Any]]) -> object:
        return redact_json(chunk, redactor)

    plan: dict[str, tuple[str, Callable[[Any], object], list[Any], Callable[[Any], int], int]] = {
        "record": (
            "record (schema-only)",
            lambda r: redact_json(r, redactor),
            made[:total],
            chars,
            1,
        ),
        "batch": (
            "8 records in one call",
            batch,
            [made[total + 8 * i : total + 8 * i + 8] for i in range(max(1, total // 8))],
            chars,
            8,
        ),
        "short": (
            "short text",
            redactor.redact,
            [f"Order {n} was late; call me on 030 {n:07d} tonight." for n in range(total)],
            len,
            1,
        ),
        "prose": (
            "short prose, no digit",
            redactor.redact,
            [f"Please tell {_letters(n)} that the parcel is late again." for n in range(total)],
            len,
            1,
        ),
        "1kb": (
            "1 KB text",
            redactor.redact,
            [(TYPICAL.format(n=4415 + n) * 2)[:1024] for n in range(total)],
            len,
            1,
        ),
    }
    rows = []
    for key, (label, step, inputs, size, per) in plan.items():
        warm = max(1, args.warmup // per)
        for item in inputs[:warm]:
            step(item)
        measured = inputs[warm:]
        if args.profile == key:
            profiler = cProfile.Profile()
            profiler.enable()
            rows.append(timed(label, step, measured, size, per))
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
        else:
            rows.append(timed(label, step, measured, size, per))

    info = machine()
    command = " ".join([Path(sys.executable).name, *sys.argv])
    print(f"machine: {info}")
    print(f"command: {command}")
    print(f"engine built in {load_seconds:.1f} s; findings digest {digest[:16]}\n")
    print("| row | n | chars | CPU P50 ms | CPU mean ms | wall P50 ms | CPU ms / 1,000 chars |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(
            f"| {row.label} | {row.n} | {row.chars:.0f} | {row.cpu_p50_ms:.2f} | "
            f"{row.cpu_mean_ms:.2f} | {row.wall_p50_ms:.2f} | {row.cpu_ms_per_1000_chars:.2f} |"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    line = {
        "at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": command,
        "machine": info,
        "findings_digest": digest,
        "redactor": repr(redactor),
        "cache_size": getattr(redactor, "cache_size", None),
        "rows": [asdict(row) for row in rows],
    }
    with RESULTS.open("a") as results:
        results.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
