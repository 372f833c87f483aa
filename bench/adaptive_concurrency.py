"""How fast a batch goes with jurist's defaults against a hosted-like provider, and how close
it stays to the capacity of one that refuses calls beyond a limit.

Measured, each against bench/simulated_model.py (an OpenAI-compatible server in a process of
its own, answering after `--latency-ms`), with `evaluate`'s and the model layer's defaults
(no `concurrency=`, no JURIST_CONCURRENCY: the adaptive limit per endpoint, its ceiling
JURIST_MAX_CONCURRENCY) and the response cache off:

1. `--n` items (200) judged by the rubric judge (one criterion, one call an item) and by the
   faithfulness judge (one claim an item), with unlimited capacity. Targets at 200 ms:
   rubric <= 1.2 s, faithfulness <= 1.6 s.
2. `--n-limited` items (1,000) judged by the rubric judge against a server that answers 429
   (Retry-After `--retry-after-ms`) to a call arriving with `--capacity` (16) in flight.
   Ideal wall time: n x latency / capacity; the ratio ideal / wall is the share of the
   provider's throughput reached. Target: ratio >= 0.85 with 0 errors. The same batch is
   run again with the limit fixed at the capacity (JURIST_CONCURRENCY, as if it were known):
   the client's own best on this machine at this moment, which a loaded machine lowers.

Each line gives the wall time, the judgments' errors and what the endpoint's limit did
(started at, peak, final, calls in flight at most, 429s seen). Printed: a markdown table with
the machine and the command; appended: a JSON line to bench/results/adaptive_concurrency.jsonl.

Run: .venv/bin/python bench/adaptive_concurrency.py [--n 200] [--n-limited 1000]
     [--latency-ms 200] [--capacity 16] [--retry-after-ms 1000]
"""

import argparse
import asyncio
import datetime
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jurist.judges import FaithfulnessJudge, RubricJudge
from jurist.llm import get_model
from jurist.runner import dataset_from_rows, evaluate
from jurist.settings import Settings

sys.path.insert(0, str(Path(__file__).parent))
from simulated_model import SimulatedModel

RESULTS = Path(__file__).parent / "results" / "adaptive_concurrency.jsonl"
# The simulated model extracts this claim from every answer: each answer says it word for
# word, so the judge traces it to the answer and has it verified.
CLAIM = ("The town was founded by Mara Solt.",)


def rows(n: int) -> list[dict[str, Any]]:
    """RAG-style items: a question, five passages, an answer and a reference."""
    out = []
    for i in range(n):
        place = f"Town {i}"
        passages = [
            f"{place} is a town on the river Astel.",
            f"It was founded in {1200 + i % 600} by Mara Solt.",
            "The town's main industry has long been glassmaking.",
            f"Its population was {2000 + i * 37} at the last census.",
            f"Every year {place} celebrates the Harvest Fair.",
        ]
        answer = f"{place} lies on the Astel. The town was founded by Mara Solt."
        out.append(
            {
                "id": str(i),
                "goal": f"When was {place} founded and by whom?",
                "output": answer,
                "context": passages,
                "reference": answer,
            }
        )
    return out


def judge_of(metric: str, spec: str, home: Path, fixed: int | None) -> Any:
    pinned = {} if fixed is None else {"JURIST_CONCURRENCY": str(fixed)}
    settings = Settings(JURIST_HOME=str(home), JURIST_CACHE="0", **pinned)
    model = get_model(spec, settings=settings, cache=False)
    if metric == "rubric":
        return RubricJudge("answer-quality", model, criteria=["correctness"])
    return FaithfulnessJudge(model)


def measure(
    metric: str, sim: SimulatedModel, n: int, home: Path, fixed: int | None = None
) -> dict[str, Any]:
    judge = judge_of(metric, sim.spec, home, fixed)
    dataset = dataset_from_rows(rows(n))
    before = sim.stats()
    wall = time.perf_counter()
    result = asyncio.run(evaluate(dataset, judge))
    wall = time.perf_counter() - wall
    after = sim.stats()
    limits = result.summary.concurrency
    return {
        "metric": metric,
        "n": n,
        "wall_s": round(wall, 3),
        "errors": result.summary.errors,
        "decided": result.summary.counts.get("pass", 0) + result.summary.counts.get("fail", 0),
        "calls": after["answered"] - before["answered"],
        "refused": after["refused"] - before["refused"],
        "server_max_in_flight": after["max_in_flight"],
        "limit": limits[0] if limits else None,
    }


def described(limit: dict[str, Any] | None) -> str:
    if limit is None:
        return "-"
    return (
        f"{limit['start']} -> peak {limit['peak']}, final {limit['final']}; "
        f"{limit['in_flight_peak']} in flight at most; {limit['rate_limited']} x 429"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--n-limited", type=int, default=1000)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--capacity", type=int, default=16)
    parser.add_argument("--retry-after-ms", type=float, default=1000.0)
    parser.add_argument(
        "--compare-fixed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the limited batch with JURIST_CONCURRENCY fixed at --capacity",
    )
    args = parser.parse_args()
    latency_s = args.latency_ms / 1000
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        with SimulatedModel(args.latency_ms, CLAIM) as sim:
            for metric in ("rubric", "faithfulness"):
                runs.append(measure(metric, sim, args.n, Path(tmp) / metric))
        limited = SimulatedModel(
            args.latency_ms, CLAIM, max_in_flight=args.capacity, retry_after_ms=args.retry_after_ms
        )
        ideal = args.n_limited * latency_s / args.capacity
        with limited as sim:
            # The adaptive default, then the limit fixed at the capacity (as if known): what
            # this client reaches at best on this machine now, to read the ratio against.
            for fixed in (None, *([args.capacity] if args.compare_fixed else [])):
                home = Path(tmp) / f"limited-{fixed}"
                row = measure("rubric", sim, args.n_limited, home, fixed)
                row |= {
                    "capacity": args.capacity,
                    "fixed": fixed,
                    "ideal_s": round(ideal, 3),
                    "ratio": round(ideal / row["wall_s"], 3),
                }
                runs.append(row)

    settings = Settings()
    print(
        f"machine: {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        f"; command: {' '.join(sys.argv)}"
    )
    print(
        f"defaults: evaluate(concurrency=None), JURIST_MAX_CONCURRENCY={settings.max_concurrency}"
        f", JURIST_CONCURRENCY={settings.concurrency}; latency {args.latency_ms:g} ms\n"
    )
    print("| run | items | wall s | ideal s | ratio | errors | decided | calls | 429s | limit |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for row in runs:
        label = row["metric"] + (f", {row['capacity']}-call limit" if "capacity" in row else "")
        if row.get("fixed"):
            label += f", JURIST_CONCURRENCY={row['fixed']}"
        print(
            f"| {label} | {row['n']} | {row['wall_s']:.2f} | {row.get('ideal_s', '-')} | "
            f"{row.get('ratio', '-')} | {row['errors']} | {row['decided']} | {row['calls']} | "
            f"{row['refused']} | "
            f"{described(row['limit'])} |"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        out.write(json.dumps({"run": stamp, "args": vars(args), "rows": runs}) + "\n")


if __name__ == "__main__":
    main()
