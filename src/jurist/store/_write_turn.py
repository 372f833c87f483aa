"""SQLite's one write turn, shared by this process's writers and by the other processes that
write the same database file (`jurist serve --workers N`).

SQLite lets one transaction write at a time. A process that finds the file taken waits in
SQLite's busy handler, which sleeps 1, 2, 5, 10 ... up to 100 ms between tries: with two
service workers writing, each waited out those sleeps in turn (measured with wrk: two
workers answered 1.1x what one did). Here the writers of a process queue on an asyncio lock,
then take an advisory lock on a file beside the database (`<database>-writer`) before they
begin: at once when it is free, else waited for by a thread of the process's own, which the
kernel wakes as soon as the other process lets it go. The event loop goes on serving the
process's other requests meanwhile.

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

from jurist.store._engine import BUSY_TIMEOUT_S


class WriteTurn:
    """`async with turn:` holds this process's and the database file's write turn."""

    def __init__(self, database: str | None) -> None:
        self._local = asyncio.Lock()
        self._fd: int | None = None
        # One thread that waits in the kernel for the file's lock: woken the moment it is let
        # go, where polling from the event loop lost the turn to a process that takes it
        # again at once. One thread, so a wait given up and still blocked (a process stopped
        # while holding the turn) holds no more than itself.
        self._waiter: ThreadPoolExecutor | None = None
        if database and database != ":memory:" and not database.startswith("file::memory:"):
            self._fd = os.open(f"{database}-writer", os.O_RDWR | os.O_CREAT, 0o600)
            self._waiter = ThreadPoolExecutor(1, thread_name_prefix="jurist-write-turn")
            weakref.finalize(self, _close, self._fd, self._waiter)

    async def __aenter__(self) -> None:
        await self._local.acquire()
        try:
            await self._take_file()
        except BaseException:
            self._local.release()
            raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._local.release()

    async def _take_file(self) -> None:
        fd, waiter = self._fd, self._waiter
        if fd is None or waiter is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        wait = _Wait(fd)
        try:
            await asyncio.wait_for(
                asyncio.wrap_future(waiter.submit(wait.take)), timeout=BUSY_TIMEOUT_S
            )
        except asyncio.CancelledError:
            if wait.give_up():  # taken as the wait ended: let it go, nobody will use it
                fcntl.flock(fd, fcntl.LOCK_UN)
            raise
        except TimeoutError:
            if wait.give_up():  # taken as the wait ended: the turn is ours after all
                return
            raise TimeoutError(
                f"another process has held the database's write turn for {BUSY_TIMEOUT_S:g} s"
            ) from None


class _Wait:
    """One wait for the file's lock in the waiter thread, which a caller may give up: if the
    lock comes after that, the thread lets it go at once."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._guard = threading.Lock()
        self._given_up = False
        self._taken = False

    def take(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        with self._guard:
            if self._given_up:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            else:
                self._taken = True

    def give_up(self) -> bool:
        """Give the wait up; whether the lock was taken for the caller before that."""
        with self._guard:
            self._given_up = not self._taken
            return self._taken


def _close(fd: int, waiter: ThreadPoolExecutor) -> None:
    waiter.shutdown(wait=False, cancel_futures=True)
    os.close(fd)
