"""BaseJudge and composition: `&`, `|`, `~`, all_of, any_of, not_, named and @judge.

How statuses combine (sub-judgments run in order and stop early once the answer is fixed):

- all_of: any FAIL -> FAIL (stops there); else any ERROR -> ERROR; else any ABSTAIN ->
  ABSTAIN; else PASS.
- any_of: any PASS -> PASS (stops there); else any ERROR -> ERROR; else any ABSTAIN ->
  ABSTAIN; else FAIL.

An ERROR outranks ABSTAIN because a broken judge might have decided either way; neither
ever turns into PASS or FAIL on its own.
"""

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, overload

from jurist.core._context import Context
from jurist.core._judge import Judge, combined_kind, judge_name, require_judges, run_judge
from jurist.core._judgment import Check, Judgment, Usage
from jurist.core._scores import BooleanScore, NumericScore
from jurist.core._status import JudgeKind, Status


class BaseJudge(ABC):
    """A convenient base: name, kind and description, plus `&`, `|` and `~` composition."""

    kind: JudgeKind = JudgeKind.DETERMINISTIC

    def __init__(self, name: str | None = None, description: str = "") -> None:
        self.name: str = name or _default_name(type(self).__name__)
        self.description: str = description

    @abstractmethod
    async def judge(self, ctx: Context) -> Judgment: ...

    def __and__(self, other: Judge) -> "AllOf":
        return all_of(self, other)

    def __or__(self, other: Judge) -> "AnyOf":
        return any_of(self, other)

    def __invert__(self) -> "Not":
        return not_(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def _default_name(class_name: str) -> str:
    """`RegexJudge` -> "regex"; `MyCheck` -> "my_check"."""
    stem = class_name.removesuffix("Judge") or class_name
    out = []
    for i, char in enumerate(stem):
        if char.isupper() and i and not stem[i - 1].isupper():
            out.append("_")
        out.append(char.lower())
    return "".join(out)


class _Composite(BaseJudge):
    def __init__(self, judges: Sequence[Judge], name: str | None, description: str) -> None:
        if not judges:
            raise ValueError(f"{type(self).__name__} needs at least one judge")
        require_judges(judges, type(self).__name__)
        self.judges: tuple[Judge, ...] = tuple(judges)
        self.labels: tuple[str, ...] = _distinct_labels(self.judges)
        self._auto_named = name is None
        label = type(self).__name__.lower().replace("allof", "all_of").replace("anyof", "any_of")
        super().__init__(
            name or f"{label}({', '.join(judge_name(j) for j in judges)})", description
        )
        self.kind = combined_kind(self.judges)

    async def _run(
        self, ctx: Context, stop_on: Status
    ) -> tuple[list[tuple[str, Judgment]], list[str]]:
        done: list[tuple[str, Judgment]] = []
        for index, (label, member) in enumerate(zip(self.labels, self.judges, strict=True)):
            judgment = await run_judge(member, ctx)
            done.append((label, judgment))
            if judgment.status is stop_on:
                return done, list(self.labels[index + 1 :])
        return done, []

    def _result(
        self, status: Status, reasoning: str, done: list[tuple[str, Judgment]], skipped: list[str]
    ) -> Judgment:
        score = (
            BooleanScore(status is Status.PASS) if status in (Status.PASS, Status.FAIL) else None
        )
        return Judgment(
            status,
            score,
            reasoning,
            tuple(Check.of(name, j) for name, j in done),
            None,
            Usage.total(j.usage for _, j in done),
            {"statuses": {name: j.status.value for name, j in done}, "skipped": skipped},
        )


def _distinct_labels(judges: Sequence[Judge]) -> tuple[str, ...]:
    """Judge names, with "#2", "#3"... on repeats so no sub-result hides another."""
    seen: dict[str, int] = {}
    labels = []
    for member in judges:
        name = judge_name(member)
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return tuple(labels)


def _describe(done: list[tuple[str, Judgment]], status: Status) -> str:
    parts = []
    for name, judgment in done:
        if judgment.status is status:
            parts.append(f"{name} ({judgment.reasoning})" if judgment.reasoning else name)
    return ", ".join(parts)


class AllOf(_Composite):
    """Passes when every judge passes. Stops at the first FAIL."""

    async def judge(self, ctx: Context) -> Judgment:
        done, skipped = await self._run(ctx, stop_on=Status.FAIL)
        statuses = {j.status for _, j in done}
        if Status.FAIL in statuses:
            return self._result(
                Status.FAIL, f"failed: {_describe(done, Status.FAIL)}", done, skipped
            )
        if Status.ERROR in statuses:
            return self._result(
                Status.ERROR, f"errored: {_describe(done, Status.ERROR)}", done, skipped
            )
        if Status.ABSTAIN in statuses:
            reason = f"abstained: {_describe(done, Status.ABSTAIN)}"
            return self._result(Status.ABSTAIN, reason, done, skipped)
        return self._result(Status.PASS, f"all {len(done)} passed", done, skipped)


class AnyOf(_Composite):
    """Passes when some judge passes. Stops at the first PASS."""

    async def judge(self, ctx: Context) -> Judgment:
        done, skipped = await self._run(ctx, stop_on=Status.PASS)
        statuses = {j.status for _, j in done}
        if Status.PASS in statuses:
            return self._result(
                Status.PASS, f"passed: {_describe(done, Status.PASS)}", done, skipped
            )
        if Status.ERROR in statuses:
            return self._result(
                Status.ERROR, f"errored: {_describe(done, Status.ERROR)}", done, skipped
            )
        if Status.ABSTAIN in statuses:
            reason = f"abstained: {_describe(done, Status.ABSTAIN)}"
            return self._result(Status.ABSTAIN, reason, done, skipped)
        return self._result(Status.FAIL, f"none of {len(done)} passed", done, skipped)


def _flatten(cls: type[_Composite], judges: Sequence[Judge]) -> list[Judge]:
    flat: list[Judge] = []
    for member in judges:
        if type(member) is cls and member._auto_named:  # noqa: SLF001 - same module
            flat.extend(member.judges)
        else:
            flat.append(member)
    return flat


def all_of(*judges: Judge, name: str | None = None, description: str = "") -> AllOf:
    return AllOf(_flatten(AllOf, judges), name, description)


def any_of(*judges: Judge, name: str | None = None, description: str = "") -> AnyOf:
    return AnyOf(_flatten(AnyOf, judges), name, description)


class Not(BaseJudge):
    """PASS and FAIL swapped; ABSTAIN and ERROR stay what they are."""

    def __init__(self, inner: Judge, name: str | None = None, description: str = "") -> None:
        super().__init__(name or f"not({judge_name(inner)})", description)
        self.inner = inner
        self.kind = getattr(inner, "kind", JudgeKind.HYBRID)

    async def judge(self, ctx: Context) -> Judgment:
        inner = await run_judge(self.inner, ctx)
        if inner.status not in (Status.PASS, Status.FAIL):
            return inner
        score = inner.score
        if isinstance(score, BooleanScore):
            score = BooleanScore(not score.value)
        elif isinstance(score, NumericScore):
            score = NumericScore(score.max - (score.value - score.min), score.min, score.max)
        else:
            score = None
        flipped = Status.FAIL if inner.passed else Status.PASS
        reasoning = f"{judge_name(self.inner)} {inner.status.value}ed"
        if inner.reasoning:
            reasoning += f": {inner.reasoning}"
        return inner.evolve(status=flipped, score=score, reasoning=reasoning)


def not_(judge: Judge, name: str | None = None, description: str = "") -> Not:
    return Not(judge, name, description)


class Named(BaseJudge):
    """Another judge under a new name and description."""

    def __init__(self, inner: Judge, name: str, description: str = "") -> None:
        if not name:
            raise ValueError("named() needs a non-empty name")
        super().__init__(name, description or getattr(inner, "description", ""))
        self.inner = inner
        self.kind = getattr(inner, "kind", JudgeKind.HYBRID)

    async def judge(self, ctx: Context) -> Judgment:
        return await run_judge(self.inner, ctx)


def named(judge: Judge, name: str, description: str = "") -> Named:
    return Named(judge, name, description)


JudgeFunction = Callable[[Context], bool | Judgment | Awaitable[bool | Judgment]]


class FunctionJudge(BaseJudge):
    """A plain function of the context, returning bool or Judgment, as a judge.

    Sync functions run on the event loop: keep them cheap, or write them `async`.
    """

    def __init__(
        self,
        fn: JudgeFunction,
        name: str | None = None,
        description: str = "",
        kind: JudgeKind = JudgeKind.DETERMINISTIC,
    ) -> None:
        doc = (inspect.getdoc(fn) or "").strip().splitlines()
        super().__init__(
            name or getattr(fn, "__name__", "function"), description or (doc[0] if doc else "")
        )
        self.fn = fn
        self.kind = kind

    async def judge(self, ctx: Context) -> Judgment:
        result: Any = self.fn(ctx)
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, Judgment):
            return result
        if isinstance(result, bool):
            return (
                Judgment.ok(score=BooleanScore(True))
                if result
                else Judgment.fail(score=BooleanScore(False))
            )
        raise TypeError(
            f"judge function {self.name!r} returned a {type(result).__name__}; "
            "it must return bool or Judgment"
        )


@overload
def judge(fn: JudgeFunction, /) -> FunctionJudge: ...


@overload
def judge(
    *, name: str | None = None, description: str = "", kind: JudgeKind = JudgeKind.DETERMINISTIC
) -> Callable[[JudgeFunction], FunctionJudge]: ...


def judge(
    fn: JudgeFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str = "",
    kind: JudgeKind = JudgeKind.DETERMINISTIC,
) -> FunctionJudge | Callable[[JudgeFunction], FunctionJudge]:
    """Turn a function of the context into a Judge: `@judge` or `@judge(name=...)`."""
    if fn is not None:
        return FunctionJudge(fn, name, description, kind)

    def wrap(inner: JudgeFunction) -> FunctionJudge:
        return FunctionJudge(inner, name, description, kind)

    return wrap
