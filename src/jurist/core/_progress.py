"""Telling whoever watches what a long piece of work is doing: loading a model, claim 2 of 5.

Work reports its steps with `report` (or a `Steps` counter); whoever wants to hear of them
installs a reporter with `reporting` around the work. The reporter lives in a context
variable: asyncio tasks and `asyncio.to_thread` carry it into what they run, so concurrent
judges report to whoever started them, and with no reporter installed a step costs nothing.
A reporter is a display's business: one that raises never breaks the work it watches.
"""

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """One step of work: `what` is being done; `done` of `total` such steps are finished,
    when they are counted; `name` says which one finished (a validation layer's name)."""

    what: str
    done: int | None = None
    total: int | None = None
    name: str | None = None

    def __str__(self) -> str:
        if self.done is None or self.total is None:
            return self.what
        counted = f"{self.what} {self.done} of {self.total} done"
        return f"{counted}: {self.name}" if self.name else counted


Reporter = Callable[[Step], None]

_reporter: ContextVar[Reporter | None] = ContextVar("jurist_progress_reporter", default=None)


def report(step: Step | str) -> None:
    """Tell the installed reporter, if any, of `step`."""
    reporter = _reporter.get()
    if reporter is None:
        return
    try:
        reporter(step if isinstance(step, Step) else Step(step))
    except Exception:  # a display that fails must not fail the judgment it shows
        log.exception("the progress reporter failed on %s", step)


@contextlib.contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """Send the steps of the work done inside this block (and the tasks it starts) to
    `reporter`."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


class Steps:
    """Counts the finished steps of one kind of work and reports each: "claim 2 of 5".
    Steps finish in any order (they run concurrently); the count is of finished ones."""

    def __init__(self, what: str, total: int) -> None:
        self.what = what
        self.total = total
        self._done = 0
        self._lock = threading.Lock()

    def done(self, name: str | None = None) -> None:
        with self._lock:
            self._done += 1
            done = self._done
        report(Step(self.what, done, self.total, name))
