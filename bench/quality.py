"""Judgment quality by method, on human-rated summaries (the methods' harness).

Each method (`jurist calibrate --method`) scores the shipped SummEval calibration set
with the chosen model; every run is stored, so a rerun resumes and only judges what is
missing. Printed, one row per method and dimension: Spearman and Kendall, over all items and
averaged per document, with bootstrap 95% intervals (and pooled Pearson, which the Pearson target
reads); for telling the outputs humans rated at the top of the scale from the rest, the AUC
of the score and the balanced accuracy of "the score rounds to the top"; seconds and model
calls per item.

Then two rows per dimension that are out of fold by construction (see
`jurist.calibration.choose_out_of_fold` and `fit_alignment`):
- `chosen`: each document scored by the method (or aggregate) that ranks the *other*
  documents best, so picking the best method is never done on the items it is reported on;
- `aligned`: a linear map from the chosen methods' signals for that dimension to the human
  score, fitted on the other folds (GroupKFold by document) and scored on the held-out one.
And the line the issue's targets read: the average `chosen` Spearman over the dimensions.

`--limit N` scores the first N items (the file keeps each document's four summaries
together, so N = 40 is ten whole documents). `--run METHOD=NAME[+NAME...]` reads stored runs
of those names (merged, on the dataset's items only) instead of running
`quality-METHOD-MODEL-N`. `METHOD@DIM+DIM` scores only those dimensions (for the methods
built on the rubric, whose cost grows with each criterion: `anchored@coherence+fluency`).

With both `coverage` and `focus` among the methods, a `coverage:focus` row scores relevance
as CoverageJudge(off_topic=True) does, from the two runs (see `coverage_with_focus`).

Run: uv run python bench/quality.py [--methods plain,claims,coverage,focus,sentences]
     [--limit N] [--model local:qwen2.5-1.5b] [--database URL] [--run plain=summeval-qwen1.5b]
"""

import argparse
import asyncio
import dataclasses
import random
import re
import statistics
from collections.abc import Mapping
from pathlib import Path

from jurist.calibration import (
    CalibrationMethod,
    CalibrationReport,
    calibrate,
    calibration_dataset,
    choose_out_of_fold,
    cost_of,
    cost_per_item,
    fit_alignment,
    judge_scores,
    method_named,
    ratings_report,
    seconds_of,
)
from jurist.core import Judgment, Usage
from jurist.data import LabelledDataset, summeval_100_path
from jurist.judges import ClaimsReport, relevance_f1
from jurist.rubrics import get_rubric
from jurist.runner import RunResult, load_run
from jurist.settings import get_settings
from jurist.store import RecordStore

DATA = summeval_100_path()  # the calibration set shipped in the package
GOAL = "Summarise the article."
# Other readings of a method's stored judgments that the out-of-fold choice may pick from.
VARIANTS = {"claims": ["claims:mean", "claims:share"]}


@dataclasses.dataclass
class Scored:
    method: str
    report: CalibrationReport
    scores: dict[str, dict[str, float | None]]
    signals: dict[str, dict[str, float]]
    judgments: Mapping[str, Judgment] = dataclasses.field(default_factory=dict)


def run_name(method: str, model: str, limit: int | str | None) -> str:
    slug = re.sub(r"[^a-z0-9.]+", "-", f"{method}-{model}".lower()).strip("-")
    return f"quality-{slug}-{limit or 'all'}"


async def stored(names: str, dataset: LabelledDataset, database: str | None) -> RunResult:
    wanted = {item.id for item in dataset.ratings}
    runs: list[RunResult] = []
    async with await RecordStore.open(database) as store:
        for name in names.split("+"):
            runs.append(await load_run(store, name))
    kept = {k: v for run in runs for k, v in run.judgments.items() if k in wanted}
    return dataclasses.replace(runs[0], judgments=kept)


def subset(dataset: LabelledDataset, articles: int, per_article: int, seed: int) -> LabelledDataset:
    """`per_article` outputs of each of `articles` documents, both drawn with `seed`, in the
    file's order: whole documents, so every per-document figure and out-of-fold split sees
    all of a document's items or none."""
    by_doc: dict[str, list[str]] = {}
    for item in dataset.ratings:
        by_doc.setdefault(item.doc_id or item.id, []).append(item.id)
    draw = random.Random(seed)
    docs = draw.sample(sorted(by_doc), min(articles, len(by_doc)))
    kept = {i for doc in docs for i in draw.sample(by_doc[doc], min(per_article, len(by_doc[doc])))}
    return dataclasses.replace(
        dataset, items=tuple(item for item in dataset.items if item.id in kept)
    )


