"""Judges for tests: one returns a fixed judgment, one raises. Both count their calls."""

from jurist import BaseJudge, Context, JudgeKind, Judgment


class Fixed(BaseJudge):
    """Returns the same judgment every time."""

    def __init__(
        self, name: str, judgment: Judgment, kind: JudgeKind = JudgeKind.DETERMINISTIC
    ) -> None:
        super().__init__(name)
        self.judgment = judgment
        self.kind = kind
        self.calls = 0

    async def judge(self, ctx: Context) -> Judgment:
        self.calls += 1
        return self.judgment


class Raising(BaseJudge):
    """Raises `error` (a RuntimeError by default) every time."""

    def __init__(self, name: str, error: Exception | None = None) -> None:
        super().__init__(name)
        self.error = error or RuntimeError("model unavailable")
        self.calls = 0

    async def judge(self, ctx: Context) -> Judgment:
        self.calls += 1
        raise self.error
