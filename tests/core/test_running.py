"""Running judges: errors become ERROR judgments; sync use inside and outside a loop."""

import asyncio

import pytest

from jurist import BaseJudge, Context, Judgment, Status, judge, judge_sync, run_judge

CTX = Context("goal", output="x")


class Raises(BaseJudge):
    async def judge(self, ctx: Context) -> Judgment:
        raise ConnectionError("provider unreachable")


class ReturnsNone(BaseJudge):
    async def judge(self, ctx: Context) -> Judgment:
        return None  # type: ignore[return-value]


async def test_a_raising_judge_becomes_error_with_its_cause():
    result = await run_judge(Raises(), CTX)
    assert result.status is Status.ERROR
    assert result.error_info == {"type": "ConnectionError", "message": "provider unreachable"}
    assert result.metadata["judge"] == "raises"


async def test_a_judge_returning_garbage_is_an_error_not_a_fail():
    result = await run_judge(ReturnsNone(), CTX)
    assert result.status is Status.ERROR
    assert "NoneType" in result.reasoning


async def test_cancellation_is_not_swallowed():
    started = asyncio.Event()

    @judge
    async def slow(ctx: Context) -> bool:
        started.set()
        await asyncio.Event().wait()
        return True

    task = asyncio.ensure_future(run_judge(slow, CTX))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_judge_sync_without_a_loop():
    assert judge_sync(Raises(), CTX).status is Status.ERROR


async def test_judge_sync_inside_a_running_loop():
    @judge
    async def uses_the_loop(ctx: Context) -> bool:
        await asyncio.sleep(0)
        return True

    # As in a notebook: sync code called while an event loop runs in this thread.
    assert judge_sync(uses_the_loop, CTX).passed


def test_default_names_come_from_the_class():
    class RegexJudge(Raises):
        pass

    class MyOwnCheck(Raises):
        pass

    assert RegexJudge().name == "regex"
    assert MyOwnCheck().name == "my_own_check"
    assert MyOwnCheck(name="custom").name == "custom"
