"""Calibration runs: a rubric judge over a ratings dataset, run and stored like any batch
run, then the report of how its scores agree with the human ones (QV-03) and how long each
evaluation took (QV-04)."""

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from jurist.calibration import (
    Alignment,
    CalibrationReport,
    CostPerItem,
    Dataset,
    DatasetKind,
    Target,
    fit_alignment,
    load_dataset,
    ratings_report,
)
from jurist.core import BaseJudge, Context, Judgment, Usage
from jurist.judges import RubricJudge
from jurist.llm import Model
from jurist.rubrics import Rubric, get_rubric
from jurist.runner._alignments import alignment_path
from jurist.runner._data import dataset_from_rows
from jurist.runner._engine import evaluate
from jurist.runner._method_names import method_named
from jurist.runner._methods import Method, PlainRubric
from jurist.runner._progress import Progress
from jurist.runner._results import RunResult
from jurist.settings import Settings, get_settings
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


def calibration_dataset(path: str | Path, limit: int | None = None) -> Dataset:
    """The ratings dataset at `path`, its first `limit` items when given."""
    dataset = load_dataset(path, DatasetKind.RATINGS)
    if limit is not None:
        if limit < 1:
            raise ValueError(f"--limit must be at least 1, got {limit}")
        dataset = dataclasses.replace(dataset, items=dataset.items[:limit])
    return dataset


def rubric_dimensions(
    dataset: Dataset, rubric: Rubric, dimensions: Sequence[str] = ()
) -> list[str]:
    """The dimensions to calibrate: those asked for, else every rubric criterion the
    dataset rates. Each must be both a criterion of the rubric and a rated dimension."""
    return PlainRubric().dimensions(rubric, list(dataset.dimensions), dimensions)


def judge_scores(
    run: RunResult, method: Method | None = None
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
    dataset: Dataset,
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
    method: Method | str = "plain",
) -> Calibration:
    """Scores every item by `method` (by default the rubric's chosen criteria, G-Eval, one
    call per criterion; see `jurist.runner._methods`) and reports the agreement with the
    human scores. With a store, the run is stored like any `jurist eval` run (so it can be
    resumed) and the report is kept with it."""
    chosen_rubric = rubric if isinstance(rubric, Rubric) else get_rubric(rubric)
    scorer = method_named(method) if isinstance(method, str) else method
    chosen = scorer.dimensions(chosen_rubric, list(dataset.dimensions), dimensions)
    scorer.prepare(dataset)
    judge = scorer.judge(chosen_rubric, chosen, model)
    rows = [
        {"id": item.id, "goal": goal, "output": item.output, "context": item.source}
        for item in dataset.ratings
    ]
    result = await evaluate(
        dataset_from_rows(rows),
        judge,
        concurrency=concurrency,
        store=store,
        run=run,
        name=name,
        resume=resume,
        progress=progress,
    )
    scores, seconds = judge_scores(result, scorer)
    about = f"rubric:{chosen_rubric.id}" if scorer.name == "plain" else scorer.name
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
    report = report.model_copy(update={"cost": cost_per_item(result)})
    if store is not None and result.run_id is not None:
        await keep_report(store, result.run_id, report)
    # Saved alignments map the plain rubric's signals; other methods have other signals.
    alignments = {
        dimension: fitted
        for dimension in (chosen if scorer.name == "plain" else [])
        if (fitted := load_alignment(chosen_rubric.id, dimension)) is not None
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


async def keep_report(store: RecordStore, run_id: str, report: CalibrationReport) -> None:
    stored = await store.get_run(run_id)
    summary: dict[str, Any] = dict(stored.summary or {}) if stored is not None else {}
    summary[REPORT_KEY] = report.model_dump(mode="json")
    status = stored.status if stored is not None else "done"
    await store.finish_run(run_id, status, summary)


async def stored_report(store: RecordStore, run: str) -> CalibrationReport:
    """The calibration report kept with run `run` (its id or name)."""
    stored = await store.get_run(run)
    if stored is None:
        raise LookupError(f"no run {run!r}")
    summary: Mapping[str, Any] = stored.summary or {}
    if REPORT_KEY not in summary:
        raise LookupError(f"run {run!r} is not a calibration run (it keeps no report)")
    return CalibrationReport.model_validate(summary[REPORT_KEY])


# -- alignment: the judge's signals mapped to the human scale ------------------------------


def item_signals(judgment: Judgment, method: Method | None = None) -> dict[str, float] | None:
    """What a judgment offers an alignment (for the plain rubric: each criterion's expected
    score and confidence, and the overall score). None for an item that errored."""
    reading = (method or PlainRubric()).read(judgment)
    return None if reading is None else dict(reading.signals)


class FittedAlignment(BaseModel):
    """An alignment with what it was fitted on, so it is never scored on its own data."""

    rubric: str
    dimension: str
    model: str
    dataset_sha256: str
    n: int
    alignment: Alignment


def fit_rubric_alignment(
    calibration: Calibration,
    dataset: Dataset,
    *,
    rubric_id: str,
    dimension: str,
    method: Literal["isotonic", "linear"] = "isotonic",
    folds: int = 5,
) -> FittedAlignment:
    """Fits the judge's signals of a calibration run to the human scores of `dimension`,
    validated out of fold by document (GroupKFold on doc_id)."""
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
    )


def load_alignment(
    rubric_id: str, dimension: str, settings: Settings | None = None
) -> FittedAlignment | None:
    """The saved alignment of a rubric's dimension, if `jurist align` made one."""
    path = alignment_path(rubric_id, dimension, settings)
    if not path.is_file():
        return None
    return FittedAlignment.model_validate_json(path.read_text(encoding="utf-8"))


def aligned_scores(
    run: RunResult, alignments: Mapping[str, FittedAlignment]
) -> dict[str, dict[str, float | None]]:
    """Per item, each aligned dimension's score on the human scale (None when the item
    errored or lacks a signal the alignment needs)."""
    return {
        item_id: _aligned(item_signals(judgment), alignments)
        for item_id, judgment in run.judgments.items()
    }


def _aligned(
    signals: Mapping[str, float] | None, alignments: Mapping[str, FittedAlignment]
) -> dict[str, float | None]:
    row: dict[str, float | None] = {}
    for dimension, fitted in alignments.items():
        usable = signals is not None and all(n in signals for n in fitted.alignment.signals)
        row[dimension] = fitted.alignment.apply(signals) if usable and signals else None
    return row


class AlignedJudge(BaseJudge):
    """A rubric judge whose judgments also carry, in `metadata["aligned"]`, the score on the
    human scale of each saved alignment of the rubric (None where the judgment lacks a
    signal the alignment needs). The verdict and score stay the rubric's own."""

    def __init__(self, judge: RubricJudge, alignments: Mapping[str, FittedAlignment]) -> None:
        super().__init__(judge.name, judge.description)
        self.kind = judge.kind
        self.inner = judge
        self.alignments = dict(alignments)

    async def judge(self, ctx: Context) -> Judgment:
        judgment = await self.inner.judge(ctx)
        signals = item_signals(judgment)
        if signals is None:
            return judgment
        aligned = _aligned(signals, self.alignments)
        return judgment.evolve(metadata={**judgment.metadata, "aligned": aligned})


def with_saved_alignments(
    judge: RubricJudge, rubric_id: str, dimensions: Sequence[str], settings: Settings | None = None
) -> AlignedJudge:
    """`judge` with the saved alignments of `dimensions` applied to its judgments."""
    found = {d: load_alignment(rubric_id, d, settings) for d in dimensions}
    return AlignedJudge(judge, {d: fitted for d, fitted in found.items() if fitted is not None})
