"""`jurist eval`: judge every row of a dataset, stored as it goes and resumable."""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jurist.cli._cluster import ClusterOption
from jurist.cli._command_line import command_line
from jurist.cli._eval_gate import ci_options, ci_report, exit_for
from jurist.cli._exit import Exit, exit_interrupted
from jurist.cli._inputs import (
    BadInput,
    ModelOption,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
)
from jurist.cli._kb import DatabaseOption
from jurist.cli._progress import progress_console
from jurist.cli._render import output_console
from jurist.core import Status, run_sync
from jurist.data import Dataset, FieldMap, load_dataset
from jurist.runner import (
    BarProgress,
    JudgeChoice,
    RunResult,
    RunSummary,
    evaluate,
    resolve_judge,
)
from jurist.store import RecordStore, StoreError

_OUT_SUFFIXES = (".jsonl", ".csv")


def eval_command(
    ctx: typer.Context,
    dataset: Annotated[Path, typer.Argument(help="A .jsonl, .csv or .parquet file of rows.")],
    *,
    judge: Annotated[
        str,
        typer.Option(
            "--judge",
            "-j",
            help='rubric:ID, criterion:"TEXT", or a .yaml/.yml/.json judge spec or rubric file.',
        ),
    ],
    field_map: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            help="FIELD=COLUMN[,...]: the column for goal, output, context, reference or "
            "metadata.KEY (repeatable).",
        ),
    ] = None,
    model: ModelOption = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            "-c",
            help="Items judged at once (default: as many as the model's limit on calls in "
            "flight allows; that limit adapts to the provider).",
            min=1,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write every item's result to a .jsonl or .csv file."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Name the run (to resume or show it by name).")
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option("--resume", help="Resume this run (id or name): judge what it lacks."),
    ] = None,
    database: DatabaseOption = None,
    cluster: ClusterOption = None,
    keep_calls: Annotated[
        bool,
        typer.Option(
            "--keep-calls",
            help="Store the prompts sent and the model's raw answers with each judgment (off "
            "by default: prompts hold your rows' content, which the store otherwise never "
            "keeps). A resumed run keeps the choice it was started with.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    fail_under: Annotated[
        str | None,
        typer.Option(
            "--fail-under",
            metavar="RATE",
            help="Exit 1 when the pass rate (of decided items) is below RATE: 0.9 or 90%.",
        ),
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit", metavar="FILE", help="Write a JUnit XML report for CI: a case per item."
        ),
    ] = None,
) -> None:
    """Judge every row of DATASET and store each judgment as it completes.

    Rows take their goal, output, context and reference from the columns of those names (or
    question/instruction, answer/response, source/documents/passages), unless --map says
    otherwise; a row's `id` field, else its line number, identifies it. An interrupted run
    (Ctrl-C, a crash) resumes with --resume RUN, judging only what it had not stored.

    For CI: --fail-under RATE gates the job on the pass rate, --junit FILE writes a JUnit
    XML report (a test case per item; FAIL a failure, ERROR an error, ABSTAIN skipped).

    With --keep-calls, every model call's prompt and raw answer is stored beside each item's
    verdict. It is a choice per run, written in its spec: a run resumed with --resume keeps
    calls if and only if it was started with --keep-calls.

    Exit codes: 0 every item judged without ERROR (and the pass rate at least --fail-under),
    1 the pass rate is below --fail-under, 3 some item's judgment is ERROR or, under
    --fail-under, no item was decided (or the store failed during the run), 2 bad input,
    130 interrupted.
    """
    try:
        if resume is not None and name is not None:
            raise BadInput("--name: a resumed run keeps its name; give --resume RUN alone")
        check_model_spec(model)
        if out is not None and out.suffix.lower() not in _OUT_SUFFIXES:
            raise BadInput(f"--out: {out}: name a {' or '.join(_OUT_SUFFIXES)} file")
        threshold = ci_options(fail_under, junit)
        rows = _dataset(dataset, field_map)
        choice = _judge(judge, model)
        if choice.model is not None:  # a deterministic judge asks no model
            check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)

    progress = BarProgress(progress_console(quiet=as_json))

    async def run() -> RunResult:
        try:
            store = await RecordStore.open(database)
        except StoreError as exc:
            raise BadInput(f"--database: {exc}") from exc
        async with store:
            if name is not None and await store.get_run(name) is not None:
                raise BadInput(
                    f"--name: a run named {name!r} exists already; resume it with "
                    f"--resume {name}, or choose another name"
                )
            return await evaluate(
                rows,
                choice,
                concurrency=concurrency,
                store=store,
                run=resume,
                name=name,
                resume=resume is not None,
                progress=progress,
                cluster=cluster,
                # absent: a resumed run's own choice (off for a new run)
                keep_calls=True if keep_calls else None,
            )

    try:
        result = run_sync(run)
    except KeyboardInterrupt:
        again = command_line(ctx, drop=("name", "resume"), add=("--resume", progress.run or "RUN"))
        which = "" if progress.run else " (RUN: see `jurist runs list`)"
        exit_interrupted(f"interrupted; what was judged is stored: resume with{which}\n  {again}")
    except BadInput as exc:
        exit_bad_input(exc)
    except (LookupError, ValueError) as exc:  # the run to resume is unknown, or differs
        exit_bad_input(BadInput(f"--resume: {exc}") if resume else exc)
    except StoreError as exc:
        typer.echo(f"error: the store failed during the run: {exc}", err=True)
        raise typer.Exit(Exit.UNDECIDED) from exc

    if out is not None:
        write_results(result, out)
    gate = ci_report(result, junit, threshold)
    if as_json:
        payload = {**result_header(result), "summary": result.summary.to_dict()}
        payload["out"] = None if out is None else str(out)
        payload["gate"] = None if gate is None else gate.to_dict()
        typer.echo(json.dumps(payload, indent=2))
    else:
        render_summary(output_console(), result)
        if gate is not None:
            typer.echo(gate.message())
    raise typer.Exit(exit_for(result.summary, gate))