def dataset_of(args: argparse.Namespace) -> LabelledDataset:
    dataset = calibration_dataset(args.data, args.limit)
    if args.articles is not None:
        dataset = subset(dataset, args.articles, args.per_article, args.seed)
    return dataset


def size_of(args: argparse.Namespace) -> str | None:
    """What the run names say of the items: the limit, or the seeded subset."""
    if args.articles is not None:
        return f"{args.data.stem}-{args.articles}x{args.per_article}-seed{args.seed}"
    return str(args.limit) if args.limit else None


async def judged(method: str, args: argparse.Namespace, named: dict[str, str]) -> RunResult:
    dataset = dataset_of(args)
    if method in named:
        return await stored(named[method], dataset, args.database)
    # METHOD@DIM+DIM: the method on those dimensions only (the rubric-based ones take any).
    method, _, only = method.partition("@")
    name = run_name(method + (f"-{only}" if only else ""), args.model, size_of(args))
    async with await RecordStore.open(args.database) as store:
        exists = await store.get_run(name) is not None
        done = await calibrate(
            dataset,
            "summarization",
            dimensions=only.split("+") if only else (),
            model=args.model,
            goal=GOAL,
            store=store,
            name=None if exists else name,
            run=name if exists else None,
            resume=exists,
            method=method,
        )
    return done.run


def scored(method: str, run: RunResult, dataset: LabelledDataset, model: str, label: str) -> Scored:
    scorer: CalibrationMethod = method_named(method)
    scores, seconds = judge_scores(run, scorer)
    signals: dict[str, dict[str, float]] = {}
    for item_id, judgment in run.judgments.items():
        reading = scorer.read(judgment)
        if reading is not None:
            signals[item_id] = dict(reading.signals)
    wanted = [item.id for item in dataset.ratings]
    rated = list(dataset.dimensions)
    report = ratings_report(
        dataset,
        {item_id: scores.get(item_id, {}) for item_id in wanted},
        judge=label,
        model=model,
        # A run on some dimensions only (METHOD@DIM) reports those.
        dimensions=[
            d
            for d in scorer.dimensions(get_rubric("summarization"), rated, ())
            if any(v.get(d) is not None for v in scores.values())
        ],
        latencies=seconds or None,
    )
    report = report.model_copy(update={"cost": cost_per_item(run)})
    return Scored(method, report, scores, signals, run.judgments)


def coverage_with_focus(
    coverage: Scored, focus: Scored, dataset: LabelledDataset, model: str
) -> Scored | None:
    """Relevance as `coverage:focus` scores it (the harmonic mean of coverage and focus,
    `relevance_f1`) from a stored coverage run and a stored focus run of the same items:
    the same key facts (one extraction per source at temperature 0), the same checks, so
    the same score, without judging every item a third time. Seconds and calls are the
    two runs' sums, so they count the key-fact extraction twice per document where the
    combined judge pays for it once."""
    scores: dict[str, dict[str, float | None]] = {}
    signals: dict[str, dict[str, float]] = {}
    seconds: list[float] = []
    usages: list[Usage] = []
    for item in dataset.ratings:
        first, second = coverage.judgments.get(item.id), focus.judgments.get(item.id)
        if first is None or second is None:
            continue
        found = {**coverage.signals.get(item.id, {}), **focus.signals.get(item.id, {})}
        known = "relevance.coverage" in found and "relevance.focus" in found
        value = (
            relevance_f1(found["relevance.coverage"], found["relevance.focus"]) if known else None
        )
        scores[item.id] = {"relevance": None if value is None else 1.0 + 4.0 * value}
        signals[item.id] = found
        spent = [seconds_of(first), seconds_of(second)]
        if all(s is not None for s in spent):
            seconds.append(sum(s for s in spent if s is not None))
        used = Usage.total([first.usage, second.usage])
        if used is not None:
            usages.append(used)
    cost = cost_of(usages)
    if not scores or cost is None:
        return None
    report = ratings_report(
        dataset,
        {item.id: scores.get(item.id, {}) for item in dataset.ratings},
        judge="coverage:focus (from the coverage and focus runs)",
        model=model,
        dimensions=["relevance"],
        latencies=seconds or None,
    )
    return Scored("coverage:focus", report.model_copy(update={"cost": cost}), scores, signals)


