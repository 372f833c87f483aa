"""SQLite's one write turn, shared by this process's writers and by the other processes that
write the same database file (`jurist serve --workers N`).

SQLite lets one transaction write at a time. A process that finds the file taken waits in
SQLite's busy handler, which sleeps 1, 2, 5, 10 ... up to 100 ms between tries: with two
service workers writing, each waited out those sleeps in turn (measured with wrk: two
workers answered 1.1x what one did). Here the writers of a process queue on an asyncio lock,
then take an advisory lock on a file beside the database (`<database>-writer`) before they
begin: at once when it is free, else waited for by a thread of the process's own, which the
kernel wakes as soon as the other process lets it go. The event loop goes on serving the
process's other requests meanwhile. A second file (`<database>-writer-next`) is held while
waiting, so a process that has just let the turn go queues behind the one waiting for it:
two busy processes take turns (without it, one took the turn again and again, and a request
of the other waited up to 0.9 s at 16 connections).

A writer that cannot have the turn within the database's busy timeout gets a TimeoutError (an
unavailable database, as a busy file always was): a process stopped while holding it does not
hang the others. A process that dies holding it loses it with its file descriptor.
"""

import asyncio
import fcntl
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType

from jurist.store._engine import BUSY_TIMEOUT_S, on_file


class WriteTurn:
    """`async with turn:` holds this process's and the database file's write turn."""

    def __init__(self, database: str | None) -> None:
        self._local = asyncio.Lock()
        self._files: _Files | None = None
        # One thread that waits in the kernel for the files' locks: woken the moment they are
        # let go, where polling from the event loop lost the turn to a process that takes it
        # again at once. One thread, so a wait given up and still blocked (a process stopped
        # while holding the turn) holds no more than itself.
        self._waiter: ThreadPoolExecutor | None = None
        if on_file(database):
            self._files = _Files(
                os.open(f"{database}-writer", os.O_RDWR | os.O_CREAT, 0o600),
                os.open(f"{database}-writer-next", os.O_RDWR | os.O_CREAT, 0o600),
            )
            self._waiter = ThreadPoolExecutor(1, thread_name_prefix="jurist-write-turn")
            weakref.finalize(self, _close, self._files, self._waiter)

    async def acquire(self) -> None:
        """Wait for the turn; a TimeoutError when another process holds it past the busy
        timeout."""
        await self._local.acquire()
        try:
            await self._take_files()
        except BaseException:
            self._local.release()
            raise

    def release(self) -> None:
        try:
            if self._files is not None:
                fcntl.flock(self._files.turn, fcntl.LOCK_UN)
        finally:
            self._local.release()

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()

    async def _take_files(self) -> None:
        files, waiter = self._files, self._waiter
        if files is None or waiter is None:
            return
        # The turn is taken through the "next" lock, held only while waiting for the turn:
        # a process that has just let the turn go must queue behind the one already waiting
        # for it, so two busy processes take turns rather than one taking it again and again.
        try:
            fcntl.flock(files.next, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            queued = False
        else:
            queued = True
            try:
                fcntl.flock(files.turn, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pass
            else:
                fcntl.flock(files.next, fcntl.LOCK_UN)
                return
        wait = _Wait(files, queued=queued)
        try:
            await asyncio.wait_for(
                asyncio.wrap_future(waiter.submit(wait.take)), timeout=BUSY_TIMEOUT_S
            )
        except asyncio.CancelledError:
            if wait.give_up():  # taken as the wait ended: let it go, nobody will use it
                fcntl.flock(files.turn, fcntl.LOCK_UN)
            raise
        except TimeoutError:
            if wait.give_up():  # taken as the wait ended: the turn is ours after all
                return
            raise TimeoutError(
                f"another process has held the database's write turn for {BUSY_TIMEOUT_S:g} s"
            ) from None


class _Files:
    def __init__(self, turn: int, next: int) -> None:
        self.turn = turn  # held while writing
        self.next = next  # held while waiting for the turn: one process waits at a time


class _Wait:
    """One wait for the turn in the waiter thread, which a caller may give up: if the turn
    comes after that, the thread lets it go at once."""

    def __init__(self, files: _Files, *, queued: bool) -> None:
        self._files = files
        self._queued = queued  # the "next" lock is held already
        self._guard = threading.Lock()
        self._given_up = False
        self._taken = False

    def take(self) -> None:
        files = self._files
        if not self._queued:
            fcntl.flock(files.next, fcntl.LOCK_EX)
        try:
            fcntl.flock(files.turn, fcntl.LOCK_EX)
        finally:
            fcntl.flock(files.next, fcntl.LOCK_UN)
        with self._guard:
            if self._given_up:
                fcntl.flock(files.turn, fcntl.LOCK_UN)
            else:
                self._taken = True

    def give_up(self) -> bool:
        """Give the wait up; whether the turn was taken for the caller before that."""
        with self._guard:
            self._given_up = not self._taken
            return self._taken


def _close(files: _Files, waiter: ThreadPoolExecutor) -> None:
    waiter.shutdown(wait=False, cancel_futures=True)
    os.close(files.turn)
    os.close(files.next)
