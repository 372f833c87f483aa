"""Faithfulness: one call per claim, or every claim in one call, against human ratings.

FaithfulnessJudge extracts a summary's claims (one call), then checks them against the
article: one call per claim (`together=False`) or all of them in one call
(`together=True`). This bench runs both modes on the same summaries of the SummEval
development set (bench/data/summeval-dev.jsonl: a seeded draw of whole articles, none of
them in the calibration set jurist ships), with the claims extracted once and shared, and
prints for each mode:

- agreement with the experts' consistency ratings: Spearman of the judge's score
  (supported / claims) and of the mean P(supported), and AUC for telling summaries rated
  fully consistent (5) from the rest, each with a 95% bootstrap interval that resamples
  articles (the summaries of one article are not independent);
- the paired difference (together - per claim) with its interval, and which mode each of
  two folds of articles would pick from the other fold (out of fold);
- model calls, seconds and tokens per verdict (extraction included).

The two modes alternate which goes first on each summary, so the runtime's prompt cache
(the article, evaluated by whichever mode asks first) favours neither. Response cache off.
Results go to a JSONL file summary by summary; `--resume` continues an interrupted run and
`--report` prints what is stored.

Run: uv run python bench/faithfulness_modes.py [--articles 10] [--per-article 4] [--seed 0]
     [--model local:qwen2.5-1.5b] [--out bench/results/faithfulness-modes.jsonl] [--resume]
     uv run python bench/faithfulness_modes.py --report
"""

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats
from summeval_dev import DATA, GOAL, items

from jurist.core import Context, Judgment
from jurist.judges import ClaimExtractor, Claims, ClaimsReport, FaithfulnessJudge
from jurist.llm import get_model
from jurist.settings import Settings

MODES = ("per_claim", "together")
BOOTSTRAP = 2000


