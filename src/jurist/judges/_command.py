"""CommandJudge: run a program (tests, a linter, a build) and judge by its exit code."""

import asyncio
import contextlib
import math
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jurist.core import BaseJudge, Check, Context, Judgment, Name
from jurist.judges._common import decided


class CommandJudge(BaseJudge):
    """PASS when a command exits with status 0.

    The command runs without a shell, in `cwd` (a relative cwd is taken inside the
    context's workspace), else in the workspace, else in the current directory. Its
    stdout and stderr are read together; the last `tail_chars` characters of them go into
    the judgment. `env` is added to the inherited environment. With `stdin_output=True`
    the output text is written to the command's standard input.

    A command that cannot start is an ERROR. One that outlives `timeout_s` is a FAIL, and
    its whole process tree is killed; so is anything it left running after it exited.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        cwd: str | os.PathLike[str] | None = None,
        timeout_s: float = 60.0,
        *,
        env: Mapping[str, str] | None = None,
        stdin_output: bool = False,
        tail_chars: int = 2000,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.argv: tuple[str, ...] = _argv(command)
        if cwd is not None and not isinstance(cwd, str | os.PathLike):
            raise TypeError(f"cwd must be a path or None, not {type(cwd).__name__}")
        self.cwd: Path | None = None if cwd is None else Path(cwd)
        if (
            isinstance(timeout_s, bool)
            or not isinstance(timeout_s, int | float)
            or not math.isfinite(timeout_s)
            or timeout_s <= 0
        ):
            raise ValueError(f"timeout_s must be a finite number of seconds > 0, not {timeout_s!r}")
        self.timeout_s = float(timeout_s)
        self.env: dict[str, str] | None = None if env is None else _env(env)
        self.stdin_output = stdin_output
        if isinstance(tail_chars, bool) or not isinstance(tail_chars, int) or tail_chars < 0:
            raise ValueError(f"tail_chars must be an int >= 0, not {tail_chars!r}")
        self.tail_chars = tail_chars

    def _workdir(self, ctx: Context) -> Path:
        if self.cwd is None:
            return ctx.workspace if ctx.workspace is not None else Path.cwd()
        if self.cwd.is_absolute() or ctx.workspace is None:
            return self.cwd
        return ctx.workspace / self.cwd

    async def judge(self, ctx: Context) -> Judgment:
        workdir = self._workdir(ctx)
        base: dict[str, Any] = {"command": list(self.argv), "cwd": str(workdir)}
        stdin_data = ctx.output_text().encode() if self.stdin_output else None
        loop = asyncio.get_running_loop()
        tail = _Tail(self.tail_chars)
        started = time.monotonic()
        try:
            # A protocol rather than create_subprocess_exec: on Python 3.11 Process.wait()
            # returns only once the output pipe closes, which a lingering grandchild can
            # postpone forever; process_exited says when the command itself is done.
            starting = asyncio.ensure_future(
                loop.subprocess_exec(
                    lambda: _Protocol(loop, tail),
                    *self.argv,
                    cwd=workdir,
                    env=None if self.env is None else {**os.environ, **self.env},
                    stdin=subprocess.DEVNULL if stdin_data is None else subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    # Its own session makes the command the leader of a process group, so the
                    # whole tree it spawns can be killed with one signal.
                    start_new_session=True,
                )
            )
            transport, protocol = await _started(starting)
        except OSError as exc:
            return Judgment.error(
                f"could not start {self.argv[0]!r} in {workdir}: {exc}", exc, metadata=base
            )

        pid = transport.get_pid()
        timed_out = False
        try:
            async with asyncio.timeout(self.timeout_s):
                if stdin_data is not None:
                    stdin = transport.get_pipe_transport(0)
                    if isinstance(stdin, asyncio.WriteTransport):
                        stdin.write(stdin_data)
                        # close() flushes what is buffered first; a command that exits
                        # without reading just drops it.
                        stdin.close()
                # Shielded: a cancelled await would cancel the future itself, and the
                # cleanup below still needs to wait on it.
                await asyncio.shield(protocol.exited)
                # Children left running would hold the output pipe open, and a judge
                # must not leave processes behind.
                _kill_group(pid)
                await asyncio.shield(protocol.output_closed)
        except TimeoutError:
            timed_out = True
        finally:
            # Also reached on cancellation: no process may outlive the judgment.
            _kill_group(pid)
            try:
                if transport.get_returncode() is None:
                    await asyncio.shield(protocol.exited)
            finally:
                transport.close()

        metadata = {
            **base,
            "duration_ms": round((time.monotonic() - started) * 1000, 3),
            "output_tail": tail.text(),
        }
        shown = f"; output tail:\n{metadata['output_tail']}" if metadata["output_tail"] else ""
        if timed_out:
            metadata.update(reason="timeout", timeout_s=self.timeout_s)
            message = f"timeout after {self.timeout_s:g}s; the process tree was killed"
            return decided(False, message + shown, [Check.fail("exit_code", message)], metadata)
        code = transport.get_returncode()
        metadata["exit_code"] = code
        if code == 0:
            return decided(True, "exit code 0", [Check.ok("exit_code", "0")], metadata)
        message = f"exit code {code}"
        if code is not None and code < 0:
            message = f"killed by signal {_signal_name(-code)} (exit code {code})"
        return decided(False, message + shown, [Check.fail("exit_code", message)], metadata)


def _argv(command: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"command {command!r} cannot be split into arguments: {exc}") from exc
    elif isinstance(command, Sequence):
        argv = list(command)
        for index, part in enumerate(argv):
            if not isinstance(part, str):
                raise TypeError(f"command[{index}] is a {type(part).__name__}, not a str")
    else:
        raise TypeError(f"command must be a sequence of str or a str, not {type(command).__name__}")
    if not argv or not argv[0]:
        raise ValueError("command must name a program to run")
    return tuple(argv)


def _env(env: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(env, Mapping):
        raise TypeError(f"env must be a mapping of str to str, not {type(env).__name__}")
    for key, value in env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"env[{key!r}] must map a str to a str, got {value!r}")
    return dict(env)


async def _started(
    starting: "asyncio.Future[tuple[asyncio.SubprocessTransport, _Protocol]]",
) -> tuple[asyncio.SubprocessTransport, "_Protocol"]:
    """The started command. Cancelled while its pipes are still being connected, the
    command may already be running and have spawned children: asyncio would kill the command
    alone, so its whole group is killed here before the cancellation goes on."""
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            transport, _ = await starting
            _kill_group(transport.get_pid())
            transport.close()
        raise


def _kill_group(pgid: int) -> None:
    # ProcessLookupError: nothing is left in the group, every process in it has exited.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


class _Tail:
    """The last characters of a stream, holding a bounded number of bytes."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        # A UTF-8 character takes at most 4 bytes; the extra 4 absorb a character cut at
        # the front, so the decoded tail still holds `chars` whole characters.
        self.limit = chars * 4 + 4 if chars else 0
        self.data = bytearray()

    def add(self, data: bytes) -> None:
        self.data += data
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]

    def text(self) -> str:
        if not self.chars:
            return ""
        return self.data.decode("utf-8", errors="replace")[-self.chars :]


class _Protocol(asyncio.SubprocessProtocol):
    """Collects the output tail and says when the process exits and its output ends."""

    def __init__(self, loop: asyncio.AbstractEventLoop, tail: _Tail) -> None:
        self.tail = tail
        self.exited: asyncio.Future[None] = loop.create_future()
        self.output_closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self.tail.add(data.encode() if isinstance(data, str) else data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.output_closed.done():
            self.output_closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)
