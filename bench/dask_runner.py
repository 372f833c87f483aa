"""A batch in one process against the same batch on a Dask LocalCluster: `--n` items (2,000)
judged by one acceptance criterion against bench/simulated_model.py (an OpenAI-compatible
server on 127.0.0.1 answering after `--latency-ms`, 200 ms), every judgment stored in SQLite
as it completes (the way `jurist eval` runs).

Three ways, each `--concurrency` (64) items in flight per process that judges:

    process      evaluate() in this process
    local:W      evaluate(cluster="local:W"): a LocalCluster of W (2) worker processes
                 started for the run and closed after it (its start-up is in the wall time)
    joined       evaluate(cluster="tcp://..."): the same W workers, started beforehand, so
                 the wall time is the judging alone

The judge names its model by spec, so each worker builds its own model stack once; the
response cache is off. Printed: the machine, the command, and a table of wall time and
items/s; appended: a JSON line to bench/results/dask_runner.jsonl.

Run: .venv/bin/python bench/dask_runner.py [--n 2000] [--latency-ms 200] [--concurrency 64]
[--workers 2]
"""

import argparse
import asyncio
import datetime
import json
import logging
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from distributed import LocalCluster

from jurist.data import dataset_from_rows
from jurist.judges import CriterionJudge
from jurist.runner import evaluate
from jurist.store import RecordStore

sys.path.insert(0, str(Path(__file__).parent))
from simulated_model import SimulatedModel

RESULTS = Path(__file__).parent / "results" / "dask_runner.jsonl"
CRITERION = "The answer is polite"


async def one(
    way: str, spec: str, home: Path, n: int, concurrency: int, *, cluster: str | None
) -> dict[str, Any]:
    judge = CriterionJudge(CRITERION, spec)
    dataset = dataset_from_rows(
        {"id": f"i{index}", "goal": "Answer politely.", "output": f"Thank you, answer {index}."}
        for index in range(n)
    )
    async with await RecordStore.open(f"sqlite:///{home / f'{way}.sqlite3'}") as store:
        wall = time.perf_counter()
        result = await evaluate(
            dataset, judge, concurrency=concurrency, store=store, cluster=cluster
        )
        wall = time.perf_counter() - wall
        assert result.run_id is not None
        stored = len({s.item_id for s in await store.run_judgments(result.run_id)})
    counts = result.summary.counts
    return {
        "way": way,
        "cluster": cluster,
        "wall_s": wall,
        "items_per_s": n / wall,
        "stored": stored,
        "passed": counts.get("pass", 0),
        "errors": counts.get("error", 0),
    }


def machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    # Read by this process and inherited by the workers: no response cache, a limit on calls
    # in flight that is not the bottleneck, and no key needed by the simulated server.
    os.environ.update(
        JURIST_CACHE="0",
        JURIST_MAX_CONCURRENCY=str(max(args.concurrency, 16)),
        JURIST_CONCURRENCY=str(args.concurrency),
    )
    command = shlex.join([Path(sys.executable).name, *sys.argv])
    about = machine()
    rows = []
    with SimulatedModel(args.latency_ms) as sim, tempfile.TemporaryDirectory() as tmp:
        os.environ["JURIST_HOME"] = tmp
        home = Path(tmp)
        run = (sim.spec, home, args.n, args.concurrency)
        rows.append(asyncio.run(one("process", *run, cluster=None)))
        local = f"local:{args.workers}"
        rows.append(asyncio.run(one(local, *run, cluster=local)))
        with LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False},
            silence_logs=logging.ERROR,
        ) as started:
            rows.append(asyncio.run(one("joined", *run, cluster=started.scheduler_address)))
    ideal = args.n * args.latency_ms / 1000 / args.concurrency
    print(f"machine: {json.dumps(about)}")
    print(f"command: {command}")
    print(
        f"{args.n} items x 1 criterion, simulated model at {args.latency_ms:g} ms, "
        f"{args.concurrency} in flight per judging process; ideal wall for one process "
        f"{ideal:.2f} s"
    )
    print(f"{'way':10} {'wall s':>8} {'items/s':>9} {'stored':>7} {'pass':>6} {'errors':>7}")
    for row in rows:
        print(
            f"{row['way']:10} {row['wall_s']:8.2f} {row['items_per_s']:9.1f} "
            f"{row['stored']:7d} {row['passed']:6d} {row['errors']:7d}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        record = {"run": stamp, "command": command, "machine": about, "args": vars(args)}
        out.write(json.dumps({**record, "rows": rows}) + "\n")


if __name__ == "__main__":
    main()
