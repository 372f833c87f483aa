"""`jurist reputation`: judges' reputations, their metrics and the history of every change."""

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from jurist.cli._cycles import print_wide
from jurist.cli._improve import open_store, score_text
from jurist.cli._inputs import (
    BadInput,
    exit_bad_input,
)
from jurist.cli._kb import DatabaseOption
from jurist.cli._render import output_console
from jurist.core import run_sync
from jurist.store import StoreError

if TYPE_CHECKING:
    from jurist.autonomy import Reputation


# The autonomy modules pull in the judges, and the tournament jurist.calibration (scipy,
# scikit-learn): they are imported inside the commands, so other commands do not pay.

reputation_app = typer.Typer(
    help="Judges' reputations: their scores, metrics and the history of every change.",
    no_args_is_help=True,
)


# --- jurist reputation --------------------------------------------------------------------


def reputation_row(rep: "Reputation") -> dict[str, Any]:
    return {"judge_id": rep.judge_id, "score": rep.score, "metrics": rep.metrics.model_dump()}


@reputation_app.command("list")
def list_reputations(
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the reputations as JSON.")] = False,
) -> None:
    """Every judge with a reputation, best score first."""

    async def read() -> "list[Reputation]":
        async with await open_store(database) as store:
            return await store.reputations()

    try:
        found = run_sync(read)
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    if as_json:
        typer.echo(json.dumps([reputation_row(rep) for rep in found], indent=2))
        return
    if not found:
        typer.echo("no reputations yet: a tournament or an improvement cycle records them")
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("judge", "score", "evaluations", "accuracy", "consistency", "agreement"):
        table.add_column(column, no_wrap=True)
    for rep in found:
        metrics = rep.metrics
        table.add_row(
            rep.judge_id,
            f"{rep.score:.3f}",
            str(metrics.total_evaluations),
            score_text(metrics.accuracy_rate),
            score_text(metrics.consistency_score),
            score_text(metrics.agreement_rate),
        )
    print_wide(table)


@reputation_app.command("show")
def show_reputation(
    judge: Annotated[str, typer.Argument(help="The judge's id (see `jurist reputation list`).")],
    database: DatabaseOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the reputation and its history as JSON.")
    ] = False,
) -> None:
    """A judge's score, what is known of it, and every change of its score."""

    async def read() -> "Reputation | None":
        async with await open_store(database) as store:
            return await store.get_reputation(judge)

    try:
        found = run_sync(read)
        if found is None:
            raise BadInput(f"JUDGE: no reputation for {judge!r} (see `jurist reputation list`)")
    except (BadInput, StoreError, ValueError) as exc:
        exit_bad_input(exc)
    if as_json:
        typer.echo(found.model_dump_json(indent=2))
        return
    console = output_console()
    console.print(
        Text.assemble(("judge ", "bold"), (found.judge_id, "bold"), f"  score {found.score:.3f}")
    )
    metrics = Table(show_header=False, box=None, pad_edge=False)
    metrics.add_column("", style="dim", no_wrap=True)
    metrics.add_column("")
    for label, value in found.metrics.model_dump().items():
        if value is not None:
            metrics.add_row(label, f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(metrics)
    if not found.history:
        console.print(Text("no changes of score recorded", style="dim"))
        return
    history = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("at (UTC)", "event", "change", "by", "note"):
        history.add_column(column, no_wrap=column != "note", overflow="fold")
    for change in found.history:
        history.add_row(
            f"{change.at:%Y-%m-%d %H:%M:%S}",
            change.event.value,
            f"{change.before:.3f} -> {change.after:.3f} ({change.delta:+.3f})",
            change.cycle_id or "-",
            change.note,
        )
    print_wide(history)