def rubric_default(results: list[Scored], dataset: LabelledDataset, model: str) -> Scored | None:
    """The summarization rubric as `jurist judge` scores it by default (each criterion by
    the method the rubric names), from the stored runs of those methods: the same judges
    and the same readings (`jurist.judges.claims_scores` and the others), so the same
    scores as `--method rubric`, without judging every item again. Seconds and calls are
    the runs' sums per item (the rubric judge runs them concurrently, one generation at a
    time on the embedded model). None unless every named method was run."""
    named = {c.name: c.method_name for c in get_rubric("summarization").criteria}
    by_method = {r.method: r for r in results}
    if not all(m in by_method for m in named.values()):
        return None
    scores: dict[str, dict[str, float | None]] = {}
    signals: dict[str, dict[str, float]] = {}
    seconds: list[float] = []
    usages: list[Usage] = []
    runs = {id(by_method[m]): by_method[m] for m in named.values()}.values()
    for item in dataset.ratings:
        judged = [r.judgments.get(item.id) for r in runs]
        if any(j is None for j in judged):
            continue
        scores[item.id] = {
            dimension: by_method[method].scores.get(item.id, {}).get(dimension)
            for dimension, method in named.items()
        }
        signals[item.id] = {
            k: v
            for dimension, method in named.items()
            for k, v in by_method[method].signals.get(item.id, {}).items()
            if k.startswith(f"{dimension}.")
        }
        spent = [seconds_of(j) for j in judged if j is not None]
        if all(s is not None for s in spent):
            seconds.append(sum(s for s in spent if s is not None))
        used = Usage.total([j.usage for j in judged if j is not None])
        if used is not None:
            usages.append(used)
    cost = cost_of(usages)
    if not scores or cost is None:
        return None
    report = ratings_report(
        dataset,
        {item.id: scores.get(item.id, {}) for item in dataset.ratings},
        judge=f"rubric (default: {named}, from those runs)",
        model=model,
        dimensions=list(named),
        latencies=seconds or None,
    )
    return Scored("rubric", report.model_copy(update={"cost": cost}), scores, signals)


def out_of_fold(
    dataset: LabelledDataset, results: list[Scored], model: str
) -> list[CalibrationReport]:
    """The `chosen` and `aligned` reports: every figure out of fold."""
    items = dataset.ratings
    groups = [item.doc_id for item in items]
    chosen: dict[str, dict[str, float | None]] = {item.id: {} for item in items}
    aligned: dict[str, dict[str, float | None]] = {item.id: {} for item in items}
    picks: dict[str, dict[str, int]] = {}
    for dimension in dataset.dimensions:
        offering = [r for r in results if dimension in r.report.dimensions]
        if not offering:
            continue
        human = [item.human_scores.get(dimension) for item in items]
        candidates = {
            r.method: [r.scores.get(item.id, {}).get(dimension) for item in items] for r in offering
        }
        choice = choose_out_of_fold(candidates, human, groups=groups)
        picks[dimension] = choice.counts()
        for item, value in zip(items, choice.predictions, strict=True):
            chosen[item.id][dimension] = value
        # The alignment maps every signal the offering methods give for this dimension, on
        # the items that have them all.
        rows: list[tuple[int, dict[str, float]]] = []
        for i, item in enumerate(items):
            row: dict[str, float] = {}
            for r in offering:
                row.update(
                    {
                        k: v
                        for k, v in r.signals.get(item.id, {}).items()
                        if k.startswith(f"{dimension}.")
                    }
                )
            rows.append((i, row))
        names = set.intersection(*(set(row) for _, row in rows if row)) if rows else set()
        usable = [(i, row) for i, row in rows if row and names <= set(row)]
        if names and len({groups[i] for i, _ in usable}) >= 5:
            fitted = fit_alignment(
                [{n: row[n] for n in sorted(names)} for _, row in usable],
                [float(items[i].human_scores[dimension]) for i, _ in usable],
                method="linear",
                folds=5,
                groups=[groups[i] for i, _ in usable],
            )
            assert fitted.validation is not None  # fit_alignment always validates
            for (i, _), value in zip(usable, fitted.validation.out_of_fold, strict=True):
                aligned[items[i].id][dimension] = value
    reports = [
        ratings_report(dataset, chosen, judge=f"chosen out of fold {picks}", model=model),
        ratings_report(dataset, aligned, judge="linear alignment, out of fold", model=model),
    ]
    return reports


