"""`jurist compare`: which of two outputs answers an instruction better? Asks a model."""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jurist.cli._exit import exit_code
from jurist.cli._inputs import (
    BadInput,
    JsonOption,
    ModelOption,
    build_judge,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
    read_file,
    read_output,
    read_rubric,
)
from jurist.cli._progress import showing_progress
from jurist.cli._render import output_console, status_text
from jurist.core import Judge, Judgment, Status, judge_sync
from jurist.judges import PairwiseReport, pairwise_context

_WINNER = {
    "A": ("A WINS", "bold green"),
    "B": ("B WINS", "bold red"),
    "tie": ("TIE", "bold yellow"),
}


def build_pairwise_judge(
    *, model: str | None, rubric: str | None, one_order: bool, method: str = "pointwise"
) -> Judge:
    check_model_spec(model)
    spec = {
        "type": "pairwise",
        "method": method,
        "both_orders": not one_order,
        "rubric": read_rubric("--rubric", rubric) if rubric is not None else None,
    }
    flags = {"rubric": "--rubric", "both_orders": "--one-order", "method": "--method"}
    return build_judge(spec, flags, model=model)


def read_inputs(
    instruction: str, a: str, b: str, reference: Path | None
) -> tuple[str, str, str | None]:
    if not instruction.strip():
        raise BadInput("--instruction: is empty; say what the outputs were asked to do")
    if a == "-" and b == "-":
        raise BadInput("A and B: only one of them can be read from stdin (-)")
    text_a = read_output(a, "A")
    text_b = read_output(b, "B")
    return text_a, text_b, read_file("--reference", reference) if reference is not None else None


def _probability(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


def render_comparison(console: Console, a: str, b: str, judgment: Judgment) -> None:
    """The winner, P(A better), position consistency, then one row per order."""
    if judgment.status is Status.ERROR or judgment.score is None:
        console.print(Text.assemble(status_text(judgment.status), "  ", (f"{a} vs {b}", "bold")))
        console.print(Text(judgment.reasoning, style="dim"))
        return
    label, style = _WINNER[str(judgment.score.value)]
    console.print(Text.assemble((label, style), "  ", (f"A {a}  vs  B {b}", "bold")))
    report = PairwiseReport.of(judgment)
    if report is None:
        console.print(Text(judgment.reasoning, style="dim"))
        return
    consistent = report.position_consistent
    summary = [f"P(A better) {_probability(report.p_a)}"]
    summary.append(
        "position-consistent: "
        + {True: "yes", False: "no", None: "not measured (one order)"}[consistent]
    )
    summary.append(f"read from {report.method}")
    console.print(Text("   ".join(summary), style="dim"))
    if report.comparison == "pointwise":
        render_requirements(console, report)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("order", no_wrap=True)
    table.add_column("choice", no_wrap=True)
    table.add_column("P(A better)", no_wrap=True)
    table.add_column("reason", overflow="fold")
    for order in report.orders:
        table.add_row(
            f"{order.shown_first} first",
            order.choice,
            _probability(order.p_a),
            Text(order.reason),
        )
    console.print(table)


def render_requirements(console: Console, report: PairwiseReport) -> None:
    """Each requirement with each output's P(yes), then what a program found wrong."""
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("requirement", overflow="fold")
    table.add_column("A P(yes)", no_wrap=True)
    table.add_column("B P(yes)", no_wrap=True)
    for row in report.requirements:
        table.add_row(Text(row.requirement), _probability(row.p_yes_a), _probability(row.p_yes_b))
    console.print(table)
    for side, errors in (("A", report.errors_a), ("B", report.errors_b)):
        for error in errors:
            console.print(Text(f"{side}: {error}", style="red"))


def compare(
    a: Annotated[str, typer.Argument(metavar="A", help="File with output A, or - for stdin.")],
    b: Annotated[str, typer.Argument(metavar="B", help="File with output B, or - for stdin.")],
    *,
    instruction: Annotated[
        str, typer.Option("--instruction", "-i", help="What both outputs were asked to do.")
    ],
    reference: Annotated[
        Path | None,
        typer.Option("--reference", help="File with a reference answer known to be correct."),
    ] = None,
    rubric: Annotated[
        str | None,
        typer.Option("--rubric", help="Rubric id or file whose criteria say what is better."),
    ] = None,
    model: ModelOption = None,
    one_order: Annotated[
        bool,
        typer.Option(
            "--one-order", help="Ask once with A shown first (half the cost, position-biased)."
        ),
    ] = False,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="pointwise: each output scored on the instruction's requirements, the direct "
            "answer one more signal; direct: only ask which is better, in both orders.",
        ),
    ] = "pointwise",
    as_json: JsonOption = False,
) -> None:
    """Ask a model which of two outputs answers an instruction better: by default each output
    is scored on the instruction's requirements, and the direct question is asked in both
    orders as one more signal.

    Exit codes: 0 A is better, 1 B is better, 2 bad input, 3 a tie or an error.
    """
    try:
        judge = build_pairwise_judge(model=model, rubric=rubric, one_order=one_order, method=method)
        text_a, text_b, reference_text = read_inputs(instruction, a, b, reference)
        check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)
    ctx = pairwise_context(instruction, text_a, text_b, reference=reference_text)
    with showing_progress(f"comparing {a} and {b}", quiet=as_json):
        judgment = judge_sync(judge, ctx)
    if as_json:
        typer.echo(judgment.to_json(indent=2))
    else:
        render_comparison(output_console(), a, b, judgment)
    raise typer.Exit(exit_code(judgment.status))
