"""Judges for the cluster tests. They are pickled to the workers, which import this module
(the workers are started with this process's sys.path), and they report which process
judged each item."""

import asyncio
import os
from pathlib import Path
from typing import Any

from jurist import BaseJudge, Context, Judgment

# On a worker: how many times each judge (by its token) was unpickled in this process.
UNPICKLED: dict[str, int] = {}


def unpickled(token: str) -> int:
    return UNPICKLED.get(token, 0)


class Where(BaseJudge):
    """PASS when the output says "pass", else FAIL, with the judging process's pid."""

    def __init__(self, token: str = "where") -> None:
        super().__init__("where")
        self.token = token

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        UNPICKLED[self.token] = UNPICKLED.get(self.token, 0) + 1

    async def judge(self, ctx: Context) -> Judgment:
        verdict = Judgment.ok if "pass" in ctx.output_text() else Judgment.fail
        return verdict(metadata={"pid": os.getpid()})


class Stall(Where):
    """As Where, but the first process to judge the item with output `victim` writes its pid
    to `marker` and never answers (the test kills it); any later attempt answers."""

    def __init__(self, victim: str, marker: Path) -> None:
        super().__init__("stall")
        self.victim = victim
        self.marker = marker

    async def judge(self, ctx: Context) -> Judgment:
        if ctx.output_text() == self.victim and not self.marker.exists():
            self.marker.write_text(str(os.getpid()))
            await asyncio.Event().wait()
        return await super().judge(ctx)
