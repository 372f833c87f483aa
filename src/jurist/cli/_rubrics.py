"""`jurist rubrics`: the rubric library (built in and JURIST_RUBRICS_PATH), one rubric in
full, and checking a rubric file before it is used."""

import json
import textwrap
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.markup import escape
from rich.table import Table

from jurist.cli._exit import Exit
from jurist.cli._render import output_console
from jurist.core import counted
from jurist.rubrics import (
    LocatedRubric,
    Rubric,
    RubricCriterion,
    RubricError,
    get_rubric,
    load_rubric,
    locate_rubrics,
)

rubrics_app = typer.Typer(
    help="List the rubrics, show one in full, or check a rubric file.",
    no_args_is_help=True,
)

BUILT_IN = "built-in"


def _bad_input(message: str) -> NoReturn:
    # Plain echo, not rich: rich would wrap long file paths and split the field names.
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(Exit.BAD_INPUT)


def _source(located: LocatedRubric) -> str:
    return BUILT_IN if located.builtin else str(located.path.parent)


@rubrics_app.command("list")
def list_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the rubrics as JSON.")] = False,
) -> None:
    """List every rubric: built-in ones and those in JURIST_RUBRICS_PATH (which win)."""
    try:
        found = locate_rubrics()
    except RubricError as exc:
        _bad_input(str(exc))
    if as_json:
        rows = [
            {
                "id": located.rubric.id,
                "name": located.rubric.name,
                "criteria": [criterion.name for criterion in located.rubric.criteria],
                "source": _source(located),
                "path": str(located.path),
            }
            for located in found
        ]
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    table = Table(title="rubrics")
    table.add_column("id", no_wrap=True)
    table.add_column("name")
    table.add_column("criteria")
    table.add_column("source")
    for located in found:
        rubric = located.rubric
        criteria = ", ".join(criterion.name for criterion in rubric.criteria)
        table.add_row(
            escape(rubric.id), escape(rubric.name), escape(criteria), escape(_source(located))
        )
    output_console().print(table)


def _criterion_heading(criterion: RubricCriterion) -> str:
    parts = [f"weight {criterion.weight:g}", f"threshold {criterion.threshold:g}"]
    if criterion.essential:
        parts.append(f"essential (minimum {criterion.essential_minimum:g})")
    count = len(criterion.examples)
    parts.append(counted(count, "example"))
    return f"[bold]{escape(criterion.name)}[/]  " + ", ".join(parts)


def _print_rubric(rubric: Rubric) -> None:
    console = output_console(highlight=False)
    width = max(console.width, 40)

    def say(text: str, lead: str = "") -> None:
        # Wrapped here, not by rich, so that wrapped lines hang under the text after `lead`.
        lines = textwrap.fill(
            text,
            width,
            initial_indent=lead,
            subsequent_indent=" " * len(lead),
            break_long_words=False,
            break_on_hyphens=False,
        )
        console.print(lines, markup=False, soft_wrap=True)

    console.print(f"[bold]{escape(rubric.id)}[/]: {escape(rubric.name)} (version {rubric.version})")
    if rubric.description:
        say(rubric.description)
    say(
        f"passes at {rubric.pass_score:g} overall (weighted mean on 1..5) "
        "when no essential criterion is below its minimum"
    )
    for criterion in rubric.criteria:
        console.print()
        console.print(_criterion_heading(criterion), soft_wrap=True)
        say(criterion.description, "  ")
        if criterion.steps:
            console.print("  steps:")
            for number, step in enumerate(criterion.steps, start=1):
                say(step, f"    {number}. ")
        console.print("  anchors:")
        for level, text in criterion.anchors.items():
            say(text, f"    {level}  ")


@rubrics_app.command("show")
def show_command(
    rubric_id: Annotated[str, typer.Argument(metavar="ID", help="A rubric id, or a rubric file.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the rubric as JSON (its full model).")
    ] = False,
) -> None:
    """Show one rubric: its criteria with weights, flags, thresholds and anchors."""
    try:
        rubric = get_rubric(rubric_id)
    except RubricError as exc:
        _bad_input(f"ID: {exc}")
    if as_json:
        typer.echo(rubric.model_dump_json(indent=2))
        return
    _print_rubric(rubric)


@rubrics_app.command("check")
def check_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A rubric file (YAML or JSON).")],
) -> None:
    """Check a rubric file: exit 0 when it is valid, 2 with every problem when not."""
    try:
        rubric = load_rubric(file)
    except RubricError as exc:
        _bad_input(str(exc))
    if file.stem != rubric.id:
        # get_rubric finds a file by its stem first; a mismatch still works, but slowly.
        typer.echo(
            f"note: the file is named {file.stem!r} but the rubric's id is {rubric.id!r}; "
            f"name it {rubric.id}{file.suffix} so it is found by id directly",
            err=True,
        )
    count = len(rubric.criteria)
    typer.echo(f"ok: {rubric.id} ({counted(count, 'criterion', 'criteria')})")
