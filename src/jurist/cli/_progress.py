"""What a model-backed command is doing, on standard error while it works.

Only a person at a terminal sees it: with --json, or when standard error is not a terminal
(a pipe, a log, CI), nothing is drawn, so scripts read the same output as before. Rich
decides what a terminal is, so TTY_COMPATIBLE=1 (or FORCE_COLOR) shows it anywhere.
"""

import contextlib
from collections.abc import Iterator

from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from jurist.core import Step, reporting


def progress_console(*, quiet: bool = False) -> Console:
    """Standard error for progress, silent when `quiet` or when it is not a terminal."""
    console = Console(stderr=True)
    console.quiet = quiet or not console.is_terminal
    return console


@contextlib.contextmanager
def showing_progress(start: str, *, quiet: bool) -> Iterator[None]:
    """Show the steps the work inside this block reports (`jurist.core.report`): each on a
    spinner line as it happens; milestones (a model loading, a layer done) also as lines
    above it, so what was done stays visible."""
    console = progress_console(quiet=quiet)
    if console.quiet:
        yield
        return
    spinner = Spinner("dots", Text(start), style="status.spinner")
    live = Live(
        spinner, console=console, transient=True, redirect_stdout=False, redirect_stderr=False
    )

    def show(step: Step) -> None:
        if step.total is None or step.name is not None:
            console.print(Text.assemble(("· ", "dim"), str(step)), highlight=False)
        spinner.update(text=Text(str(step)))
        live.refresh()  # every step drawn as it happens, not only the one a tick finds

    with live, reporting(show):
        yield