class ExtractOnce(ClaimExtractor):
    """The claims of each output extracted once and shared by both modes' judges, so the
    modes differ in verification alone."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.done: dict[str, Claims] = {}

    async def extract(self, output: str, *, goal: str = "") -> Claims:
        if output not in self.done:
            self.done[output] = await super().extract(output, goal=goal)
        return self.done[output]


def verdict_row(judgment: Judgment, seconds: float) -> dict[str, Any]:
    report = ClaimsReport.of(judgment)
    usage = judgment.usage
    return {
        "status": judgment.status.value,
        "score": judgment.score.value if judgment.score is not None else None,
        "p_mean": report.p_supported_mean if report is not None else None,
        "claims": report.total_claims if report is not None else 0,
        "errored": report.errored_claims if report is not None else 0,
        "invented_quotes": report.invented_quotes if report is not None else 0,
        "reasked": len(report.reasked_claims or ()) if report is not None else 0,
        "mode": report.mode if report is not None else None,
        "calls": usage.calls if usage else 0,
        "input_tokens": usage.input_tokens if usage else 0,
        "output_tokens": usage.output_tokens if usage else 0,
        "seconds": round(seconds, 2),
    }


async def judge_row(
    row: dict[str, Any], index: int, extractor: ExtractOnce, judges: dict[str, FaithfulnessJudge]
) -> dict[str, Any]:
    ctx = Context(GOAL, output=row["output"], context=row["source"])
    started = time.perf_counter()
    claims = await extractor.extract(row["output"], goal=GOAL)
    extraction_s = time.perf_counter() - started
    result: dict[str, Any] = {
        "id": row["id"],
        "doc_id": row["doc_id"],
        "human": row["human_scores"]["consistency"],
        "extraction": {"method": claims.extraction.value, "seconds": round(extraction_s, 2)},
    }
    order = MODES if index % 2 == 0 else MODES[::-1]
    for mode in order:
        began = time.perf_counter()
        judgment = await judges[mode].judge(ctx)
        # Verification time plus the shared extraction: what one verdict costs in this mode.
        result[mode] = verdict_row(judgment, time.perf_counter() - began + extraction_s)
    return result


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.spearmanr(x, y).statistic)


def auc(x: np.ndarray, y: np.ndarray) -> float:
    """P(a summary rated fully consistent scores above one that is not), ties half."""
    positives, negatives = x[y >= 5], x[y < 5]
    if not len(positives) or not len(negatives):
        return float("nan")
    greater = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(positives) * len(negatives)))


def signal(results: list[dict[str, Any]], mode: str, key: str) -> np.ndarray:
    # A verdict with no score (ERROR, or no claim to check) ranks as the least faithful.
    return np.array([r[mode][key] if r[mode][key] is not None else 0.0 for r in results])


def clustered(results: list[dict[str, Any]], fn: Any) -> tuple[float, float, float]:
    """fn(results) and its bootstrap 95% interval, resampling whole articles."""
    by_article: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        by_article[r["doc_id"]].append(r)
    articles = sorted(by_article)
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(BOOTSTRAP):
        drawn = rng.choice(len(articles), len(articles))
        sample = [r for i in drawn for r in by_article[articles[i]]]
        value = fn(sample)
        if not np.isnan(value):
            samples.append(value)
    if not samples:
        return fn(results), float("nan"), float("nan")
    low, high = np.percentile(samples, [2.5, 97.5])
    return fn(results), float(low), float(high)


def statistic(mode: str, key: str, measure: Any) -> Any:
    def fn(sample: list[dict[str, Any]]) -> float:
        x, y = signal(sample, mode, key), np.array([r["human"] for r in sample])
        if len(set(x)) < 2 or len(set(y)) < 2:
            return float("nan")
        return float(measure(x, y))

    return fn


def difference(key: str, measure: Any) -> Any:
    def fn(sample: list[dict[str, Any]]) -> float:
        together = statistic("together", key, measure)(sample)
        return together - statistic("per_claim", key, measure)(sample)

    return fn


def interval(value: tuple[float, float, float], signed: bool = True) -> str:
    form = "{:+.3f}" if signed else "{:.3f}"
    low, high = form.format(value[1]), form.format(value[2])
    return f"{form.format(value[0])} [{low}, {high}]"


def out_of_fold(results: list[dict[str, Any]]) -> list[str]:
    """Two folds of articles: each picks the mode with the higher Spearman of the score on
    the other fold, and is scored with it."""
    articles = sorted({r["doc_id"] for r in results})
    folds = [set(articles[0::2]), set(articles[1::2])]
    lines = []
    for k, held in enumerate(folds):
        train = [r for r in results if r["doc_id"] not in held]
        test = [r for r in results if r["doc_id"] in held]
        on_train = {m: statistic(m, "score", spearman)(train) for m in MODES}
        picked = max(MODES, key=lambda m: -1.0 if np.isnan(on_train[m]) else on_train[m])
        held_out = statistic(picked, "score", spearman)(test)
        lines.append(
            f"fold {k + 1} ({len(test)} summaries) picks {picked} from the other fold "
            f"(Spearman there: per claim {on_train['per_claim']:+.3f}, together "
            f"{on_train['together']:+.3f}); on its own summaries it scores {held_out:+.3f}"
        )
    return lines


def report(results: list[dict[str, Any]], command: str) -> None:
    human = np.array([r["human"] for r in results])
    articles = len({r["doc_id"] for r in results})
    print("## Faithfulness: per claim vs together\n")
    print(f"- command: `{command}`")
    print(
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {platform.system()}"
    )
    print(
        f"- {len(results)} summaries of {articles} articles; {int((human >= 5).sum())} rated "
        f"fully consistent (5); 95% intervals resample articles ({BOOTSTRAP} draws)\n"
    )
    print("| | per claim | together | together - per claim |")
    print("| --- | --- | --- | --- |")
    for key, name in (("score", "score (supported / claims)"), ("p_mean", "mean P(supported)")):
        cells = [interval(clustered(results, statistic(m, key, spearman))) for m in MODES]
        gap = interval(clustered(results, difference(key, spearman)))
        print(f"| Spearman, {name} | {cells[0]} | {cells[1]} | {gap} |")
        cells = [interval(clustered(results, statistic(m, key, auc)), False) for m in MODES]
        gap = interval(clustered(results, difference(key, auc)))
        print(f"| AUC 5 vs rest, {name} | {cells[0]} | {cells[1]} | {gap} |")
    rows = {
        "model calls per verdict": lambda m: statistics.fmean(r[m]["calls"] for r in results),
        "max calls for one verdict": lambda m: max(r[m]["calls"] for r in results),
        "seconds per verdict (mean)": lambda m: statistics.fmean(r[m]["seconds"] for r in results),
        "seconds per verdict (P95)": lambda m: float(
            np.percentile([r[m]["seconds"] for r in results], 95)
        ),
        "tokens per verdict (in + out)": lambda m: statistics.fmean(
            r[m]["input_tokens"] + r[m]["output_tokens"] for r in results
        ),
        "claims re-asked alone": lambda m: sum(r[m]["reasked"] for r in results),
        "verdicts ERROR": lambda m: sum(r[m]["status"] == "error" for r in results),
        "invented quotes": lambda m: sum(r[m]["invented_quotes"] for r in results),
    }
    for name, fn in rows.items():
        print(f"| {name} | {fn('per_claim'):.2f} | {fn('together'):.2f} | |")
    claims = [r["per_claim"]["claims"] for r in results]
    print(f"\nclaims per summary: mean {statistics.fmean(claims):.2f}, max {max(claims)}")
    for line in out_of_fold(results):
        print(f"- {line}")


async def run(args: argparse.Namespace, chosen: list[dict[str, Any]], done: dict[str, Any]) -> None:
    model = get_model(args.model, settings=Settings(JURIST_CACHE="0"))
    extractor = ExtractOnce(model)
    judges = {
        mode: FaithfulnessJudge(model, together=mode == "together", extractor=extractor)
        for mode in MODES
    }
    with args.out.open("a", encoding="utf-8") as sink:
        for index, row in enumerate(chosen):
            if row["id"] in done:
                continue
            result = await judge_row(row, index, extractor, judges)
            done[row["id"]] = result
            sink.write(json.dumps(result) + "\n")
            sink.flush()
            print(
                f"[{index + 1}/{len(chosen)}] {row['id']} human {result['human']:.2f} "
                + "  ".join(
                    f"{m}: {result[m]['status']} {result[m]['score']} "
                    f"{result[m]['calls']} calls {result[m]['seconds']:.1f} s"
                    for m in MODES
                ),
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=10)
    parser.add_argument("--per-article", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default="local:qwen2.5-1.5b")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "faithfulness-modes.jsonl"
    )
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--report", action="store_true", help="print the stored results")
    args = parser.parse_args()
    chosen = items(DATA, args.articles, args.per_article, args.seed)
    done: dict[str, Any] = {}
    if (args.resume or args.report) and args.out.exists():
        for line in args.out.read_text("utf-8").splitlines():
            stored = json.loads(line)
            done[stored["id"]] = stored
    elif args.out.exists():
        args.out.unlink()
    if not args.report:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        asyncio.run(run(args, chosen, done))
    results = [done[row["id"]] for row in chosen if row["id"] in done]
    if results:
        report(results, "uv run python " + " ".join(["bench/faithfulness_modes.py", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
