"""`jurist calibrate`: how far to trust a rubric judge, measured against human ratings."""

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from jurist.cli._cluster import ClusterOption
from jurist.cli._command_line import command_line
from jurist.cli._exit import Exit, exit_interrupted
from jurist.cli._inputs import (
    BadInput,
    GoalOption,
    ModelOption,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
)
from jurist.cli._kb import DatabaseOption
from jurist.cli._render import output_console
from jurist.core import counted, run_sync
from jurist.data import DatasetError, summeval_100_path
from jurist.store import RecordStore, StoreError

if TYPE_CHECKING:
    from jurist.calibration import CalibrationReport

# jurist.calibration (scipy, scikit-learn) takes seconds to import: only these commands pay.

# The name of the human-rated set shipped in the package, accepted in place of a path.
SHIPPED = "summeval-100"


LimitOption = Annotated[int | None, typer.Option("--limit", help="Only the first N items.", min=1)]
ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", "-c", help="Items judged at once.", min=1)
]


class Method(StrEnum):
    ISOTONIC = "isotonic"
    LINEAR = "linear"


def calibrate_command(
    ctx: typer.Context,
    dataset: Annotated[
        Path | None,
        typer.Argument(
            help="A ratings dataset (.jsonl or .csv): id, source, output, human_scores; "
            f"or {SHIPPED!r}, the 100 expert-rated news summaries shipped with jurist."
        ),
    ] = None,
    *,
    rubric: Annotated[
        str | None, typer.Option("--rubric", help="The rubric whose criteria are scored.")
    ] = None,
    dimension: Annotated[
        list[str] | None,
        typer.Option(
            "--dimension", "-d", help="A dimension to calibrate (repeatable; default: all shared)."
        ),
    ] = None,
    model: ModelOption = None,
    goal: GoalOption = "",
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = 1,
    cluster: ClusterOption = None,
    target: Annotated[
        float, typer.Option("--target", help="The pooled Pearson each dimension must reach.")
    ] = 0.7,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="How items are scored: plain (the rubric asked plainly, the floor); claims "
            "(consistency from checked claims; claims:mean or claims:share to aggregate "
            "otherwise); coverage (relevance from the source's key facts; coverage:focus "
            "adds the output's off-topic claims); focus (relevance from the off-topic claims "
            "alone); sentences "
            "(coherence and fluency from per-sentence checks); anchored[:K] (the rubric with K "
            "rated examples per criterion from other documents); sampled[:N] (the rubric "
            "sampled N times at temperature 0.7, averaged).",
        ),
    ] = "plain",
    name: Annotated[str | None, typer.Option("--name", help="Name the stored run.")] = None,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Continue a stored calibration run (id or name).")
    ] = None,
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option("--compare", help="Compare two stored calibration runs: RUN_A RUN_B."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write report.json, report.md and report.png here."),
    ] = None,
    database: DatabaseOption = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the report (with --compare, the comparison) as JSON."),
    ] = False,
) -> None:
    """Score a ratings dataset with a rubric and report Pearson, Spearman and Kendall per
    dimension, pooled and averaged per source document, with bootstrap 95% intervals,
    agreement (kappa, alpha), and seconds per evaluation (P95 must be under 30 s). PASS when
    every dimension's pooled Pearson reaches --target (default 0.7). The run and its report
    are stored; --compare shows the change between two of them.

    Exit codes: 0 PASS, 1 FAIL, 2 bad input.
    """
    if compare is not None:
        _compare(compare, database, as_json)
        return
    try:
        if dataset is None:
            raise BadInput("DATASET: give a ratings dataset, or --compare RUN_A RUN_B")
        if rubric is None:
            raise BadInput("--rubric: name the rubric to calibrate")
        check_model_spec(model)
        check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)
    from jurist.calibration import (
        CalibrationVerdict,
        Target,
        calibrate,
        calibration_dataset,
    )
    from jurist.rubrics import RubricError
    from jurist.runner import BarProgress

    try:
        found = calibration_dataset(_shipped_or(dataset), limit)
    except (DatasetError, ValueError, OSError) as exc:
        exit_bad_input(exc)

    progress = BarProgress()

    async def run() -> "tuple[CalibrationReport, CalibrationReport | None]":
        async with await RecordStore.open(database) as store:
            done = await calibrate(
                found,
                rubric,
                dimensions=dimension or (),
                model=model,
                goal=goal,
                concurrency=concurrency,
                cluster=cluster,
                store=store,
                name=name,
                resume=resume is not None,
                run=resume,
                progress=progress,
                target=Target(threshold=target),
                method=method,
            )
            return done.report, done.aligned

    try:
        report, aligned = run_sync(run)
    except KeyboardInterrupt:
        exit_interrupted(_resume_hint(ctx, progress.run))
    except (RubricError, ValueError, LookupError, StoreError) as exc:
        exit_bad_input(exc)
    _show(report, out, as_json)
    if aligned is not None:
        _show(aligned, out / "aligned" if out is not None else None, as_json)
    raise typer.Exit(Exit.PASS if report.verdict is CalibrationVerdict.PASS else Exit.FAIL)


def _resume_hint(ctx: typer.Context, run: str | None) -> str:
    again = command_line(ctx, drop=("name", "resume"), add=("--resume", run or "RUN"))
    which = "" if run else " (RUN: see `jurist runs list`)"
    return f"interrupted; what was judged is stored: resume with{which}\n  {again}"


