"""`jurist criteria`: does an output meet each acceptance criterion? Asks a model."""

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jurist.cli._exit import exit_code
from jurist.cli._inputs import (
    BadInput,
    GoalOption,
    JsonOption,
    ModelOption,
    SourceOption,
    build_judge,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
    read_file,
    read_output,
)
from jurist.cli._progress import showing_progress
from jurist.cli._render import output_console, status_text
from jurist.core import Context, Judge, Judgment, counted, judge_sync
from jurist.judges import CriteriaReport, CriterionRow

# The flag behind each field of the spec: criteria[1] is the second --criterion.
_FLAGS = {"criteria": "--criterion", "threshold": "--threshold", "together": "--together"}


def build_criteria_judge(
    criteria: list[str], *, model: str | None, together: bool, threshold: float
) -> Judge:
    if not criteria:
        raise BadInput("nothing to judge: give at least one --criterion")
    check_model_spec(model)
    spec = {"type": "criteria", "criteria": criteria, "threshold": threshold, "together": together}
    return build_judge(spec, _FLAGS, model=model)


def _probability(row: CriterionRow) -> str:
    if row.method == "logprobs" and row.p_yes is not None:
        return f"P(yes) {row.p_yes:.2f}"
    if row.confidence is not None:
        return f"stated {row.confidence:.2f}"
    return "-"


def render_criteria(console: Console, subject: str, judgment: Judgment) -> None:
    """The overall verdict, then one row per criterion: verdict, P(yes), the model's reason."""
    console.print(Text.assemble(status_text(judgment.status), "  ", (subject, "bold")))
    console.print(Text(judgment.reasoning.split(": ", 1)[0], style="dim"))
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("criterion", ratio=2, overflow="fold")
    table.add_column("verdict", no_wrap=True)
    table.add_column("P(yes)/confidence", no_wrap=True)
    table.add_column("reason", ratio=3, overflow="fold")
    report = CriteriaReport.of(judgment)
    for row in report.criteria if report is not None else ():
        table.add_row(
            Text(row.criterion), status_text(row.status), _probability(row), Text(row.reason)
        )
    console.print(table)


def criteria(
    output: Annotated[str, typer.Argument(help="File with the output to judge, or - for stdin.")],
    *,
    criterion: Annotated[
        list[str] | None,
        typer.Option("--criterion", "-c", help="A statement the output must meet (repeatable)."),
    ] = None,
    goal: GoalOption = "",
    source: SourceOption = None,
    model: ModelOption = None,
    together: Annotated[
        bool, typer.Option("--together", help="Ask every criterion in one model call.")
    ] = False,
    threshold: Annotated[
        float, typer.Option("--threshold", help="P(yes) at or above which a criterion is met.")
    ] = 0.5,
    as_json: JsonOption = False,
) -> None:
    """Ask a model whether an output meets each acceptance criterion and print the verdicts.

    Exit codes: 0 all met, 1 a criterion not met, 2 bad input, 3 a criterion undecided.
    """
    try:
        judge = build_criteria_judge(
            criterion or [], model=model, together=together, threshold=threshold
        )
        sources = tuple(read_file("--source", path) for path in source or [])
        text = read_output(output)
        check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)
    with showing_progress(
        f"judging {output} on {counted(len(criterion or []), 'criterion', 'criteria')}",
        quiet=as_json,
    ):
        judgment = judge_sync(judge, Context(goal, output=text, context=sources))
    if as_json:
        typer.echo(judgment.to_json(indent=2))
    else:
        render_criteria(output_console(), output, judgment)
    raise typer.Exit(exit_code(judgment.status))
