"""Progress steps: reported to whoever installed a reporter, through tasks and threads, and
never at the expense of the work."""

import asyncio

from jurist.core import Step, Steps, gather_ordered, report, reporting


async def _after(delay_turns: int, value: str) -> str:
    for _ in range(delay_turns):
        await asyncio.sleep(0)
    return value


async def test_gather_ordered_reports_each_finished_step_with_its_count():
    steps: list[Step] = []
    with reporting(steps.append):
        got = await gather_ordered(
            (_after(turns, f"c{turns}") for turns in (3, 1, 2)), steps=Steps("claim", 3)
        )
    assert got == ["c3", "c1", "c2"]  # results keep their order; steps count as they finish
    assert [str(step) for step in steps] == [
        "claim 1 of 3 done",
        "claim 2 of 3 done",
        "claim 3 of 3 done",
    ]


async def test_a_step_reaches_the_reporter_from_a_worker_thread():
    steps: list[Step] = []
    with reporting(steps.append):
        await asyncio.to_thread(report, "loading model x")
    assert steps == [Step("loading model x")]


async def test_without_a_reporter_or_after_its_block_nothing_is_heard():
    steps: list[Step] = []
    report("before")
    with reporting(steps.append):
        Steps("layer", 1).done("schema")
    report("after")
    assert [str(step) for step in steps] == ["layer 1 of 1 done: schema"]


def test_a_failing_reporter_does_not_fail_the_work():
    def broken(step: Step) -> None:
        raise RuntimeError("the display is gone")

    with reporting(broken):
        report("still fine")  # logged, not raised
