"""Judges and progress watchers for the runner's tests (imported by the kill -9 script too,
so a judge's recorded type is the same in both processes)."""

import asyncio

from jurist import BaseJudge, Context, Judgment
from jurist.data import dataset_from_rows


def rows(n: int) -> list[dict[str, str]]:
    """n rows with ids 1..n; odd ones say "pass", even ones "fail"."""
    return [{"id": str(i), "output": "pass" if i % 2 else "fail"} for i in range(1, n + 1)]


def dataset(n: int):
    return dataset_from_rows(rows(n))


class Gate(BaseJudge):
    """PASS when the output says "pass", else FAIL. After `open_for` calls every further
    call blocks for good, so a run can be stopped with exactly `open_for` items judged."""

    def __init__(self, open_for: int | None = None) -> None:
        super().__init__("gate")
        self.open_for = open_for
        self.calls: list[str] = []

    async def judge(self, ctx: Context) -> Judgment:
        self.calls.append(ctx.output_text())
        if self.open_for is not None and len(self.calls) > self.open_for:
            await asyncio.Event().wait()
        return Judgment.ok() if "pass" in ctx.output_text() else Judgment.fail()


class Watcher:
    """A Progress that records what it is told; `reached(k)` is set once k items are
    stored."""

    def __init__(self, k: int | None = None) -> None:
        self.k = k
        self.started: dict[str, object] | None = None
        self.advanced: list[str] = []
        self.finished = 0
        self.reached = asyncio.Event()

    def start(self, *, total: int, done: int, run: str | None) -> None:
        self.started = {"total": total, "done": done, "run": run}

    def advance(self, item_id: str, judgment: Judgment) -> None:
        self.advanced.append(item_id)
        if self.k is not None and len(self.advanced) >= self.k:
            self.reached.set()

    def finish(self) -> None:
        self.finished += 1
