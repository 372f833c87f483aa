"""What the batch runner costs around the model: `--n` items (1,000) judged by one
acceptance criterion against bench/simulated_model.py answering after `--latency-ms`
(200 ms), `--concurrency` (64) at a time, against the ideal wall time n x latency /
concurrency; and the client's CPU per model call (this process's CPU time over the calls;
the simulated server runs in a process of its own).

Each configuration is run with the store off and with every judgment stored in SQLite as it
completes (the way `jurist eval` runs). The model stack is `get_model`'s whole middleware
(structured output, retries, concurrency limit, timeout, prices) with the response cache
off, and a concurrency limit at least `--concurrency`.

Printed: a table; appended: a JSON line to bench/results/runner.jsonl.

Run: uv run python bench/runner.py [--n 1000] [--latency-ms 200] [--concurrency 64]
"""

import argparse
import asyncio
import datetime
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from jurist.data import dataset_from_rows
from jurist.judges import CriterionJudge
from jurist.llm import get_model
from jurist.runner import evaluate
from jurist.settings import Settings
from jurist.store import RecordStore

sys.path.insert(0, str(Path(__file__).parent))
from simulated_model import SimulatedModel

RESULTS = Path(__file__).parent / "results" / "runner.jsonl"
CRITERION = "The answer is polite"


async def one(spec: str, home: Path, n: int, concurrency: int, stored: bool) -> dict[str, Any]:
    settings = Settings(
        JURIST_HOME=str(home),
        JURIST_CACHE="0",
        JURIST_MAX_CONCURRENCY=str(max(concurrency, 16)),
        OPENAI_API_KEY="sk-bench",
    )
    model = get_model(spec, settings=settings)
    judge = CriterionJudge(CRITERION, model)
    dataset = dataset_from_rows(
        {"id": f"i{index}", "goal": "Answer politely.", "output": f"Thank you, answer {index}."}
        for index in range(n)
    )
    store = await RecordStore.open(f"sqlite:///{home / 'runs.sqlite3'}") if stored else None
    cpu = time.process_time()
    wall = time.perf_counter()
    try:
        result = await evaluate(dataset, judge, concurrency=concurrency, store=store)
    finally:
        if store is not None:
            await store.close()
    wall = time.perf_counter() - wall
    cpu = time.process_time() - cpu
    counts = result.summary.counts
    return {
        "store": "sqlite" if stored else "none",
        "wall_s": wall,
        "cpu_ms_per_call": cpu * 1000 / n,
        "passed": counts.get("pass", 0),
        "errors": counts.get("error", 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    ideal = args.n * args.latency_ms / 1000 / args.concurrency
    rows = []
    with SimulatedModel(args.latency_ms) as sim, tempfile.TemporaryDirectory() as tmp:
        for stored in (False, True):
            home = Path(tmp) / ("stored" if stored else "plain")
            home.mkdir()
            rows.append(asyncio.run(one(sim.spec, home, args.n, args.concurrency, stored)))
    print(
        f"{args.n} items x 1 criterion, simulated model at {args.latency_ms:g} ms, "
        f"concurrency {args.concurrency}; ideal wall {ideal:.2f} s"
    )
    print(f"{'store':8} {'wall s':>8} {'x ideal':>8} {'CPU ms/call':>12} {'pass':>6} {'errors':>7}")
    for row in rows:
        print(
            f"{row['store']:8} {row['wall_s']:8.2f} {row['wall_s'] / ideal:8.2f} "
            f"{row['cpu_ms_per_call']:12.2f} {row['passed']:6d} {row['errors']:7d}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        out.write(json.dumps({"run": stamp, "args": vars(args), "ideal_s": ideal, "rows": rows}))
        out.write("\n")


if __name__ == "__main__":
    main()
