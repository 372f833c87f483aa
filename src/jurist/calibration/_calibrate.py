"""Calibration runs: a rubric judge over a ratings dataset, run and stored like any batch
run, with the report of how its scores agree with the human ones and how long each
evaluation took kept in the stored run's summary."""

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from jurist.calibration._align import fit_alignment
from jurist.calibration._method_names import method_named
from jurist.calibration._methods import CalibrationMethod, PlainRubric
from jurist.calibration._report import (
    CalibrationReport,
    CostPerItem,
    Target,
)
from jurist.calibration._report_builders import (
    ratings_report,
)
from jurist.calibration._saved_alignments import (
    FittedAlignment,
    aligned_scores,
    item_signals,
    load_alignment,
)
from jurist.core import Usage
from jurist.data import DatasetKind, LabelledDataset, dataset_from_rows, load_labelled
from jurist.llm import Model
from jurist.rubrics import Rubric, get_rubric
from jurist.runner import Progress, RunResult, evaluate
from jurist.settings import get_settings
from jurist.store import RecordStore

# Where a stored run keeps its calibration report, beside the batch summary.
REPORT_KEY = "calibration"


@dataclasses.dataclass(frozen=True)
class Calibration:
    """The report; the run behind it; and, when saved alignments of the rubric's dimensions
    were fitted on other data, the report of the aligned scores (alignments fitted on this
    very dataset are left out: scoring them here would be in-sample)."""

    report: CalibrationReport
    run: RunResult
    aligned: CalibrationReport | None = None


def calibration_dataset(path: str | Path, limit: int | None = None) -> LabelledDataset:
    """The ratings dataset at `path`, its first `limit` items when given."""
    dataset = load_labelled(path, DatasetKind.RATINGS)
    if limit is not None:
        if limit < 1:
            raise ValueError(f"--limit must be at least 1, got {limit}")
        dataset = dataclasses.replace(dataset, items=dataset.items[:limit])
    return dataset


def rubric_dimensions(
    dataset: LabelledDataset, rubric: Rubric, dimensions: Sequence[str] = ()
) -> list[str]:
    """The dimensions to calibrate: those asked for, else every rubric criterion the
    dataset rates. Each must be both a criterion of the rubric and a rated dimension."""
    return PlainRubric().dimensions(rubric, list(dataset.dimensions), dimensions)


def judge_scores(
    run: RunResult, method: CalibrationMethod | None = None
) -> tuple[dict[str, dict[str, float | None]], list[float]]:
    """Per item, each dimension's score by `method` (the plain rubric by default; None for
    an item that errored: a missing score, never a zero), and the seconds each scored item
    took."""
    reader = method or PlainRubric()
    scores: dict[str, dict[str, float | None]] = {}
    seconds: list[float] = []
    for item_id, judgment in run.judgments.items():
        reading = reader.read(judgment)
        if reading is None:
            scores[item_id] = {}
            continue
        scores[item_id] = dict(reading.scores)
        if reading.seconds is not None:
            seconds.append(reading.seconds)
    return scores, seconds


