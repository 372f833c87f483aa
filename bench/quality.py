"""Judgment quality by method, on human-rated summaries (issue #9's harness).

Each method (`jurist calibrate --method`) scores ../shared/data/calibration/summeval-100.jsonl
with the chosen model; every run is stored, so a rerun resumes and only judges what is
missing. Printed, one row per method and dimension: Spearman and Kendall, over all items and
averaged per document, with bootstrap 95% intervals; AUC for telling the outputs humans rated
at the top of the scale from the rest; seconds and model calls per item.

`--limit N` scores the first N items (the file keeps each document's four summaries
together, so N = 40 is ten whole documents). `--run METHOD=NAME` reads a stored run of that
name (on the dataset's items only) instead of running `quality-METHOD-MODEL-N`.

Run: uv run python bench/quality.py [--methods plain,claims,coverage] [--limit N]
     [--model local:qwen2.5-1.5b] [--database URL] [--run plain=summeval-qwen1.5b]
"""

import argparse
import asyncio
import dataclasses
import re
from pathlib import Path

from jurist.calibration import CalibrationReport, ratings_report
from jurist.rubrics import get_rubric
from jurist.runner import load_run
from jurist.runner._calibrate import calibrate, calibration_dataset, cost_per_item, judge_scores
from jurist.runner._methods import method_named
from jurist.settings import get_settings
from jurist.store import RecordStore

DATA = Path(__file__).parents[2] / "shared" / "data" / "calibration" / "summeval-100.jsonl"
GOAL = "Summarise the article."


def run_name(method: str, model: str, limit: int | None) -> str:
    slug = re.sub(r"[^a-z0-9.]+", "-", f"{method}-{model}".lower()).strip("-")
    return f"quality-{slug}-{limit or 'all'}"


async def one(method: str, args: argparse.Namespace, named: dict[str, str]) -> CalibrationReport:
    dataset = calibration_dataset(args.data, args.limit)
    if method in named:  # a stored run, read on this dataset's items only
        async with await RecordStore.open(args.database) as store:
            stored = await load_run(store, named[method])
        scorer = method_named(method)
        wanted = {item.id for item in dataset.ratings}
        kept = dataclasses.replace(
            stored, judgments={k: v for k, v in stored.judgments.items() if k in wanted}
        )
        scores, seconds = judge_scores(kept, scorer)
        report = ratings_report(
            dataset,
            {item_id: scores.get(item_id, {}) for item_id in wanted},
            judge=f"{method} (stored run {named[method]})",
            model=args.model,
            dimensions=scorer.dimensions(get_rubric("summarization"), list(dataset.dimensions), ()),
            latencies=seconds or None,
        )
        return report.model_copy(update={"cost": cost_per_item(kept)})
    name = run_name(method, args.model, args.limit)
    async with await RecordStore.open(args.database) as store:
        exists = await store.get_run(name) is not None
        done = await calibrate(
            dataset,
            "summarization",
            model=args.model,
            goal=GOAL,
            store=store,
            name=None if exists else name,
            run=name if exists else None,
            resume=exists,
            method=method,
        )
    return done.report


def rows(method: str, report: CalibrationReport) -> list[str]:
    out = []
    seconds = f"{report.latency.mean:.1f}" if report.latency is not None else "-"
    calls = f"{report.cost.calls:.1f}" if report.cost is not None else "-"
    for dimension, result in report.dimensions.items():
        pooled = result.correlations.pooled
        grouped = result.correlations.per_group
        per_doc = grouped.spearman.format() if grouped is not None else "-"
        top = result.top
        auc = "-"
        if top is not None:
            rated_top = top.counts.true_positive + top.counts.false_negative
            auc = f"{top.auc.format(signed=False)} ({rated_top} of {top.n})"
        out.append(
            f"| {dimension} | {method} | {pooled.spearman.format()} | {pooled.kendall.format()} "
            f"| {per_doc} | {auc} | {seconds} | {calls} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="plain,claims,coverage")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--model", default=get_settings().model)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--database", default=None)
    parser.add_argument("--run", action="append", default=[], help="METHOD=RUN_NAME")
    args = parser.parse_args()
    named = dict(item.split("=", 1) for item in args.run)
    lines = [
        f"SummEval, {args.limit or 100} items, {args.model}",
        "",
        "| dimension | method | Spearman | Kendall | Spearman per document | AUC, top-rated "
        "vs rest | s/item | calls/item |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for method in args.methods.split(","):
        lines += rows(method, asyncio.run(one(method, args, named)))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
