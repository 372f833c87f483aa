"""`jurist grounding` and `jurist facts`: is each claim of an output supported by its
context, or verified in the knowledge base's trusted sources?"""

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

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
    build_judge,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
    read_file,
    read_output,
)
from jurist.cli._kb import DatabaseOption, open_knowledge
from jurist.cli._progress import showing_progress
from jurist.cli._render import output_console, status_text
from jurist.core import Context, Judgment, judge_sync, run_sync
from jurist.judges import (
    ClaimRow,
    ClaimsReport,
    Extraction,
    FactChecker,
    FactRow,
    FactsReport,
    UnknownSource,
)

ContextOption = Annotated[
    list[Path] | None,
    typer.Option("--context", "-C", help="A source the output must be grounded in (repeatable)."),
]
ThresholdOption = Annotated[
    float | None,
    typer.Option("--threshold", help="P(supported) a claim needs (default: 0.5; facts: 0.8)."),
]


def _fact_check_threshold(value: float | None) -> None:
    # The fact checker searches a knowledge base, which a spec cannot hand it: it is built
    # by hand, so its threshold is checked here.
    if value is not None and not 0.0 < value < 1.0:
        raise BadInput(f"--threshold: {value} is not strictly between 0 and 1")


def _probability(row: ClaimRow) -> str:
    return f"{row.p_supported:.2f}" if row.p_supported is not None else "-"


def _quote(row: ClaimRow) -> Text:
    if row.cause:
        return Text(f"error ({row.cause}): {row.error or ''}", style="magenta")
    if row.exact:
        return Text("; ".join(finding.reason for finding in row.exact), style="red")
    if row.quote_found:
        return Text(f"\u201c{row.quote}\u201d", style="green")
    if row.quote:
        return Text(f"quote not in source: \u201c{row.quote}\u201d", style="red")
    evidence = row.evidence
    return Text(f"nearest: {evidence}" if evidence else "no evidence", style="dim")


def render_claims(console: Console, subject: str, judgment: Judgment, decided: str) -> None:
    """The verdict, then one row per claim: decided or not, the model's verdict, P(supported),
    and the evidence (a quote found in the source, else the nearest sentence)."""
    console.print(Text.assemble(status_text(judgment.status), "  ", (subject, "bold")))
    console.print(Text(judgment.reasoning, style="dim"))
    report = ClaimsReport.of(judgment) or FactsReport.of(judgment)
    if report is not None and report.extraction is Extraction.SENTENCES:
        cause = report.extraction_fallback
        console.print(Text(f"claims are the output's sentences (the model failed: {cause})"))
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("claim", ratio=3, overflow="fold")
    table.add_column(decided, no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("P(supported)", no_wrap=True)
    table.add_column("evidence", ratio=3, overflow="fold")
    rows: tuple[ClaimRow, ...] = report.claims if report is not None else ()
    for row in rows:
        ok = row.verified if isinstance(row, FactRow) else row.supported
        mark = Text("yes", style="green") if ok else Text("no", style="red")
        verdict = row.verdict.value if row.verdict is not None else "-"
        table.add_row(Text(row.claim), mark, verdict, _probability(row), _quote(row))
    console.print(table)


def _finish(judgment: Judgment, subject: str, as_json: bool, decided: str) -> None:
    if as_json:
        typer.echo(judgment.to_json(indent=2))
    else:
        render_claims(output_console(), subject, judgment, decided)
    raise typer.Exit(exit_code(judgment.status))


def grounding(
    output: Annotated[str, typer.Argument(help="File with the output to check, or - for stdin.")],
    *,
    context: ContextOption = None,
    goal: GoalOption = "",
    model: ModelOption = None,
    together: Annotated[
        bool | None,
        typer.Option(
            "--together/--per-claim",
            help="Check every claim in one model call, or each in its own. Default: one "
            "call for a provider, one per claim for the embedded model.",
        ),
    ] = None,
    threshold: ThresholdOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extract the output's factual claims and check each against the context files.

    Each claim is supported, contradicted or not mentioned, with P(supported) and a quote
    that jurist checks is really in the context. Exit codes: 0 every claim supported, 1 an
    unsupported claim, 2 bad input, 3 undecided.
    """
    try:
        if not context:
            raise BadInput("--context: give at least one file to check the output against")
        check_model_spec(model)
        spec: dict[str, Any] = {"type": "hallucination"}
        if together is not None:
            spec["together"] = together
        if threshold is not None:
            spec["threshold"] = threshold
        judge = build_judge(spec, {"threshold": "--threshold"}, model=model)
        passages = tuple(read_file("--context", path) for path in context)
        text = read_output(output)
        check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)
    with showing_progress(f"checking the claims of {output}", quiet=as_json):
        judgment = judge_sync(judge, Context(goal, output=text, context=passages))
    _finish(judgment, output, as_json, "supported")


def facts(
    output: Annotated[str, typer.Argument(help="File with the output to check, or - for stdin.")],
    *,
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", "-c", help="A trusted collection (repeatable)."),
    ] = None,
    document: Annotated[
        list[str] | None,
        typer.Option("--document", help="A trusted document id, collection/id (repeatable)."),
    ] = None,
    goal: GoalOption = "",
    model: ModelOption = None,
    threshold: ThresholdOption = None,
    passages: Annotated[
        int, typer.Option("--passages", help="Passages retrieved per claim.", min=1, max=20)
    ] = 3,
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check each factual claim of the output against trusted sources in the knowledge base.

    For every claim, passages are retrieved from the named collections or documents and the
    claim is verified against them; P(supported) must reach FACT_CHECK_THRESHOLD (0.8).
    Exit codes: 0 every claim verified, 1 an unverified claim, 2 bad input (an unknown
    source, say), 3 undecided.
    """
    sources: Sequence[str] = [*(collection or []), *(document or [])]
    try:
        if not sources:
            raise BadInput("--collection: name at least one trusted collection or --document")
        check_model_spec(model)
        _fact_check_threshold(threshold)
        text = read_output(output)
        check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)

    async def check() -> Judgment:
        async with await open_knowledge(database) as knowledge:
            # An unknown source is the user's mistake: say so before any model loads.
            await knowledge.check_sources(sources)
            checker = FactChecker(
                knowledge, model, sources=sources, threshold=threshold, passages=passages
            )
            return await checker.judge(Context(goal, output=text))

    try:
        with showing_progress(f"checking the facts of {output}", quiet=as_json):
            judgment = run_sync(check)
    except (UnknownSource, BadInput) as exc:
        exit_bad_input(exc)
    _finish(judgment, output, as_json, "verified")
