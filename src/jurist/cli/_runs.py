"""`jurist runs`: the stored runs, one run's summary, and its results exported."""

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jurist.cli._eval import render_summary, result_header
from jurist.cli._inputs import BadInput, exit_bad_input
from jurist.cli._kb import DatabaseOption
from jurist.cli._render import output_console
from jurist.core import counted, run_sync
from jurist.runner import RunResult, load_run
from jurist.store import RecordStore, StoredRun, StoreError

runs_app = typer.Typer(
    help="The stored runs: list them, show one, export one's results.",
    no_args_is_help=True,
)


class ExportFormat(StrEnum):
    JSONL = "jsonl"
    CSV = "csv"


async def _open(database: str | None) -> RecordStore:
    try:
        return await RecordStore.open(database)
    except StoreError as exc:
        raise BadInput(f"--database: {exc}") from exc


async def _load(database: str | None, run: str) -> tuple[StoredRun, RunResult]:
    async with await _open(database) as store:
        try:
            result = await load_run(store, run)
        except LookupError as exc:
            raise BadInput(f"RUN: {exc} (see `jurist runs list`)") from exc
        found = await store.get_run(run)
    if found is None:  # removed between the two reads
        raise BadInput(f"RUN: no run with id or name {run!r}")
    return found, result


def _run_row(run: StoredRun) -> dict[str, Any]:
    summary = run.summary or {}
    return {
        "id": run.id,
        "name": run.name,
        "kind": run.kind,
        "status": run.status,
        "created_at": run.created_at.isoformat(),
        "updated_at": run.updated_at.isoformat(),
        "items": summary.get("n"),
        "pass_rate": summary.get("pass_rate"),
        "errors": (summary.get("counts") or {}).get("error"),
    }


@runs_app.command("list")
def list_runs(
    limit: Annotated[int, typer.Option("--limit", "-n", help="Runs to show.", min=1)] = 50,
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the runs as JSON.")] = False,
) -> None:
    """The newest runs first, with their status and, once finished, items and pass rate."""

    async def runs() -> list[StoredRun]:
        async with await _open(database) as store:
            return await store.list_runs(limit)

    try:
        found = run_sync(runs)
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    rows = [_run_row(run) for run in found]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("no runs yet: start one with `jurist eval DATASET --judge SPEC`")
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    # A run is shown by its name, else its id: either is what `runs show` takes.
    for column in ("run", "kind", "status", "started (UTC)", "items", "pass rate", "errors"):
        table.add_column(column, no_wrap=True)
    for row in rows:
        rate = row["pass_rate"]
        table.add_row(
            row["name"] or row["id"],
            row["kind"],
            row["status"],
            row["created_at"][:16].replace("T", " "),
            "-" if row["items"] is None else str(row["items"]),
            "-" if rate is None else f"{rate:.1%}",
            "-" if row["errors"] is None else str(row["errors"]),
        )
    console = Console()
    if not console.is_terminal:
        # Off a terminal (a pipe, a file) there is no width to fit: never cut an id.
        natural = console.measure(table, options=console.options.update_width(1000)).maximum
        console.width = max(console.width, natural)
    console.print(table)


@runs_app.command("show")
def show(
    run: Annotated[str, typer.Argument(help="The run's id or name.")],
    database: DatabaseOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the run and its summary as JSON.")
    ] = False,
) -> None:
    """A run's spec and summary, counted from the judgments it stored (so an interrupted
    run shows what it has)."""
    try:
        found, result = run_sync(lambda: _load(database, run))
    except (BadInput, StoreError, ValueError) as exc:
        exit_bad_input(exc)
    if as_json:
        payload = {
            **result_header(result),
            **_run_row(found),
            "spec": found.spec,
            "summary": result.summary.to_dict(),
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    console = output_console()
    render_summary(console, result)
    spec = found.spec or {}
    dataset = spec.get("dataset") or {}
    facts = [
        f"started {found.created_at:%Y-%m-%d %H:%M:%S} UTC, last written "
        f"{found.updated_at:%Y-%m-%d %H:%M:%S} UTC",
    ]
    if dataset:
        facts.append(f"dataset {dataset.get('path')} (sha256 {str(dataset.get('sha256'))[:12]})")
    if spec.get("model"):
        facts.append(f"model {spec['model']}")
    for fact in facts:
        console.print(Text(fact, style="dim"))


@runs_app.command("export")
def export(
    run: Annotated[str, typer.Argument(help="The run's id or name.")],
    *,
    kind: Annotated[
        ExportFormat,
        typer.Option("--format", "-f", help="jsonl (with each whole judgment) or csv."),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="The file to write (default: stdout).")
    ] = None,
    database: DatabaseOption = None,
) -> None:
    """Every item's result: one JSON object per line, or a CSV table.

    Each row holds the item's inputs (goal, output, context, reference), read again from the
    run's dataset file when it is unchanged, the verdict, and for a jury or cascade each
    member's vote (`vote.NAME`, `vote_score.NAME`)."""
    try:
        _, result = run_sync(lambda: _load(database, run))
    except (BadInput, StoreError, ValueError) as exc:
        exit_bad_input(exc)
    if result.inputs_note is not None:
        typer.echo(f"note: the items' inputs are left out: {result.inputs_note}", err=True)
    target = sys.stdout if out is None else out
    try:
        if kind is ExportFormat.CSV:
            result.to_csv(target)
        else:
            result.to_jsonl(target)
    except BrokenPipeError:
        # The reader stopped reading (`| head`): nothing is wrong, and nothing more to say.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    except OSError as exc:
        exit_bad_input(BadInput(f"--out: cannot write {out}: {exc.strerror or exc}"))
    if out is not None:
        typer.echo(f"{counted(len(result.judgments), 'item')} written to {out}", err=True)