def _shipped_or(dataset: Path) -> Path:
    """The dataset at `dataset`, or the shipped one it names when no such file exists."""
    if str(dataset) == SHIPPED and not dataset.exists():
        return summeval_100_path()
    return dataset


def _show(report: "CalibrationReport", out: Path | None, as_json: bool) -> None:
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(report.to_json(), encoding="utf-8")
        (out / "report.md").write_text(report.to_markdown(), encoding="utf-8")
        report.plot(out / "report.png")
    if as_json:
        typer.echo(report.to_json())
    else:
        output_console().print(report.to_markdown(), markup=False, highlight=False)


def _compare(runs: tuple[str, str], database: str | None, as_json: bool) -> None:
    from jurist.calibration import compare_reports, stored_report

    async def read() -> tuple["CalibrationReport", "CalibrationReport"]:
        async with await RecordStore.open(database) as store:
            return await stored_report(store, runs[0]), await stored_report(store, runs[1])

    try:
        before, after = run_sync(read)
    except (LookupError, StoreError) as exc:
        exit_bad_input(exc)
    comparison = compare_reports(before, after)
    if as_json:
        typer.echo(comparison.model_dump_json(indent=2))
    else:
        output_console().print(comparison.to_markdown(), markup=False, highlight=False)


def align_command(
    ctx: typer.Context,
    dataset: Annotated[
        Path,
        typer.Argument(help=f"A ratings dataset (.jsonl or .csv), or {SHIPPED!r} (shipped)."),
    ],
    *,
    rubric: Annotated[str, typer.Option("--rubric", help="The rubric whose scores are aligned.")],
    dimension: Annotated[
        str, typer.Option("--dimension", "-d", help="The human dimension to align to.")
    ],
    method: Annotated[
        Method, typer.Option("--method", help="isotonic (one signal) or linear (every signal).")
    ] = Method.ISOTONIC,
    folds: Annotated[int, typer.Option("--folds", help="Cross-validation folds.", min=2)] = 5,
    plain: Annotated[
        bool,
        typer.Option(
            "--plain",
            help="Align the plain rubric (every criterion asked plainly, as `jurist judge "
            "--plain` scores) instead of the rubric scored by each criterion's method.",
        ),
    ] = False,
    model: ModelOption = None,
    goal: GoalOption = "",
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = 1,
    cluster: ClusterOption = None,
    name: Annotated[str | None, typer.Option("--name", help="Name the stored run.")] = None,
    resume: Annotated[
        str | None,
        typer.Option("--resume", help="Continue an interrupted run of this command (id or name)."),
    ] = None,
    database: DatabaseOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the fitted alignment as JSON.")
    ] = False,
) -> None:
    """Fit how the judge's signals map to human scores (isotonic on the dimension's expected
    score, or linear on every criterion's expected score and confidence), validated by
    document-grouped cross-validation. Only out-of-fold correlations are reported. The
    rubric is scored as `jurist judge` scores it (each criterion by its method; --plain as
    `jurist judge --plain` does), and the saved mapping applies to that scoring only. It is
    saved under JURIST_HOME/alignments/RUBRIC.DIMENSION.json.
    """
    try:
        check_model_spec(model)
        check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)
    from jurist.calibration import (
        FittedAlignment,
        alignment_path,
        calibrate,
        calibration_dataset,
        fit_rubric_alignment,
        rubric_dimensions,
    )
    from jurist.rubrics import RubricError, get_rubric
    from jurist.runner import BarProgress

    try:
        found = calibration_dataset(_shipped_or(dataset), limit)
        chosen = get_rubric(rubric)
        every = rubric_dimensions(found, chosen)
        if dimension not in every:
            raise ValueError(f"--dimension {dimension!r}: calibrate one of {every}")
    except (DatasetError, RubricError, ValueError, OSError) as exc:
        exit_bad_input(exc)
    scored = [dimension] if method is Method.ISOTONIC else every
    methods: Literal["rubric", "plain"] = "plain" if plain else "rubric"
    progress = BarProgress()

    async def run() -> object:
        async with await RecordStore.open(database) as store:
            done = await calibrate(
                found,
                chosen,
                dimensions=scored,
                model=model,
                method=methods,
                goal=goal,
                concurrency=concurrency,
                cluster=cluster,
                store=store,
                name=name,
                resume=resume is not None,
                run=resume,
                progress=progress,
            )
        return fit_rubric_alignment(
            done,
            found,
            rubric_id=chosen.id,
            dimension=dimension,
            method=method.value,
            folds=folds,
            methods=methods,
        )

    try:
        fitted = run_sync(run)
    except KeyboardInterrupt:
        exit_interrupted(_resume_hint(ctx, progress.run))
    except (ValueError, LookupError, StoreError) as exc:
        exit_bad_input(exc)
    assert isinstance(fitted, FittedAlignment)
    path = alignment_path(chosen.id, dimension)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(fitted.model_dump_json(indent=2) + "\n", encoding="utf-8")
    if as_json:
        typer.echo(fitted.model_dump_json(indent=2))
        return
    validation = fitted.alignment.validation
    console = output_console()
    console.print(
        f"{method.value} alignment of rubric {chosen.id} ({methods}) to {dimension}, "
        f"{counted(fitted.n, 'item')}"
    )
    if validation is not None:
        found_corr = validation.correlations.pooled
        for coefficient in ("pearson", "spearman", "kendall"):
            estimate = getattr(found_corr, coefficient)
            console.print(f"  out of fold {coefficient}: {estimate.format()}", highlight=False)
    console.print(f"saved to {path}", highlight=False)