def _dataset(path: Path, maps: list[str] | None) -> Dataset:
    try:
        return load_dataset(path, FieldMap.parse(",".join(maps or [])))
    except ValueError as exc:  # DatasetError, or a map that does not fit: both say where
        message = str(exc)
        raise BadInput(message if message.startswith("--map") else f"DATASET: {message}") from exc


def _judge(text: str, model: str | None) -> JudgeChoice:
    try:
        choice = resolve_judge(text, model=model)
    except ValueError as exc:
        raise BadInput(f"--judge: {exc}") from exc
    if choice.form != "rubric":
        return choice
    # A library rubric's judgments carry its saved alignments' scores. jurist.calibration
    # (scipy, scikit-learn) takes seconds to import: only a rubric judge pays for it.
    from jurist.calibration import with_saved_alignments

    return with_saved_alignments(choice)


def write_results(result: RunResult, out: Path) -> None:
    """Every item's result, as JSON lines or CSV by the file's suffix."""
    if out.suffix.lower() == ".csv":
        result.to_csv(out)
    else:
        result.to_jsonl(out)


def result_header(result: RunResult) -> dict[str, object]:
    return {
        "run_id": result.run_id,
        "name": result.name,
        "status": result.status,
        "judge": result.judge,
    }


def render_summary(console: Console, result: RunResult) -> None:
    """The run's headline, then its numbers as a two-column table."""
    who = f"{result.name} ({result.run_id})" if result.name else str(result.run_id)
    console.print(Text.assemble(("run ", "bold"), (who, "bold"), f"  {result.status}"))
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column("", style="dim", no_wrap=True)
    table.add_column("")
    for label, value in summary_rows(result.summary, result.judge):
        table.add_row(label, value)
        if label == "errors" and result.summary.errors:
            table.add_row("first error", first_error(result))
    console.print(table)


def first_error(result: RunResult) -> str:
    """The first ERROR item and what its judge said: the cause, where a count says little."""
    for item, judgment in result.judgments.items():
        if judgment.status is Status.ERROR:
            return f"{item}: {judgment.reasoning}"
    return "-"


def summary_rows(summary: RunSummary, judge: str) -> list[tuple[str, str]]:
    counts = ", ".join(f"{count} {status}" for status, count in summary.counts.items())
    causes = ", ".join(f"{count} {cause}" for cause, count in summary.errors_by_cause.items())
    rows = [
        ("judge", judge),
        ("items", f"{summary.n}: {counts}"),
        ("pass rate", _percent(summary.pass_rate) + " of decided (pass + fail)"),
        ("score", _score(summary)),
        ("errors", causes or "none"),
        ("tokens", f"{summary.input_tokens} in, {summary.output_tokens} out"),
        ("cost", "unknown" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"),
    ]
    session = f"{summary.judged} judged"
    if summary.resumed:
        session += f", {summary.resumed} found stored (resumed)"
    if summary.wall_seconds is not None:
        session += f" in {summary.wall_seconds:.1f} s"
    if summary.items_per_second is not None:
        session += f", {summary.items_per_second:.1f} items/s"
    rows.append(("this session", session))
    rows.extend(("concurrency", concurrency_line(seen)) for seen in summary.concurrency)
    return rows


def concurrency_line(seen: Mapping[str, Any]) -> str:
    """What one endpoint's limit on calls in flight did in the session, e.g. "adaptive:
    started at 32, peak 256, final 256; 200 in flight at most (ceiling 256); 0 rate-limited
    (429) - openai@https://api.openai.com/v1"."""
    if seen.get("adaptive"):
        limit = (
            f"adaptive: started at {seen.get('start')}, peak {seen.get('peak')}, "
            f"final {seen.get('final')}"
        )
    else:
        limit = f"fixed at {seen.get('final')}"
    line = (
        f"{limit}; {seen.get('in_flight_peak')} in flight at most (ceiling "
        f"{seen.get('ceiling')}); {seen.get('rate_limited')} rate-limited (429)"
    )
    if seen.get("timeouts"):
        line += f", {seen.get('timeouts')} timed out"
    return f"{line} - {seen.get('endpoint')}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _score(summary: RunSummary) -> str:
    if summary.score_mean is None:
        return "-"
    spread = "" if summary.score_std is None else f" ± {summary.score_std:.3f} (sd)"
    return f"{summary.score_mean:.3f}{spread} (0..1)"
