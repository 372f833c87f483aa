"""The Judge protocol, the safe runner, and helpers for code that holds judges."""

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, Protocol, TypeVar, runtime_checkable

from jurist.core._context import Context
from jurist.core._judgment import Judgment
from jurist.core._status import JudgeKind
from jurist.core._tracing import TraceSpan, start_span, tracing_enabled

T = TypeVar("T")


@runtime_checkable
class Judge(Protocol):
    """Anything that judges a Context. One async method; `judge_sync` wraps it for scripts."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> JudgeKind: ...

    @property
    def description(self) -> str: ...

    async def judge(self, ctx: Context) -> Judgment: ...


def judge_name(judge: object) -> str:
    """A judge's name, or its type's name if it has none (protocol-less objects)."""
    name = getattr(judge, "name", None)
    return name if isinstance(name, str) and name else type(judge).__name__


def require_judges(judges: Iterable[object], owner: str) -> None:
    """Refuse, at construction, anything that cannot judge; name its position."""
    for position, member in enumerate(judges):
        if not callable(getattr(member, "judge", None)):
            raise TypeError(
                f"{owner} member {position} ({member!r}) is not a judge: "
                "it has no judge(ctx) method"
            )


def combined_kind(judges: Iterable[object]) -> JudgeKind:
    """The kind shared by all `judges`, or HYBRID when they differ."""
    kinds = {getattr(j, "kind", JudgeKind.HYBRID) for j in judges}
    return kinds.pop() if len(kinds) == 1 else JudgeKind.HYBRID


async def run_judge(judge: Judge, ctx: Context) -> Judgment:
    """Run one judge; whatever it raises or wrongly returns becomes an ERROR judgment.

    This is how jurist runs every judge (juries, composition, batch), so a broken judge
    is never a crash and never a FAIL. Cancellation still propagates.
    """
    name = judge_name(judge)
    # While tracing is off this costs one check: no span, no context manager, no coroutine.
    span = _judgment_span(judge, name) if tracing_enabled() else None
    try:
        try:
            result = await judge.judge(ctx)
        except Exception as exc:  # noqa: BLE001 - turning every failure into ERROR is the point
            judgment = Judgment.error(
                f"judge {name!r} raised {type(exc).__name__}: {exc}",
                exc,
                metadata={"judge": name},
            )
        else:
            judgment = (
                result
                if isinstance(result, Judgment)
                else Judgment.error(
                    f"judge {name!r} returned a {type(result).__name__}, not a Judgment",
                    metadata={"judge": name},
                )
            )
    except BaseException as exc:  # cancellation: the span says so, and it goes on
        if span is not None:
            span.end(exc)
        raise
    if span is not None:
        span.judged(judgment)
        span.end()
    return judgment


def _judgment_span(judge: Judge, name: str) -> TraceSpan | None:
    kind = getattr(judge, "kind", None)
    return start_span(
        f"judge {name}",
        {
            "jurist.judge.name": name,
            "jurist.judge.kind": kind.value if isinstance(kind, JudgeKind) else None,
        },
    )


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from sync code, inside or outside a running loop.

    Inside a running loop (a notebook, an async framework) the coroutine runs on its own
    loop in a worker thread, since the caller's loop cannot be re-entered.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def judge_sync(judge: Judge, ctx: Context) -> Judgment:
    """Judge from sync code. Errors become ERROR judgments, as everywhere in jurist."""
    return run_sync(lambda: run_judge(judge, ctx))