async def calibrate(
    dataset: LabelledDataset,
    rubric: Rubric | str,
    *,
    dimensions: Sequence[str] = (),
    model: Model | str | None = None,
    model_name: str | None = None,
    goal: str = "",
    concurrency: int = 1,
    store: RecordStore | None = None,
    name: str | None = None,
    resume: bool = False,
    run: str | None = None,
    progress: Progress | None = None,
    target: Target | None = None,
    n_boot: int = 1000,
    method: CalibrationMethod | str = "plain",
    cluster: str | None = None,
) -> Calibration:
    """Scores every item by `method` (by default the rubric's chosen criteria, G-Eval, one
    call per criterion; see `method_named`) and reports the agreement with the
    human scores. With a store, the run is stored like any `jurist eval` run (so it can be
    resumed) and the report is kept with it. `cluster` judges the items on a Dask cluster
    (see `jurist.runner.evaluate`)."""
    chosen_rubric = rubric if isinstance(rubric, Rubric) else get_rubric(rubric)
    scorer = method_named(method) if isinstance(method, str) else method
    chosen = scorer.dimensions(chosen_rubric, list(dataset.dimensions), dimensions)
    scorer.prepare(dataset)
    judge = scorer.judge(chosen_rubric, chosen, model)
    rows = [
        {"id": item.id, "goal": goal, "output": item.output, "context": item.source}
        for item in dataset.ratings
    ]
    about = f"rubric:{chosen_rubric.id}" if scorer.name == "plain" else scorer.name
    reports: list[CalibrationReport] = []

    def report_of(result: RunResult) -> dict[str, Any]:
        scores, seconds = judge_scores(result, scorer)
        report = ratings_report(
            dataset,
            scores,
            judge=f"{about} ({', '.join(chosen)})",
            model=model_name or _model_name(model),
            dimensions=chosen,
            latencies=seconds or None,
            target=target,
            n_boot=n_boot,
        )
        reports.append(report.model_copy(update={"cost": cost_per_item(result)}))
        return {REPORT_KEY: reports[-1].model_dump(mode="json")}

    result = await evaluate(
        dataset_from_rows(rows),
        judge,
        concurrency=concurrency,
        store=store,
        run=run,
        name=name,
        resume=resume,
        progress=progress,
        keep=report_of,
        cluster=cluster,
    )
    report = reports[-1]
    # Saved alignments map a rubric judge's signals, scored plainly or by the criteria's
    # methods: each applies to the scoring it was fitted on; other methods have other signals.
    scoring = scorer.METHODS if isinstance(scorer, PlainRubric) else None
    alignments = {
        dimension: fitted
        for dimension in (chosen if scoring is not None else [])
        if (fitted := load_alignment(chosen_rubric.id, dimension)) is not None
        and fitted.methods == scoring
        and fitted.dataset_sha256 != dataset.sha256
    }
    aligned = None
    if alignments:
        aligned = ratings_report(
            dataset,
            aligned_scores(result, alignments),
            judge=f"rubric:{chosen_rubric.id}, aligned ({', '.join(alignments)})",
            model=report.model,
            dimensions=list(alignments),
            target=target,
            n_boot=n_boot,
        )
    return Calibration(report, result, aligned)


def cost_per_item(run: RunResult) -> CostPerItem | None:
    """Model calls and tokens per judged item (errors included: they cost too)."""
    return cost_of([j.usage for j in run.judgments.values() if j.usage is not None])


def cost_of(usages: Sequence[Usage]) -> CostPerItem | None:
    """Model calls and tokens per item, one usage an item."""
    if not usages:
        return None
    n = len(usages)
    return CostPerItem(
        items=n,
        calls=sum(u.calls for u in usages) / n,
        input_tokens=sum(u.input_tokens for u in usages) / n,
        output_tokens=sum(u.output_tokens for u in usages) / n,
    )


def _model_name(model: Model | str | None) -> str:
    if model is None:
        return get_settings().model
    return model if isinstance(model, str) else model.name


async def stored_report(store: RecordStore, run: str) -> CalibrationReport:
    """The calibration report kept with run `run` (its id or name)."""
    stored = await store.get_run(run)
    if stored is None:
        raise LookupError(f"no run {run!r}")
    summary: Mapping[str, Any] = stored.summary or {}
    if REPORT_KEY not in summary:
        raise LookupError(f"run {run!r} is not a calibration run (it keeps no report)")
    return CalibrationReport.model_validate(summary[REPORT_KEY])


def fit_rubric_alignment(
    calibration: Calibration,
    dataset: LabelledDataset,
    *,
    rubric_id: str,
    dimension: str,
    method: Literal["isotonic", "linear"] = "isotonic",
    folds: int = 5,
    methods: Literal["rubric", "plain"] = "rubric",
) -> FittedAlignment:
    """Fits the judge's signals of a calibration run to the human scores of `dimension`,
    validated out of fold by document (GroupKFold on doc_id). `methods` says how the run
    scored the rubric (by each criterion's method, or plain), which the saved alignment
    records so that only a judge scoring the same way applies it."""
    items = []
    for item in dataset.ratings:
        judgment = calibration.run.judgments.get(item.id)
        signals = item_signals(judgment) if judgment is not None else None
        if signals is not None and dimension in item.human_scores:
            items.append((item, signals))
    if len(items) < folds * 2:
        raise ValueError(
            f"only {len(items)} items were scored on {dimension!r}: too few for {folds}-fold "
            "cross-validation"
        )
    alignment = fit_alignment(
        [signals for _, signals in items],
        [item.human_scores[dimension] for item, _ in items],
        method=method,
        signal=f"{dimension}.expected" if method == "isotonic" else None,
        folds=folds,
        groups=[item.doc_id for item, _ in items],
    )
    return FittedAlignment(
        rubric=rubric_id,
        dimension=dimension,
        model=calibration.report.model,
        dataset_sha256=dataset.sha256,
        n=len(items),
        alignment=alignment,
        methods=methods,
    )
