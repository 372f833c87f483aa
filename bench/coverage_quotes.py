"""Coverage with and without quotes, on human relevance ratings: is the quote worth its tokens?

Each key fact of a source is checked against the summary. With quotes the model copies the
sentence of the summary that states the fact (about 50 tokens at about 20 a second on two
cores); without, it writes the verdict alone and P(covered) is read at its token. Both
variants share one extraction of each article's key facts, and the response cache makes a
rerun free.

Items: `--articles` seeded articles of the SummEval development set, `--per-article`
summaries each. Printed per variant: Spearman with the human relevance rating averaged per
article and pooled, with bootstrap 95 % intervals over articles, and seconds and model calls
per item (the key-fact extraction, shared, is timed on its own first).

Run: flock /tmp/jurist-model.lock uv run python bench/coverage_quotes.py [--articles 8]
     [--per-article 4] [--seed 1] [--model local:qwen2.5-1.5b]
"""

import argparse
import asyncio
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path

from scipy.stats import spearmanr
from summeval_dev import DATA, GOAL, items

from jurist.core import Context
from jurist.judges import CoverageJudge
from jurist.judges._ask import ModelRef
from jurist.judges._focus import KeyFacts
from jurist.llm import get_model


def spearman(xs: list[float], ys: list[float]) -> float | None:
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return float(spearmanr(xs, ys).statistic)


def per_article(rows: list[tuple[str, float, float]]) -> list[float]:
    grouped: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for doc, score, human in rows:
        grouped[doc].append((score, human))
    found = [spearman([s for s, _ in pairs], [h for _, h in pairs]) for pairs in grouped.values()]
    return [value for value in found if value is not None]


def interval(values: list[float], seed: int = 0) -> tuple[float, float]:
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(values, k=len(values))) for _ in range(2000))
    return means[50], means[1949]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=8)
    parser.add_argument("--per-article", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model", default="local:qwen2.5-1.5b")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    chosen = items(args.data, args.articles, args.per_article, args.seed)
    model = get_model(args.model)
    facts = KeyFacts(ModelRef(model))
    started = time.perf_counter()
    sources = {str(row["source"]) for row in chosen}
    for source in sources:
        await facts.of(source, GOAL)
    print(f"key facts of {len(sources)} articles: {time.perf_counter() - started:.1f} s")
    for quotes in (True, False):
        judge = CoverageJudge(model, key_facts=facts, quotes=quotes)
        rows: list[tuple[str, float, float]] = []
        calls = 0
        started = time.perf_counter()
        for row in chosen:
            ctx = Context(goal=GOAL, output=row["output"], context=str(row["source"]))
            judgment = await judge.judge(ctx)
            calls += judgment.usage.calls if judgment.usage else 0
            if judgment.score is None:
                continue
            human = row["human_scores"]["relevance"]  # type: ignore[index]
            rows.append((str(row["doc_id"]), judgment.score.normalized(), float(human)))
        seconds = time.perf_counter() - started
        articles = per_article(rows)
        low, high = interval(articles)
        pooled = spearman([s for _, s, _ in rows], [h for _, _, h in rows])
        print(
            f"quotes={quotes!s:5}  n={len(rows)}  per-article Spearman "
            f"{statistics.fmean(articles):+.2f} [{low:+.2f}, {high:+.2f}] "
            f"({len(articles)} articles)  pooled {pooled:+.2f}  "
            f"{seconds / len(chosen):.1f} s and {calls / len(chosen):.1f} calls per item"
        )


if __name__ == "__main__":
    asyncio.run(main())
