"""SQLite's one write turn, shared by this process's writers and by the other processes that
write the same database file (`jurist serve --workers N`).

SQLite lets one transaction write at a time. A process that finds the file taken waits in
SQLite's busy handler, which sleeps 1, 2, 5, 10 ... up to 100 ms between tries: with two
service workers writing, each waited out those sleeps in turn (measured with wrk: two
workers answered 1.1x what one did). Here the writers of a process queue on an asyncio lock,
then take an advisory lock on a file beside the database (`<database>-writer`) before they
begin: taken at once when it is free, else tried again every few hundred microseconds, so the
turn passes from one process to the next as soon as it ends. The waiting is on the event
loop, which goes on serving the process's other requests meanwhile.

A writer that cannot have the turn within the database's busy timeout gets a TimeoutError (an
unavailable database, as a busy file always was): a process stopped while holding it does not
hang the others. A process that dies holding it loses it with its file descriptor.
"""

import asyncio
import fcntl
import os
import weakref
from types import TracebackType

from jurist.store._engine import BUSY_TIMEOUT_S

# First retry after this, doubling up to the longest: a turn (one group commit, its sync to
# disk included) takes a few milliseconds.
_FIRST_RETRY_S = 0.0002
_LONGEST_RETRY_S = 0.002


class WriteTurn:
    """`async with turn:` holds this process's and the database file's write turn."""

    def __init__(self, database: str | None) -> None:
        self._local = asyncio.Lock()
        self._fd: int | None = None
        if database and database != ":memory:" and not database.startswith("file::memory:"):
            self._fd = os.open(f"{database}-writer", os.O_RDWR | os.O_CREAT, 0o600)
            weakref.finalize(self, os.close, self._fd)

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
        if self._fd is None:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BUSY_TIMEOUT_S
        pause = _FIRST_RETRY_S
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            if loop.time() >= deadline:
                raise TimeoutError(
                    f"another process has held the database's write turn for {BUSY_TIMEOUT_S:g} s"
                )
            await asyncio.sleep(pause)
            pause = min(pause * 2, _LONGEST_RETRY_S)
