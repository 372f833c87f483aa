"""`jurist judge`: score an output against a rubric with a model (G-Eval)."""

from pathlib import Path
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
    read_rubric,
)
from jurist.cli._progress import showing_progress
from jurist.cli._render import output_console, status_text
from jurist.core import Context, Judge, Judgment, judge_sync
from jurist.judges import RubricResult

_FLAGS = {
    "rubric": "--rubric",
    "criteria": "--criterion",
    "pass_score": "--pass-score",
    "methods": "--plain",
}


def build_rubric_judge(
    rubric: str,
    *,
    criteria: list[str],
    model: str | None,
    pass_score: float | None,
    plain: bool = False,
) -> Judge:
    check_model_spec(model)
    spec = {
        "type": "rubric",
        "rubric": read_rubric("--rubric", rubric),
        "criteria": criteria or None,
        "pass_score": pass_score,
        "methods": "plain" if plain else "rubric",
    }
    return build_judge(spec, _FLAGS, model=model)


def render_rubric(console: Console, subject: str, judgment: Judgment) -> None:
    """The verdict and overall score, then one row per criterion."""
    console.print(Text.assemble(status_text(judgment.status), "  ", (subject, "bold")))
    try:
        result = RubricResult.from_judgment(judgment)
    except KeyError:
        console.print(Text(judgment.reasoning))
        return
    headline = (
        f"rubric {result.rubric_id}: overall {result.overall_score:.2f}/5 "
        f"(normalised {result.normalized_score:.2f})"
    )
    if result.essential_failed:
        headline += "; an essential criterion failed"
    console.print(Text(headline, style="dim"))
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("criterion", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("expected", justify="right")
    table.add_column("confidence", justify="right")
    table.add_column("by", no_wrap=True)
    table.add_column("reasoning", overflow="fold")
    for row in result.criteria_results:
        name = row.criterion_name + (" *" if row.is_essential else "")
        score = Text(str(row.score), style="green" if row.passed_threshold else "red")
        confidence = f"{row.confidence:.2f}" if row.confidence is not None else "-"
        by = row.criterion_method.value + (f":{row.method_option}" if row.method_option else "")
        reasoning = row.reasoning + (f" ({row.fallback})" if row.fallback else "")
        table.add_row(name, score, f"{row.expected_score:.2f}", confidence, by, Text(reasoning))
    console.print(table)
    console.print(
        Text(
            f"{result.llm_model}, {result.evaluation_time_ms / 1000:.1f} s, "
            f"{result.tokens_used.input} input and {result.tokens_used.output} output tokens"
            + ("; * essential" if any(r.is_essential for r in result.criteria_results) else ""),
            style="dim",
        )
    )


def judge(
    output: Annotated[str, typer.Argument(help="File with the output to judge, or - for stdin.")],
    *,
    rubric: Annotated[
        str, typer.Option("--rubric", "-r", help="Rubric id (see `jurist rubrics list`) or file.")
    ],
    criterion: Annotated[
        list[str] | None,
        typer.Option("--criterion", "-c", help="Judge only this criterion (repeatable)."),
    ] = None,
    goal: GoalOption = "",
    source: SourceOption = None,
    reference: Annotated[
        Path | None, typer.Option("--reference", help="A file with a reference answer.")
    ] = None,
    model: ModelOption = None,
    pass_score: Annotated[
        float | None, typer.Option("--pass-score", help="Overall score (1-5) needed to pass.")
    ] = None,
    plain: Annotated[
        bool,
        typer.Option(
            "--plain",
            help="Ask every criterion plainly (one G-Eval question each) instead of by the "
            "method its rubric names (claims, coverage, sentence checks).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Score an output on each criterion of a rubric and print the scores and reasoning.

    Each criterion is scored by the method its rubric names (the summarization rubric:
    claims checked against --source for consistency, the source's key facts for relevance,
    per-sentence checks for coherence and fluency); --plain asks each plainly.

    Exit codes: 0 PASS, 1 FAIL, 2 bad input, 3 undecided (the model failed).
    """
    try:
        rubric_judge = build_rubric_judge(
            rubric, criteria=criterion or [], model=model, pass_score=pass_score, plain=plain
        )
        sources = tuple(read_file("--source", path) for path in source or [])
        gold = read_file("--reference", reference) if reference is not None else None
        text = read_output(output)
        check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)
    ctx = Context(goal, output=text, context=sources, reference=gold)
    with showing_progress(f"judging {output} on rubric {rubric}", quiet=as_json):
        judgment = judge_sync(rubric_judge, ctx)
    if as_json:
        typer.echo(judgment.to_json(indent=2))
    else:
        render_rubric(output_console(), output, judgment)
    raise typer.Exit(exit_code(judgment.status))
