"""While a batch runs, young garbage collections come at most every YOUNG_THRESHOLD
allocations; the process's thresholds come back when its last batch ends, and a process
that set its own collector up is left alone."""

import asyncio
import gc
from collections.abc import Iterator

import pytest
from batch_fakes import dataset

from jurist import BaseJudge, Context, Judgment
from jurist.core import YOUNG_THRESHOLD, batch_pace
from jurist.runner import evaluate


@pytest.fixture(autouse=True)
def default_collector() -> Iterator[None]:
    """Each test starts from CPython's defaults and leaves the process as it found it."""
    saved, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(700, 10, 10)
    gc.enable()
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        if not enabled:
            gc.disable()


class Thresholds(BaseJudge):
    """Records the collector's thresholds each time it judges."""

    def __init__(self, gate: asyncio.Event | None = None, waiting: int = 0) -> None:
        super().__init__("thresholds")
        self.seen: list[tuple[int, ...]] = []
        self.gate = gate
        self.waiting = waiting
        self.all_waiting = asyncio.Event()

    async def judge(self, ctx: Context) -> Judgment:
        self.seen.append(gc.get_threshold())
        if len(self.seen) == self.waiting:
            self.all_waiting.set()
        if self.gate is not None:
            await self.gate.wait()
        return Judgment.ok()


async def test_a_batch_runs_with_fewer_young_collections_and_restores_the_thresholds() -> None:
    judge = Thresholds()

    await evaluate(dataset(5), judge, concurrency=2)

    assert judge.seen == [(YOUNG_THRESHOLD, 10, 10)] * 5
    assert gc.get_threshold() == (700, 10, 10)


async def test_the_thresholds_come_back_only_when_the_last_of_concurrent_batches_ends() -> None:
    gate = asyncio.Event()
    first, second = Thresholds(gate, waiting=2), Thresholds()
    slow = asyncio.create_task(evaluate(dataset(2), first, concurrency=2))
    await first.all_waiting.wait()

    await evaluate(dataset(3), second, concurrency=1)
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)  # the first batch still runs
    gate.set()
    await slow

    assert second.seen == [(YOUNG_THRESHOLD, 10, 10)] * 3
    assert gc.get_threshold() == (700, 10, 10)


async def test_a_failed_batch_restores_the_thresholds_too() -> None:
    class Broken(Thresholds):
        async def judge(self, ctx: Context) -> Judgment:
            raise RuntimeError("boom")  # run_judge makes it an ERROR judgment

    def keep(result: object) -> dict[str, object]:
        raise ValueError("the caller's keep failed")

    with pytest.raises(ValueError, match="keep failed"):
        await evaluate(dataset(2), Broken(), keep=keep)  # type: ignore[arg-type]
    assert gc.get_threshold() == (700, 10, 10)

    seen: list[tuple[int, ...]] = []

    def failing() -> None:
        with batch_pace():
            seen.append(gc.get_threshold())
            raise KeyError("inside")

    with pytest.raises(KeyError, match="inside"):
        failing()
    assert seen == [(YOUNG_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)


def test_a_process_that_turned_collection_off_or_raised_it_is_left_alone() -> None:
    gc.disable()
    with batch_pace():
        assert gc.get_threshold() == (700, 10, 10)
        assert not gc.isenabled()
    gc.enable()

    gc.set_threshold(0, 10, 10)  # automatic collection off
    with batch_pace():
        assert gc.get_threshold() == (0, 10, 10)

    gc.set_threshold(50_000, 20, 5)
    with batch_pace():
        assert gc.get_threshold() == (50_000, 20, 5)
    assert gc.get_threshold() == (50_000, 20, 5)


def test_thresholds_changed_during_a_batch_are_kept() -> None:
    with batch_pace():
        gc.set_threshold(2_000, 5, 5)  # the application's own choice, made meanwhile
    assert gc.get_threshold() == (2_000, 5, 5)
