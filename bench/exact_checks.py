"""What the exact checks add to the claims method, on human consistency ratings.

On a seeded subset of the SummEval development set, each summary's claims are extracted
once and checked against the article twice: with the exact checks (the default: numbers,
months and names compared before the model; negation and who-did-what compared with the
model's quote after) and without them (the model alone). Both share every model call they
have in common through the response cache, so the second costs only the claims the exact
checks decided without a model.

Printed for each: the claims method's score (1 + 4 x the mean P(supported), as the
summarization rubric reads it, and the least P(supported)) against the human consistency
rating: Spearman with its bootstrap 95 % interval, and the AUC for telling the summaries
rated fully consistent (5) from the rest; then how many claims the exact checks decided and
how many of those the model alone had called supported; and the share of the claims the
model listed that the summary itself states (the rest are left out as untraceable).

Run: flock /tmp/jurist-model.lock uv run python bench/exact_checks.py [--articles 6]
     [--per-article 4] [--seed 1] [--model local:qwen2.5-1.5b]
"""

import argparse
import asyncio
import random
import statistics
from collections import defaultdict
from pathlib import Path

from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score
from summeval_dev import DATA, GOAL, items

from jurist.judges import ClaimExtractor, ClaimVerifier, SupportOptions
from jurist.llm import get_model


def interval(xs: list[float], ys: list[float]) -> tuple[float, float]:
    rng = random.Random(0)
    found = []
    for _ in range(2000):
        picks = rng.choices(range(len(xs)), k=len(xs))
        a, b = [xs[i] for i in picks], [ys[i] for i in picks]
        if len(set(a)) > 1 and len(set(b)) > 1:
            found.append(float(spearmanr(a, b).statistic))
    found.sort()
    return found[int(0.025 * len(found))], found[int(0.975 * len(found)) - 1]


def line(name: str, scores: list[float], human: list[float]) -> str:
    rho = float(spearmanr(scores, human).statistic)
    low, high = interval(scores, human)
    top = [1 if h >= 5 else 0 for h in human]
    auc = roc_auc_score(top, scores) if 0 < sum(top) < len(top) else float("nan")
    return f"{name}: Spearman {rho:+.2f} [{low:+.2f}, {high:+.2f}], AUC (rated 5) {auc:.2f}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=6)
    parser.add_argument("--per-article", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--model", default="local:qwen2.5-1.5b")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    model = get_model(args.model)
    extractor = ClaimExtractor(model)
    with_exact = ClaimVerifier(model, SupportOptions(exact=True))
    model_alone = ClaimVerifier(model, SupportOptions(exact=False))
    human: list[float] = []
    scores: dict[str, list[float]] = defaultdict(list)
    kept = untraceable = decided = decided_supported_alone = 0
    rows = items(args.data, args.articles, args.per_article, args.seed)
    for index, row in enumerate(rows, start=1):
        source, output = str(row["source"]), str(row["output"])
        claims = await extractor.extract(output, goal=GOAL)
        kept += len(claims.claims)
        untraceable += len(claims.untraceable)
        on = await with_exact.verify(claims.claims, source)
        off = await model_alone.verify(claims.claims, source)
        for name, report in (("exact checks", on), ("model alone", off)):
            known = [
                c.p_supported if c.p_supported is not None else float(c.supported)
                for c in report.checks
                if c.checked
            ]
            scores[f"{name}, mean"].append(1 + 4 * statistics.fmean(known) if known else 5.0)
            scores[f"{name}, least"].append(1 + 4 * min(known) if known else 5.0)
        for a, b in zip(on.checks, off.checks, strict=True):
            if a.method == "exact":
                decided += 1
                decided_supported_alone += b.supported
        human.append(float(row["human_scores"]["consistency"]))  # type: ignore[index]
        print(f"{index}/{len(rows)} {row['id']}: {len(claims.claims)} claims", flush=True)
    print(f"{len(rows)} summaries, {sum(h >= 5 for h in human)} rated fully consistent")
    for name, values in scores.items():
        print(line(name, values, human))
    print(
        f"the exact checks decided {decided} of {kept} claims; the model alone had called "
        f"{decided_supported_alone} of those supported"
    )
    listed = kept + untraceable
    print(
        f"claims traceable to the summary: {kept} of {listed} listed "
        f"({kept / max(listed, 1):.1%}); {untraceable} left out"
    )


if __name__ == "__main__":
    asyncio.run(main())
