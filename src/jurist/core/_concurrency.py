"""Structured fan-out and shared computations: the two ways jurist runs things concurrently.

- `gather_ordered` runs coroutines together, at most `limit` at a time, and returns their
  results in the order given. It is a TaskGroup: nothing outlives the call, and the first
  exception cancels the rest and is raised as itself.
- `SingleFlight` runs one computation per key however many callers ask for it, even at the
  same time, and (as `keep` says) remembers what it found for later callers.
"""

import asyncio
from collections.abc import Callable, Coroutine, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from jurist.core._progress import Steps

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

Keep = Literal["none", "results", "all"]
KEEP: tuple[Keep, ...] = ("none", "results", "all")


async def gather_ordered(
    coroutines: Iterable[Coroutine[Any, Any, T]],
    limit: int | None = None,
    *,
    steps: Steps | None = None,
) -> list[T]:
    """Await every coroutine concurrently; their results, in the order given. With `steps`,
    each one that finishes is reported as a step done ("claim 2 of 5").

    Tasks are created in order, and with a `limit` they take their turns in order too, so a
    one-at-a-time runtime answers them in order (prompts that share a head reuse its cache).
    The first exception cancels the others, waits for them, and is raised as itself rather
    than inside an ExceptionGroup; cancelling the caller cancels them all.
    """
    pending = list(coroutines)
    if limit is not None and limit < 1:
        for coroutine in pending:
            coroutine.close()
        raise ValueError(f"limit must be at least 1, not {limit}")
    gate = asyncio.Semaphore(limit) if limit is not None and limit < len(pending) else None
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_taking_turns(c, gate, steps)) for c in pending]
    except BaseExceptionGroup as failed:
        first = failed.exceptions[0]
        if len(failed.exceptions) == 1:
            raise first from None
        raise first from failed  # the others stay readable in the group
    return [task.result() for task in tasks]


async def _taking_turns(
    coroutine: Coroutine[Any, Any, T], gate: asyncio.Semaphore | None, steps: Steps | None
) -> T:
    try:
        if gate is None:
            result = await coroutine
        else:
            async with gate:
                result = await coroutine
        if steps is not None:
            steps.done()
        return result
    finally:
        # Cancelled while waiting for its turn, the coroutine never started: close it so it
        # is not reported as never awaited.
        coroutine.close()


@dataclass
class _Flight(Generic[T]):
    task: asyncio.Task[T]
    waiters: int = 0


class SingleFlight(Generic[K, T]):
    """One computation per key: concurrent callers of a key share the one in flight.

    `keep` is what outlives a computation, for the lifetime of this object: "none" (only
    computations in flight are shared), "results" (finished results are reused; a failure
    reaches the callers waiting for it, and the next caller tries again) or "all" (failures
    are remembered too, and raised to every later caller). An object per request scopes the
    memo to that request; one held by a judge, to the judge.

    The caller that started a computation gets its result as is; every other caller gets
    `shared(result)` (e.g. the result without its cost, so totals count it once).

    The computation runs in a task of its own: one caller being cancelled does not cancel
    it for the others, but once no caller waits for it any more it is cancelled and
    forgotten.
    """

    def __init__(self, *, keep: Keep = "results", shared: Callable[[T], T] | None = None) -> None:
        if keep not in KEEP:
            raise ValueError(f"keep must be one of {', '.join(KEEP)}, not {keep!r}")
        self.keep: Keep = keep
        self._shared = shared
        self._results: dict[K, T] = {}
        self._failures: dict[K, BaseException] = {}
        self._running: dict[K, _Flight[T]] = {}

    async def __call__(self, key: K, compute: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """The result of `compute()` for `key`: computed now, joined, or remembered."""
        if key in self._results:
            return self._share(self._results[key])
        if key in self._failures:
            raise self._failures[key]
        flight = self._running.get(key)
        started = flight is None
        if flight is None:
            flight = self._running[key] = _Flight(asyncio.create_task(compute()))
            flight.task.add_done_callback(lambda task: self._settle(key, task))
        flight.waiters += 1
        try:
            result = await asyncio.shield(flight.task)
        finally:
            flight.waiters -= 1
            if not flight.waiters and not flight.task.done():
                # Nobody waits for it any more: stop it, and let the next caller start anew.
                flight.task.cancel()
                self._forget(key, flight)
        return result if started else self._share(result)

    def _share(self, result: T) -> T:
        return result if self._shared is None else self._shared(result)

    def _forget(self, key: K, flight: _Flight[T]) -> None:
        if self._running.get(key) is flight:
            del self._running[key]

    def _settle(self, key: K, task: asyncio.Task[T]) -> None:
        flight = self._running.get(key)
        newer = flight is not None and flight.task is not task
        if flight is not None and not newer:
            del self._running[key]
        if task.cancelled():
            return
        failure = task.exception()  # retrieved here, so an unheard failure is not logged
        if newer:
            return  # this one was abandoned, and another computation has the key now
        if failure is not None:
            if self.keep == "all":
                self._failures[key] = failure
        elif self.keep != "none":
            self._results[key] = task.result()
