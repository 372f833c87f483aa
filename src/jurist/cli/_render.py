"""Readable verdicts for people at a terminal, and output that survives a pipe."""

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from jurist.core import Check, Judgment, Status
from jurist.jury import Verdict

_STYLE = {
    Status.PASS: "bold green",
    Status.FAIL: "bold red",
    Status.ABSTAIN: "bold yellow",
    Status.ERROR: "bold magenta",
}


# Wide enough that nothing a command prints is ever cut, narrow enough for rich to lay out.
_UNWRAPPED = 100_000


def output_console(**options: Any) -> Console:
    """The console a command prints its result on. At a terminal, lines are fitted to its
    width; piped or redirected, a line is as long as its content: a file, a pager or a
    Markdown viewer wraps it, and a report's table cut at 80 columns would be no table."""
    console = Console(**options)
    if not console.is_terminal:
        console.width = _UNWRAPPED
        console.soft_wrap = True
    return console


def status_text(status: Status) -> Text:
    return Text(status.value.upper(), style=_STYLE[status])


def render_verdict(console: Console, subject: str, verdict: Verdict) -> None:
    """One headline, then each judge and each of its checks."""
    headline = Text.assemble(status_text(verdict.status), "  ", (subject, "bold"))
    console.print(headline)
    if verdict.aggregated.reasoning:
        console.print(Text(verdict.aggregated.reasoning, style="dim"))
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("judge")
    table.add_column("result")
    table.add_column("detail", overflow="fold")
    for name, judgment in verdict.by_name.items():
        checks = _interesting_checks(judgment)
        # When the checks follow, the judge's own line only needs to say what kind of problem.
        detail = _first_clause(judgment.reasoning) if checks else judgment.reasoning
        table.add_row(name, status_text(judgment.status), detail)
        for check in checks:
            mark = Text("ok", style="green") if check.passed else Text("no", style="red")
            table.add_row(Text(f"  {check.name}", style="dim"), mark, check.message)
    console.print(table)


def _first_clause(text: str) -> str:
    head, _, rest = text.partition(":")
    return head if rest else text


def _interesting_checks(judgment: Judgment) -> list[Check]:
    # A passing judge's checks repeat its headline; show them only when something is off.
    if judgment.passed:
        return []
    return [c for c in judgment.checks if not c.passed] or list(judgment.checks)
