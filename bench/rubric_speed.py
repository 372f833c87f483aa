"""Seconds per item of the default four-dimension summarization rubric on the embedded model.

`RubricJudge` on the `summarization` rubric, as `jurist judge --rubric summarization`
scores (each criterion by the method the rubric names: sentence checks for coherence and
fluency, claims for consistency, coverage for relevance), on `--articles` seeded articles
of the SummEval development set, one summary each (so every item pays its own source's key
facts, as a user judging one output does), the response cache off, one item at a time.
Printed per item: seconds, model calls, prompt tokens and tokens decoded; then P50, P95 and
the mean seconds per item, and calls per item.

Run: flock /tmp/jurist-model.lock uv run python bench/rubric_speed.py [--articles 8]
     [--seed 3] [--model local:qwen2.5-1.5b]
"""

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from summeval_dev import DATA, GOAL, rows

from jurist.core import Context
from jurist.judges import RubricJudge
from jurist.llm import get_model
from jurist.rubrics import get_rubric


def chosen(path: Path, articles: int, seed: int) -> list[dict[str, object]]:
    every = rows(path)
    first: dict[str, dict[str, object]] = {}
    rng = random.Random(seed)
    for row in rng.sample(every, len(every)):
        first.setdefault(str(row["doc_id"]), row)
    return [first[doc] for doc in sorted(first)[:articles]]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=8)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--model", default="local:qwen2.5-1.5b")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    judge = RubricJudge(get_rubric("summarization"), get_model(args.model, cache=False))
    seconds: list[float] = []
    calls: list[int] = []
    for row in chosen(args.data, args.articles, args.seed):
        ctx = Context(goal=GOAL, output=row["output"], context=str(row["source"]))
        started = time.perf_counter()
        judgment = await judge.judge(ctx)
        took = time.perf_counter() - started
        usage = judgment.usage
        seconds.append(took)
        calls.append(usage.calls if usage else 0)
        print(
            f"{row['id']}: {took:.1f} s, {calls[-1]} calls, "
            f"{usage.input_tokens if usage else 0} prompt tokens, "
            f"{usage.output_tokens if usage else 0} decoded, {judgment.status.value}",
            flush=True,
        )
    print(
        f"{len(seconds)} items: P50 {percentile(seconds, 0.5):.1f} s, "
        f"P95 {percentile(seconds, 0.95):.1f} s, mean {statistics.fmean(seconds):.1f} s, "
        f"{statistics.fmean(calls):.1f} calls per item"
    )


if __name__ == "__main__":
    asyncio.run(main())
