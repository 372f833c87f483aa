"""How well claim-level grounding tracks human judgments of factual consistency.

On the shipped SummEval calibration set (article as the context, summary as the
output), the FaithfulnessJudge's method extracts the summary's claims and checks each
against the article. Printed, against the human consistency scores: Spearman and Kendall
of the faithfulness score (supported / total) and of the mean P(supported), with bootstrap
95% intervals over items;
AUC for telling summaries rated fully consistent (5) from the rest; seconds, model calls and
tokens per item.

`--mode both` also checks the same claims in one call per summary ("together") and prints
how the two modes compare (tokens, time, agreement per claim). The claims come from one
extraction, so the comparison is of verification alone.

Results go to a JSONL file item by item, so an interrupted run continues with --resume.

Run: uv run python bench/grounding.py [--limit N] [--mode per_claim|together|both]
     [--model local:qwen2.5-1.5b] [--out bench/results/grounding.jsonl] [--resume]
"""

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from jurist.core import Usage
from jurist.data import summeval_100_path
from jurist.judges import ClaimExtractor, ClaimVerifier, SupportOptions
from jurist.judges._grounding import Grounding
from jurist.llm import get_model
from jurist.settings import Settings

DATA = summeval_100_path()  # the calibration set shipped in the package
GOAL = "Summarise the news article in a few sentences."
BOOTSTRAP = 2000


def rows(limit: int | None) -> list[dict[str, Any]]:
    """The items, the four summaries of one article next to each other (so the article stays
    in the runtime's prompt cache between them)."""
    items = [json.loads(line) for line in DATA.read_text("utf-8").splitlines()]
    items.sort(key=lambda row: (row["doc_id"], row["id"]))
    return items[:limit] if limit else items


def usage_row(usage: Usage | None, seconds: float) -> dict[str, Any]:
    return {
        "seconds": round(seconds, 2),
        "calls": usage.calls if usage else 0,
        "input_tokens": usage.input_tokens if usage else 0,
        "output_tokens": usage.output_tokens if usage else 0,
    }


def summary_of(grounding: Grounding) -> dict[str, Any]:
    checks = grounding.checked
    probabilities = [c.p_supported for c in checks if c.p_supported is not None]
    total = len(grounding.checks)
    return {
        "score": (total - len(grounding.unsupported) - len(grounding.errored)) / total
        if total
        else None,
        # The same claims decided on P(supported) alone, without the quote requirement.
        "score_without_quotes": sum(
            1 for c in checks if c.p_supported is not None and c.p_supported >= 0.5
        )
        / total
        if total
        else None,
        "p_mean": statistics.fmean(probabilities) if probabilities else None,
        "p_min": min(probabilities) if probabilities else None,
        "claims": total,
        "unsupported": len(grounding.unsupported),
        "errored": len(grounding.errored),
        "invented_quotes": sum(1 for c in checks if c.invented_quote),
        "checks": [c.as_dict() for c in grounding.checks],
    }


async def judge_item(row: dict[str, Any], extractor: ClaimExtractor, mode: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": row["id"],
        "doc_id": row["doc_id"],
        "human": row["human_scores"]["consistency"],
    }
    started = time.perf_counter()
    claims = await extractor.extract(row["output"], goal=GOAL)
    result["extraction"] = {
        "method": claims.extraction.value,
        "claims": list(claims.claims),
        **usage_row(claims.usage, time.perf_counter() - started),
    }
    modes = ["per_claim", "together"] if mode == "both" else [mode]
    for each in modes:
        options = SupportOptions(together=each == "together")
        verifier = ClaimVerifier(extractor.model, options)
        began = time.perf_counter()
        report = await verifier.verify(claims.claims, row["source"])
        seconds = time.perf_counter() - began
        grounding = Grounding(claims, report, row["source"])
        result[each] = {**summary_of(grounding), **usage_row(report.usage, seconds)}
    result["seconds"] = round(time.perf_counter() - started, 2)
    return result


def bootstrap(x: np.ndarray, y: np.ndarray, fn: Any) -> tuple[float, float, float]:
    """The statistic and its bootstrap 95% interval, resampling items."""
    rng = np.random.default_rng(0)
    value = float(fn(x, y))
    samples = []
    for _ in range(BOOTSTRAP):
        index = rng.integers(0, len(x), len(x))
        if len(set(x[index])) > 1 and len(set(y[index])) > 1:
            samples.append(float(fn(x[index], y[index])))
    low, high = np.percentile(samples, [2.5, 97.5])
    return value, float(low), float(high)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.spearmanr(x, y).statistic)


def kendall(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.kendalltau(x, y).statistic)


def auc(x: np.ndarray, y: np.ndarray) -> float:
    """P(a fully consistent summary scores above one that is not), ties counting half."""
    positives, negatives = x[y >= 5], x[y < 5]
    if not len(positives) or not len(negatives):
        return float("nan")
    greater = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(positives) * len(negatives)))


