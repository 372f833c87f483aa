"""Pairwise comparison on the human-labelled dev pairs: pointwise evidence against the direct
answer, with the weights fitted out of fold.

Pairs: a seeded subset of bench/data/pairwise-llmeval2.jsonl and
pairwise-autoj-dev.jsonl, `--per-set` pairs from each, balanced between the labels A and B
(ties left out: the figure is the non-tie accuracy), among pairs whose instruction and outputs
together stay under `--max-chars` (the 1.5B model reads a few hundred tokens a second, one
call at a time). Each pair is judged by `PairwiseJudge(method="pointwise")`, which also asks
the direct question in both orders, so one run gives both methods' signals. Every pair's
signals, seconds and model calls are appended to `--out` (JSONL) as it is judged, so a rerun
resumes. The pair is then judged again with A and B swapped; with the response cache on
this asks the model nothing new, and it measures whether the verdict follows the outputs
or their positions.

Printed, out of fold (5 folds by pair): accuracy with its bootstrap 95 % interval, the
length-win rate (how often the longer output wins among decisive verdicts) beside people's,
position consistency, ties, seconds and calls per pair; for the pointwise method with
fitted weights and for the direct answer alone; and the weights fitted on all pairs.

Run: flock /tmp/jurist-model.lock uv run python bench/pairwise_dev.py [--per-set 30]
     [--out /tmp/pairwise-dev.jsonl] [--report-only]
"""

import argparse
import asyncio
import json
import math
import random
import time
from pathlib import Path
from typing import Any

from jurist.core import Judgment
from jurist.judges import PairwiseJudge, PairwiseReport, pairwise_context
from jurist.settings import get_settings

DATA = Path(__file__).parent / "data"  # the development sets, see data/README.md
SETS = ("pairwise-llmeval2.jsonl", "pairwise-autoj-dev.jsonl")
FEATURES = ("requirements", "direct", "length")
ERRORS_WEIGHT = 3.0
FOLDS = 5
# Tie margins around P(A better) = 0.5 that the report compares and chooses among.
MARGINS = (0.0, 0.02, 0.05, 0.1)


