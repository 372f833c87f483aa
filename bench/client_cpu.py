"""Client CPU per model call of a batch run: `--n` items (500) through
`jurist.runner.evaluate`, with the run persisted in a SQLite store the way `jurist eval`
persists it (a run created, each judgment stored, the run finished) and without a store,
for two judges:

    rubric        RubricJudge("answer-quality", model, criteria=["correctness"])   1 call/item
    faithfulness  FaithfulnessJudge(model)          claims, then each claim checked: 1 + claims

The model is `get_model("openai-compatible:gpt-4.1-mini@<sim>/v1", cache=False)`: the whole
middleware stack a user gets, the response cache off. It talks to bench/simulated_model.py,
which runs in a process of its own and answers after `--latency-ms`, so its CPU is not
counted. By default it answers as a hosted provider does when log-probabilities are asked
(the judges ask for them): one log-probability entry per token of the answer (a sentence of
reasoning, then the score or label), each with the 10 alternatives the judges ask for, so
the client reads ~25 tokens x 11 log-probabilities per rubric call. `--few-tokens` has it
answer in a handful of long tokens instead (what this bench measured first: far less to
read per call). What is measured is this process's CPU time (`time.process_time`: every thread,
the SQLite driver's included) over the `evaluate` call alone (imports, the store's opening
and migration, and a warm-up batch are outside it), divided by the model calls the simulated
server answered during it (checked against the calls the judgments report).

Target: <= 2.5 ms of client CPU per model call, with the store and without.

Each configuration runs `--repeat` rounds (3), interleaved; the round with the least CPU is
shown (load from other processes only adds to it), the median beside it.

Printed: a markdown table with the machine and the command; `--json FILE` appends the rows as
one JSON line. `--profile DIR` writes a cProfile of each measured configuration there.

Run: .venv/bin/python bench/client_cpu.py [--n 500] [--latency-ms 20] [--concurrency 64]
[--few-tokens]
"""

import argparse
import asyncio
import cProfile
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from simulated_model import SimulatedModel

METRICS = ("rubric", "faithfulness")
MODEL = "gpt-4.1-mini"
WARM_UP = 20
# What the simulated model extracts from every output: one claim per item (as the peer
# harness's mock answers), written in each output and supported by each context.
CLAIM = "The town lies on a river and was founded by a guild of weavers."

_PLACES = ("Arden", "Belmont", "Carrow", "Dunmere", "Elsworth", "Fairholt", "Glenby")
_RIVERS = ("Tavy", "Ouse", "Wye", "Eden", "Exe")


def rows(n: int) -> list[dict[str, Any]]:
    """`n` question-answering items, each with a goal, an output, its context passages and
    a reference (what a RAG evaluation holds)."""
    made = []
    for index in range(n):
        place = f"{_PLACES[index % len(_PLACES)]} {index}"
        river = _RIVERS[index % len(_RIVERS)]
        year = 1200 + (index * 37) % 600
        passages = [
            f"{place} is a town on the river {river}.",
            f"It was founded in {year}. {CLAIM}",
            f"Its population was {2000 + index * 13} at the last census.",
        ]
        made.append(
            {
                "id": f"i{index}",
                "goal": f"When was {place} founded?",
                "output": f"{place} was founded in {year} on the river {river}. {CLAIM}",
                "context": passages,
                "reference": f"{place} was founded in {year}.",
            }
        )
    return made


def build_judge(metric: str, model: Any) -> Any:
    from jurist.judges import FaithfulnessJudge, RubricJudge

    if metric == "rubric":
        return RubricJudge("answer-quality", model, criteria=["correctness"])
    return FaithfulnessJudge(model)