def report(results: list[dict[str, Any]]) -> None:
    human = np.array([r["human"] for r in results], dtype=float)
    print(f"items: {len(results)}  (human consistency: {int((human >= 5).sum())} rated 5)")
    methods = [r["extraction"]["method"] for r in results]
    claims = [len(r["extraction"]["claims"]) for r in results]
    print(
        f"claims per item: mean {statistics.fmean(claims):.2f}; extraction by model "
        f"{methods.count('model')}, by sentences {methods.count('sentences')}"
    )
    modes = [m for m in ("per_claim", "together") if any(m in r for r in results)]
    for each in modes:
        done = [r for r in results if each in r and r[each]["score"] is not None]
        print(f"\n== {each}: {len(done)} items with claims")
        calls = statistics.fmean(r[each]["calls"] + r["extraction"]["calls"] for r in done)
        tokens_in = statistics.fmean(r[each]["input_tokens"] for r in done)
        tokens_out = statistics.fmean(r[each]["output_tokens"] for r in done)
        verify_s = statistics.fmean(r[each]["seconds"] for r in done)
        print(
            f"verification per item: {calls - 1:.2f} calls, {tokens_in:.0f} tokens in, "
            f"{tokens_out:.0f} out, {verify_s:.1f} s (model calls per item incl. extraction "
            f"{calls:.2f})"
        )
        # Extraction plus this mode's verification: what one judgment in this mode costs.
        seconds = [r["extraction"]["seconds"] + r[each]["seconds"] for r in done]
        print(
            f"seconds per item: mean {statistics.fmean(seconds):.1f}, "
            f"P50 {np.percentile(seconds, 50):.1f}, P95 {np.percentile(seconds, 95):.1f}"
        )
        invented = sum(r[each]["invented_quotes"] for r in done)
        total_claims = sum(r[each]["claims"] for r in done)
        print(f"invented quotes: {invented} of {total_claims} claims")
        y = np.array([r["human"] for r in done], dtype=float)
        for signal in ("score", "score_without_quotes", "p_mean", "p_min"):
            x = np.array([r[each][signal] if r[each][signal] is not None else 0.0 for r in done])
            if len(set(x)) < 2:
                print(f"  {signal:22s} constant ({x[0]:.2f}): no correlation")
                continue
            rho = bootstrap(x, y, spearman)
            tau = bootstrap(x, y, kendall)
            area = bootstrap(x, y, auc)
            print(
                f"  {signal:22s} Spearman {rho[0]:+.3f} [{rho[1]:+.3f}, {rho[2]:+.3f}]  "
                f"Kendall {tau[0]:+.3f} [{tau[1]:+.3f}, {tau[2]:+.3f}]  "
                f"AUC(5 vs rest) {area[0]:.3f} [{area[1]:.3f}, {area[2]:.3f}]"
            )
    both = [r for r in results if "per_claim" in r and "together" in r]
    if both:
        agree = total = 0
        differences = []
        tokens = {m: sum(r[m]["input_tokens"] + r[m]["output_tokens"] for r in both) for m in modes}
        seconds = {m: sum(r[m]["seconds"] for r in both) for m in modes}
        print(f"\n== per-claim vs together on the same {len(both)} items and claims")
        for m in modes:
            print(
                f"  {m:10s} verification: {tokens[m] / len(both):.0f} tokens per item, "
                f"{seconds[m] / len(both):.1f} s per item"
            )
        for r in both:
            for a, b in zip(r["per_claim"]["checks"], r["together"]["checks"], strict=True):
                if a["verdict"] is None or b["verdict"] is None:
                    continue
                total += 1
                agree += a["supported"] == b["supported"]
                if a["p_supported"] is not None and b["p_supported"] is not None:
                    differences.append(abs(a["p_supported"] - b["p_supported"]))
        print(
            f"\nper-claim vs together: same decision on {agree} of {total} claims "
            f"({agree / max(total, 1):.0%}); mean |dP(supported)| "
            f"{statistics.fmean(differences) if differences else float('nan'):.3f}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--mode", choices=["per_claim", "together", "both"], default="per_claim")
    parser.add_argument("--model", default="local:qwen2.5-1.5b")
    parser.add_argument("--out", type=Path, default=Path("bench/results/grounding.jsonl"))
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[str, dict[str, Any]] = {}
    if (args.resume or args.report_only) and args.out.exists():
        for line in args.out.read_text("utf-8").splitlines():
            item = json.loads(line)
            done[item["id"]] = item
    elif args.out.exists():
        args.out.unlink()
    items = rows(args.limit)
    if not args.report_only:
        settings = Settings(JURIST_CACHE="0")
        extractor = ClaimExtractor(get_model(args.model, settings=settings))
        with args.out.open("a", encoding="utf-8") as sink:
            for index, row in enumerate(items):
                if row["id"] in done:
                    continue
                result = await judge_item(row, extractor, args.mode)
                done[row["id"]] = result
                sink.write(json.dumps(result) + "\n")
                sink.flush()
                print(
                    f"[{index + 1}/{len(items)}] {row['id']} human {result['human']:.2f} "
                    f"{result['seconds']:.1f} s",
                    flush=True,
                )
    report([done[row["id"]] for row in items if row["id"] in done])


if __name__ == "__main__":
    asyncio.run(main())
