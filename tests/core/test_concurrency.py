"""gather_ordered and SingleFlight: order, bounds, cancellation and shared computations.

Nothing here waits on time: probes block on events and the tests release them.
"""

import asyncio
import gc
import warnings

import pytest

from jurist.core import JuristError, SingleFlight, gather_ordered


async def _settle() -> None:
    """Let every task that can run do so, until each waits on something only a test sets."""
    for _ in range(20):
        await asyncio.sleep(0)


class _Probe:
    """Coroutines that count how many are running at once and finish when released."""

    def __init__(self, count: int) -> None:
        self.running = 0
        self.peak = 0
        self.entered: list[int] = []
        self.cancelled: list[int] = []
        self.release = [asyncio.Event() for _ in range(count)]

    async def item(self, index: int) -> str:
        self.running += 1
        self.peak = max(self.peak, self.running)
        self.entered.append(index)
        try:
            await self.release[index].wait()
        except asyncio.CancelledError:
            self.cancelled.append(index)
            raise
        finally:
            self.running -= 1
        return f"result {index}"


async def test_results_come_in_the_order_given_whatever_order_they_finish_in() -> None:
    probe = _Probe(4)
    run = asyncio.ensure_future(gather_ordered(probe.item(i) for i in range(4)))
    await _settle()
    for event in reversed(probe.release):
        event.set()
        await _settle()
    assert await run == ["result 0", "result 1", "result 2", "result 3"]
    assert probe.peak == 4


async def test_the_limit_bounds_how_many_run_at_once_and_turns_go_in_order() -> None:
    probe = _Probe(5)
    run = asyncio.ensure_future(gather_ordered((probe.item(i) for i in range(5)), limit=2))
    await _settle()
    assert probe.entered == [0, 1]
    probe.release[1].set()
    await _settle()
    assert probe.entered == [0, 1, 2]
    for event in probe.release:
        event.set()
        await _settle()
    assert await run == [f"result {i}" for i in range(5)]
    assert probe.peak == 2
    assert probe.entered == [0, 1, 2, 3, 4]


async def test_the_first_exception_cancels_the_rest_and_is_raised_as_itself() -> None:
    probe = _Probe(3)

    async def broken() -> str:
        await _settle()
        raise JuristError("broken")

    with pytest.raises(JuristError, match="broken"):
        await gather_ordered([probe.item(0), broken(), probe.item(2)])
    assert sorted(probe.cancelled) == [0, 2]
    assert probe.running == 0


async def test_coroutines_that_never_got_their_turn_are_closed_not_left_unawaited() -> None:
    probe = _Probe(4)

    async def broken() -> str:
        raise ValueError("broken")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="broken"):
            await gather_ordered([broken(), *(probe.item(i) for i in range(1, 4))], limit=1)
        gc.collect()
    # The one whose turn came as the failure ended may have started; it was cancelled.
    assert probe.entered == probe.cancelled
    assert set(probe.entered) <= {1}
    assert not [w for w in caught if "never awaited" in str(w.message)]


async def test_cancelling_the_caller_cancels_every_coroutine() -> None:
    probe = _Probe(3)
    run = asyncio.ensure_future(gather_ordered(probe.item(i) for i in range(3)))
    await _settle()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert sorted(probe.cancelled) == [0, 1, 2]


async def test_a_limit_under_one_is_refused() -> None:
    probe = _Probe(1)
    with pytest.raises(ValueError, match="limit must be at least 1"):
        await gather_ordered([probe.item(0)], limit=0)


class _Computation:
    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.release = asyncio.Event()
        self.fail = fail
        self.cancelled = 0

    async def __call__(self) -> dict[str, int]:
        self.calls += 1
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        if self.fail:
            raise JuristError(f"computation {self.calls} failed")
        return {"value": 42, "cost": 7}


def _without_cost(result: dict[str, int]) -> dict[str, int]:
    return {"value": result["value"]}


async def test_concurrent_callers_share_one_computation() -> None:
    flight: SingleFlight[str, dict[str, int]] = SingleFlight(shared=_without_cost)
    compute = _Computation()
    callers = [asyncio.ensure_future(flight("key", compute)) for _ in range(3)]
    await _settle()
    compute.release.set()
    first, *others = await asyncio.gather(*callers)
    assert compute.calls == 1
    assert first == {"value": 42, "cost": 7}
    assert others == [{"value": 42}, {"value": 42}]
    # Remembered: a later caller shares it too, without computing.
    assert await flight("key", compute) == {"value": 42}
    assert compute.calls == 1


async def test_other_keys_do_not_wait_for_one_in_flight() -> None:
    flight: SingleFlight[str, dict[str, int]] = SingleFlight()
    slow, fast = _Computation(), _Computation()
    waiting = asyncio.ensure_future(flight("slow", slow))
    fast.release.set()
    assert await flight("fast", fast) == {"value": 42, "cost": 7}
    assert not waiting.done()
    slow.release.set()
    await waiting


@pytest.mark.parametrize("keep", ["none", "results", "all"])
async def test_a_failure_reaches_every_waiter_and_keep_says_if_it_is_remembered(
    keep: str,
) -> None:
    flight: SingleFlight[str, dict[str, int]] = SingleFlight(keep=keep)  # type: ignore[arg-type]
    compute = _Computation(fail=True)
    callers = [asyncio.ensure_future(flight("key", compute)) for _ in range(3)]
    await _settle()
    compute.release.set()
    outcomes = await asyncio.gather(*callers, return_exceptions=True)
    assert compute.calls == 1
    assert all(isinstance(o, JuristError) and str(o) == "computation 1 failed" for o in outcomes)
    with pytest.raises(JuristError, match="computation 1 failed" if keep == "all" else "2"):
        await flight("key", compute)
    assert compute.calls == (1 if keep == "all" else 2)


async def test_keep_none_shares_only_what_is_in_flight() -> None:
    flight: SingleFlight[str, dict[str, int]] = SingleFlight(keep="none")
    compute = _Computation()
    compute.release.set()
    await flight("key", compute)
    await flight("key", compute)
    assert compute.calls == 2


async def test_one_caller_cancelled_does_not_cancel_the_computation_for_the_others() -> None:
    flight: SingleFlight[str, dict[str, int]] = SingleFlight()
    compute = _Computation()
    leaving = asyncio.ensure_future(flight("key", compute))
    staying = asyncio.ensure_future(flight("key", compute))
    await _settle()
    leaving.cancel()
    await _settle()
    compute.release.set()
    assert await staying == {"value": 42, "cost": 7}
    assert leaving.cancelled()
    assert (compute.calls, compute.cancelled) == (1, 0)


async def test_a_computation_nobody_waits_for_is_cancelled_and_forgotten() -> None:
    flight: SingleFlight[str, dict[str, int]] = SingleFlight()
    compute = _Computation()
    callers = [asyncio.ensure_future(flight("key", compute)) for _ in range(2)]
    await _settle()
    for caller in callers:
        caller.cancel()
    await _settle()
    assert compute.cancelled == 1
    compute.release.set()
    assert await flight("key", compute) == {"value": 42, "cost": 7}
    assert compute.calls == 2


def test_an_unknown_keep_is_refused() -> None:
    with pytest.raises(ValueError, match="keep must be one of"):
        SingleFlight(keep="forever")  # type: ignore[arg-type]