def rows(method: str, report: CalibrationReport) -> list[str]:
    out = []
    latency = report.latency  # None for the out-of-fold rows, which time nothing
    shown = f"{latency.mean:.1f}; P95 {latency.p95:.1f}" if latency is not None else "-"
    calls = f"{report.cost.calls:.1f}" if report.cost is not None else "-"
    for dimension, result in report.dimensions.items():
        pooled = result.correlations.pooled
        grouped = result.correlations.per_group
        per_doc = grouped.spearman.format() if grouped is not None else "-"
        top = result.top
        auc = "-"
        if top is not None:
            rated_top = top.counts.true_positive + top.counts.false_negative
            auc = (
                f"{top.auc.format(signed=False)}; "
                f"{top.balanced_accuracy.format(signed=False)} ({rated_top} of {top.n})"
            )
        out.append(
            f"| {dimension} | {method} | {pooled.spearman.format()} | {pooled.kendall.format()} "
            f"| {pooled.pearson.format()} "
            f"| {per_doc} | {auc} | {shown} | {calls} |"
        )
    return out


def average_spearman(report: CalibrationReport) -> str:
    values = {
        d: r.correlations.pooled.spearman.value
        for d, r in report.dimensions.items()
        if r.correlations.pooled.spearman.value is not None
    }
    known = list(values.values())
    if not known:
        return "-"
    worst = min(values, key=lambda d: values[d])
    per_doc = [
        grouped.spearman.value
        for r in report.dimensions.values()
        if (grouped := r.correlations.per_group) is not None and grouped.spearman.value is not None
    ]
    averaged = f"; per document {statistics.fmean(per_doc):+.2f}" if per_doc else ""
    return (
        f"{statistics.fmean(known):+.2f} pooled over {len(known)} dimensions "
        f"(lowest: {worst}){averaged}"
    )


def traceability(run: RunResult) -> str | None:
    """How many of the claims the model listed the output itself states: a listed claim
    whose numbers, or most of whose content words, the output lacks is left out and counted
    here as untraceable; claims the exact checks decided count like the others."""
    kept = dropped = exact = outputs = 0
    for judgment in run.judgments.values():
        report = ClaimsReport.of(judgment)
        if report is None:
            continue
        outputs += 1
        kept += report.total_claims
        dropped += len(report.untraceable_claims or ())
        exact += sum(1 for row in report.claims if row.method == "exact")
    listed = kept + dropped
    if not listed:
        return None
    return (
        f"claims traceable to the output: {kept} of {listed} listed "
        f"({kept / listed:.1%}) on {outputs} outputs; {exact} of the {kept} kept were "
        f"decided by the exact checks"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="plain,claims,coverage,focus,sentences")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--model", default=get_settings().model)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--database", default=None)
    parser.add_argument("--run", action="append", default=[], help="METHOD=RUN_NAME[+RUN...]")
    parser.add_argument(
        "--articles", type=int, default=None, help="score a seeded subset of N documents"
    )
    parser.add_argument("--per-article", type=int, default=4, help="outputs per document")
    parser.add_argument("--seed", type=int, default=0, help="the subset's seed")
    args = parser.parse_args()
    named: Mapping[str, str] = dict(item.split("=", 1) for item in args.run)
    dataset = dataset_of(args)
    lines = [
        f"SummEval, {len(dataset.ratings)} items, {args.model}",
        "",
        "| dimension | method | Spearman | Kendall | Pearson | Spearman per document | top-rated "
        "vs rest: AUC; balanced accuracy | s/item: mean; P95 | calls/item |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    results: list[Scored] = []
    notes: list[str] = []
    for asked in args.methods.split(","):
        run = asyncio.run(judged(asked, args, dict(named)))
        method = asked.partition("@")[0]
        if method == "claims" and (traced := traceability(run)) is not None:
            notes.append(traced)
        for variant in [method, *VARIANTS.get(method, [])]:
            label = f"{variant} ({named[method]})" if method in named else variant
            done = scored(variant, run, dataset, args.model, label)
            results.append(done)
            lines += rows(variant, done.report)
    by_method = {r.method: r for r in results}
    if "coverage" in by_method and "focus" in by_method:
        both = coverage_with_focus(by_method["coverage"], by_method["focus"], dataset, args.model)
        if both is not None:
            results.append(both)
            lines += rows(f"{both.method} (F1 of the two runs)", both.report)
    default = rubric_default(results, dataset, args.model)
    if default is not None:
        lines += rows("rubric (the default, from the runs)", default.report)
        lines.append(f"\nrubric (default): average Spearman {average_spearman(default.report)}\n")
    for report in out_of_fold(dataset, results, args.model):
        name = "chosen" if report.judge.startswith("chosen") else "aligned"
        lines += rows(name, report)
        lines.append(f"\n{report.judge}: average Spearman {average_spearman(report)}\n")
    print("\n".join([*lines, "", *notes]))


if __name__ == "__main__":
    main()