def load_pairs(data: Path, per_set: int, max_chars: int, seed: int) -> list[dict[str, Any]]:
    chosen: list[dict[str, Any]] = []
    for name in SETS:
        rows = [json.loads(line) for line in (data / name).read_text().splitlines() if line]
        fits = [
            r
            for r in rows
            if r["label"] in ("A", "B")
            and len(r["instruction"]) + len(r["output_a"]) + len(r["output_b"]) <= max_chars
        ]
        rng = random.Random(seed)
        for label in ("A", "B"):
            pool = [r for r in fits if r["label"] == label]
            rng.shuffle(pool)
            chosen += [{**r, "set": name} for r in pool[: per_set // 2]]
    random.Random(seed).shuffle(chosen)
    return chosen


def signals_of(judgment: Judgment) -> dict[str, Any]:
    report = PairwiseReport.of(judgment)
    if report is None or report.signals is None:
        return {"status": str(judgment.status), "reason": judgment.reasoning[:300]}
    return {
        "status": str(judgment.status),
        "outcome": str(judgment.score.value) if judgment.score else None,
        **report.signals.model_dump(),
        "errors_a": list(report.errors_a),
        "errors_b": list(report.errors_b),
        "requirements_listed": [r.requirement for r in report.requirements],
        "calls": judgment.usage.calls if judgment.usage else None,
        "orders_agree": report.position_consistent,
    }


def judged(out: Path) -> set[str]:
    if not out.exists():
        return set()
    return {json.loads(line)["id"] for line in out.read_text().splitlines() if line}


async def judge_pairs(pairs: list[dict[str, Any]], out: Path, model: str) -> None:
    done = judged(out)
    judge = PairwiseJudge(model)
    for index, pair in enumerate(pairs):
        if pair["id"] in done:
            continue
        started = time.monotonic()
        forward = await judge.judge(
            pairwise_context(pair["instruction"], pair["output_a"], pair["output_b"])
        )
        seconds = time.monotonic() - started
        swapped = await judge.judge(
            pairwise_context(pair["instruction"], pair["output_b"], pair["output_a"])
        )
        row = {
            "id": pair["id"],
            "set": pair["set"],
            "label": pair["label"],
            "words_a": len(pair["output_a"].split()),
            "words_b": len(pair["output_b"].split()),
            "seconds": seconds,
            "forward": signals_of(forward),
            "swapped": signals_of(swapped),
        }
        append(out, row)
        print(
            f"{index + 1}/{len(pairs)} {pair['id']} {row['forward'].get('outcome')} "
            f"(people {pair['label']}) {seconds:.0f}s",
            flush=True,
        )


def append(out: Path, row: dict[str, Any]) -> None:
    with out.open("a") as handle:
        handle.write(json.dumps(row) + "\n")


def fit(rows: list[dict[str, Any]], features: tuple[str, ...]) -> dict[str, float]:
    """Logistic regression without intercept (no position preference), by Newton steps with
    a small ridge; the length weight is clipped to at most 0 and the rest refitted."""
    import numpy as np

    x = np.array([[r["x"][f] for f in features] for r in rows], dtype=float)
    y = np.array([1.0 if r["label"] == "A" else 0.0 for r in rows])
    offset = np.array([ERRORS_WEIGHT * r["x"]["errors"] for r in rows])
    w = np.zeros(len(features))
    for _ in range(50):
        p = 1 / (1 + np.exp(-(x @ w + offset)))
        gradient = x.T @ (p - y) + 0.1 * w
        hessian = (x.T * (p * (1 - p))) @ x + 0.1 * np.eye(len(features))
        w -= np.linalg.solve(hessian, gradient)
    weights = dict(zip(features, (float(v) for v in w), strict=True))
    if weights.get("length", 0.0) > 0:
        rest = tuple(f for f in features if f != "length")
        weights = {**fit(rows, rest), "length": 0.0}
    return weights


def features(signals: dict[str, Any]) -> dict[str, float]:
    return {
        "requirements": signals["requirements"],
        "direct": signals["direct"] or 0.0,
        "length": signals["length"],
        "errors": signals["errors"],
    }


def verdict(log_odds: float, margin: float = 0.1) -> str:
    p = 1 / (1 + math.exp(-log_odds))
    if abs(p - 0.5) <= margin:
        return "tie"
    return "A" if p > 0.5 else "B"


def interval(hits: list[float], n_boot: int = 2000) -> tuple[float, float]:
    rng = random.Random(0)
    means = sorted(sum(rng.choices(hits, k=len(hits))) / len(hits) for _ in range(n_boot))
    return means[int(0.025 * n_boot)], means[int(0.975 * n_boot) - 1]


def summary(name: str, rows: list[dict[str, Any]], pred: list[str], back: list[str]) -> str:
    n = len(rows)
    hits = [1.0 if p == r["label"] else 0.0 for p, r in zip(pred, rows, strict=True)]
    low, high = interval(hits)
    decisive = [(p, r) for p, r in zip(pred, rows, strict=True) if p != "tie"]
    longer = [("A" if r["words_a"] > r["words_b"] else "B") for _, r in decisive]
    length_wins = sum(p == lo for (p, _), lo in zip(decisive, longer, strict=True))
    mirror = {"A": "B", "B": "A", "tie": "tie"}
    consistent = sum(mirror[p] == q for p, q in zip(pred, back, strict=True))
    return (
        f"{name}: accuracy {sum(hits) / n:.2f} [{low:.2f}, {high:.2f}] (n={n}), "
        f"ties {pred.count('tie')}, longer wins {length_wins}/{len(decisive)}, "
        f"position-consistent {consistent}/{n}"
    )


def shipped_margins(
    rows: list[dict[str, Any]], folds: list[list[dict[str, Any]]]
) -> dict[str, tuple[str, str]]:
    """The shipped judge's verdicts (its own log-odds) with the tie margin chosen on the
    other folds: the margin whose verdicts are right most often there (a tie counts as
    wrong: these pairs have a better output), the larger margin on equal counts."""
    chosen: dict[str, tuple[str, str]] = {}
    for k, held in enumerate(folds):
        train = [r for j, f in enumerate(folds) if j != k for r in f]

        def right(margin: float, train: list[dict[str, Any]] = train) -> tuple[int, float]:
            hits = sum(verdict(r["forward"]["log_odds"], margin) == r["label"] for r in train)
            return hits, margin

        margin = max(MARGINS, key=right)
        for r in held:
            chosen[r["id"]] = (
                verdict(r["forward"]["log_odds"], margin),
                verdict(r["swapped"]["log_odds"], margin),
            )
    return chosen


def report(out: Path) -> str:
    rows = [json.loads(line) for line in out.read_text().splitlines() if line]
    rows = [r for r in rows if "requirements" in r["forward"] and "requirements" in r["swapped"]]
    for r in rows:
        r["x"], r["x_swapped"] = features(r["forward"]), features(r["swapped"])
    lines = [f"{len(rows)} pairs judged ({out})"]
    people_longer = sum((r["label"] == "A") == (r["words_a"] > r["words_b"]) for r in rows)
    lines.append(f"people chose the longer output in {people_longer}/{len(rows)}")
    folds = [rows[i::FOLDS] for i in range(FOLDS)]
    pointwise: dict[str, tuple[str, str]] = {}
    for k, held in enumerate(folds):
        train = [r for j, f in enumerate(folds) if j != k for r in f]
        w = fit(train, FEATURES)
        for r in held:

            def log_odds(x: dict[str, float], w: dict[str, float] = w) -> float:
                return sum(w[f] * x[f] for f in w) + ERRORS_WEIGHT * x["errors"]

            pointwise[r["id"]] = (verdict(log_odds(r["x"])), verdict(log_odds(r["x_swapped"])))
    shipped = shipped_margins(rows, folds)
    for name in ("all", *SETS):
        part = [r for r in rows if name == "all" or r["set"] == name]
        if not part:
            continue
        lines.append(f"-- {name}")
        lines.append(
            summary(
                "pointwise, weights out of fold",
                part,
                [pointwise[r["id"]][0] for r in part],
                [pointwise[r["id"]][1] for r in part],
            )
        )
        for margin in MARGINS:
            lines.append(
                summary(
                    f"the judge as shipped, tie margin {margin}",
                    part,
                    [verdict(r["forward"]["log_odds"], margin) for r in part],
                    [verdict(r["swapped"]["log_odds"], margin) for r in part],
                )
            )
        lines.append(
            summary(
                "the judge as shipped, tie margin chosen out of fold",
                part,
                [shipped[r["id"]][0] for r in part],
                [shipped[r["id"]][1] for r in part],
            )
        )
        lines.append(
            summary(
                "requirements alone",
                part,
                [verdict(4 * r["x"]["requirements"], 0.0) for r in part],
                [verdict(4 * r["x_swapped"]["requirements"], 0.0) for r in part],
            )
        )
        lines.append(
            summary(
                "direct answer alone (both orders, tie margin 0.1)",
                part,
                [verdict(2 * math.atanh(min(max(r["x"]["direct"], -0.999), 0.999))) for r in part],
                [
                    verdict(2 * math.atanh(min(max(r["x_swapped"]["direct"], -0.999), 0.999)))
                    for r in part
                ],
            )
        )
        agree = [r["forward"].get("orders_agree") for r in part]
        lines.append(
            f"direct answer: its two orders chose the same output in "
            f"{sum(a is True for a in agree)}/{sum(a is not None for a in agree)}"
        )
        seconds = sum(r["seconds"] for r in part) / len(part)
        calls = [r["forward"]["calls"] for r in part if r["forward"].get("calls")]
        lines.append(
            f"seconds per pair {seconds:.0f}, model calls per pair "
            f"{sum(calls) / max(len(calls), 1):.1f}"
        )
    lines.append(f"weights fitted on all {len(rows)}: {fit(rows, FEATURES)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--per-set", type=int, default=30)
    parser.add_argument("--max-chars", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=Path("/tmp/pairwise-dev.jsonl"))
    parser.add_argument("--model", default=get_settings().model)
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    if not args.report_only:
        pairs = load_pairs(args.data, args.per_set, args.max_chars, args.seed)
        asyncio.run(judge_pairs(pairs, args.out, args.model))
    print(report(args.out))


if __name__ == "__main__":
    main()