async def measure(
    metric: str,
    model: Any,
    sim: SimulatedModel,
    database: Path | None,
    args: argparse.Namespace,
    *,
    round_: int,
) -> tuple[dict[str, Any], cProfile.Profile | None]:
    from jurist.runner import dataset_from_rows, evaluate
    from jurist.store import RecordStore

    n, concurrency = args.n, args.concurrency
    judge = build_judge(metric, model)
    warm = dataset_from_rows(rows(min(WARM_UP, n)))
    dataset = dataset_from_rows(rows(n))
    store = await RecordStore.open(f"sqlite:///{database}") if database is not None else None
    try:
        # The first calls pay one-time costs (lazy imports, the HTTP pool's connections).
        label = f"{metric}-{round_}"
        await evaluate(warm, judge, concurrency=concurrency, store=store, name=f"warm-{label}")
        before = sim.count()
        profiler = cProfile.Profile() if args.profile is not None else None
        cpu, wall = time.process_time(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        result = await evaluate(
            dataset, judge, concurrency=concurrency, store=store, name=f"bench-{label}"
        )
        if profiler is not None:
            profiler.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        calls = sim.count() - before
    finally:
        if store is not None:
            await store.close()
    reported = sum((j.usage.calls or 0) for j in result.judgments.values() if j.usage is not None)
    counts = result.summary.counts
    row = {
        "metric": metric,
        "store": "sqlite" if database is not None else "none",
        "items": n,
        "calls": calls,
        "calls_reported": reported,
        "cpu_s": round(cpu, 4),
        "wall_s": round(wall, 3),
        "cpu_ms_per_call": round(cpu * 1000 / max(calls, 1), 3),
        "errors": counts.get("error", 0),
        "abstained": counts.get("abstain", 0),
    }
    return row, profiler


def least(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The round that cost least CPU (another process's load only ever adds to it), with
    the median of all rounds beside it."""
    best = min(rounds, key=lambda row: row["cpu_ms_per_call"])
    return {
        **best,
        "rounds": len(rounds),
        "median_cpu_ms_per_call": statistics.median(row["cpu_ms_per_call"] for row in rounds),
    }


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def table(found: list[dict[str, Any]], describe: Callable[[], str]) -> str:
    lines = [
        describe(),
        "",
        "| metric | store | items | calls | CPU s | wall s | CPU ms/call | median | errors |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in found:
        lines.append(
            f"| {row['metric']} | {row['store']} | {row['items']} | {row['calls']} | "
            f"{row['cpu_s']:.2f} | {row['wall_s']:.2f} | {row['cpu_ms_per_call']:.2f} | "
            f"{row['median_cpu_ms_per_call']:.2f} | {row['errors']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500, help="items per configuration")
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=64, help="evaluate(concurrency=)")
    parser.add_argument("--metrics", default=",".join(METRICS))
    parser.add_argument("--stores", default="none,sqlite", help="none, sqlite or both")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds; the least CPU of each is shown"
    )
    parser.add_argument(
        "--few-tokens",
        action="store_true",
        help="the simulated model answers in a few long tokens, not one entry per token",
    )
    parser.add_argument("--json", type=Path, help="append the rows as one JSON line here")
    parser.add_argument("--profile", type=Path, help="write a cProfile per configuration here")
    args = parser.parse_args()
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        parser.error(f"--metrics: unknown {unknown}, expected some of {list(METRICS)}")
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    if not stores or set(stores) - {"none", "sqlite"}:
        parser.error(f"--stores: expected none and/or sqlite, got {args.stores!r}")

    with tempfile.TemporaryDirectory(prefix="jurist-client-cpu-") as tmp:
        # Settings are read once per process: set them before jurist reads them.
        os.environ["JURIST_HOME"] = tmp
        os.environ["JURIST_CACHE"] = "0"
        os.environ["JURIST_MAX_CONCURRENCY"] = str(max(args.concurrency, 16))
        os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
        from jurist.llm import get_model

        runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
        with SimulatedModel(args.latency_ms, claims=(CLAIM,), few_tokens=args.few_tokens) as sim:
            model = get_model(f"openai-compatible:{MODEL}@{sim.url}", cache=False)
            # Rounds interleave the configurations, so that a busy spell of the machine
            # does not fall on one configuration only.
            for round_ in range(args.repeat):
                for metric in metrics:
                    for store in stores:
                        database = Path(tmp) / f"{metric}.sqlite3" if store == "sqlite" else None
                        row, profiler = asyncio.run(
                            measure(metric, model, sim, database, args, round_=round_)
                        )
                        runs.setdefault((metric, store), []).append(row)
                        if profiler is not None:
                            args.profile.mkdir(parents=True, exist_ok=True)
                            profiler.dump_stats(args.profile / f"{metric}-{store}-{round_}.prof")
        found = [least(rows) for rows in runs.values()]

    command = "python bench/client_cpu.py " + " ".join(sys.argv[1:])

    answers = "a few long tokens" if args.few_tokens else "a logprob entry per token"

    def describe() -> str:
        return (
            f"Client CPU per model call: {args.n} items, simulated model at "
            f"{args.latency_ms:g} ms ({answers}), concurrency {args.concurrency}, cache off; "
            "the least CPU "
            f"of {args.repeat} rounds (median beside it)\n"
            f"machine: {machine()}\ncommand: {command.strip()}"
        )

    print(table(found, describe))
    if args.json is not None:
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with args.json.open("a", encoding="utf-8") as out:
            out.write(
                json.dumps(
                    {
                        "run": stamp,
                        "machine": machine(),
                        "args": vars(args) | {"json": str(args.json), "profile": str(args.profile)},
                        "rows": found,
                    }
                )
            )
            out.write("\n")


if __name__ == "__main__":
    main()
