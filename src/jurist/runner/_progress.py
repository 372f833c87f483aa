"""Watching a batch run: a Progress hears of each stored judgment; `BarProgress` draws it.

On a terminal the bar redraws as items complete; anywhere else (a log, a pipe, CI) rich
draws nothing until the end and then prints the final state once, as one line.
"""

import time
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

from jurist.core import Judgment, Status, Usage


class Progress(Protocol):
    """What the runner tells about a run as it goes."""

    def start(self, *, total: int, done: int, run: str | None) -> None:
        """The run begins: `total` items, `done` of them stored already (a resumed run);
        `run` is its name or id (None when nothing is stored)."""

    def advance(self, item_id: str, judgment: Judgment) -> None:
        """An item's judgment is stored."""

    def finish(self) -> None:
        """The run ended: finished, interrupted or failed."""


class BarProgress:
    """A rich progress bar: items done of total, items/s, time left (elapsed at the end),
    errors, tokens and cost. It writes to standard error unless given a console. `run` is
    the run's name or id once it has started."""

    def __init__(self, console: Console | None = None) -> None:
        if console is None:
            console = Console(stderr=True)
            if not console.is_terminal:
                # The one final line goes to a log: room for a run's id, nothing cut.
                console.width = max(console.width, 160)
        self._console = console
        self.run: str | None = None
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None
        self._started = 0.0
        self._judged = 0
        self._errors = 0
        self._usage: Usage | None = None

    def start(self, *, total: int, done: int, run: str | None) -> None:
        self.run = run
        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(elapsed_when_finished=True),
            TextColumn("{task.fields[tally]}"),
            console=self._console,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._started = time.perf_counter()
        self._task = self._bar.add_task(
            f"eval {run}" if run else "eval",
            total=total,
            completed=done,
            rate="",
            tally=self._tally(),
        )
        self._bar.start()

    def advance(self, item_id: str, judgment: Judgment) -> None:
        if self._bar is None or self._task is None:
            return
        self._judged += 1
        self._errors += judgment.status is Status.ERROR
        if judgment.usage is not None:
            self._usage = judgment.usage if self._usage is None else self._usage + judgment.usage
        elapsed = time.perf_counter() - self._started
        rate = f"{self._judged / elapsed:.1f} items/s" if elapsed > 0 else ""
        self._bar.update(self._task, advance=1, rate=rate, tally=self._tally())

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _tally(self) -> str:
        usage = self._usage
        tokens = usage.total_tokens if usage else 0
        cost = (
            "cost unknown"
            if usage is None or usage.cost_usd is None
            else (f"${usage.cost_usd:.4f}")
        )
        return f"errors {self._errors}, tokens {tokens}, {cost}"
