"""CommandJudge: exit codes, output tails, where it runs, stdin, timeouts and process trees."""

import asyncio
import os
import sys
from pathlib import Path

import pytest

from jurist.core import BooleanScore, Context, Judgment, Status, run_judge
from jurist.judges import CommandJudge

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def ctx(output: object = None, workspace: Path | None = None) -> Context:
    return Context("make the tests pass", output=output, workspace=workspace)


def is_dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A killed orphan stays a zombie until init reaps it, and some container inits never
    # do; a zombie runs nothing, so it counts as dead.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in {"Z", "X"}


async def wait_until_dead(pid: int) -> bool:
    # Up to 10 s: on a machine busy with a model generation the kill can take seconds.
    for _ in range(1000):
        if is_dead(pid):
            return True
        await asyncio.sleep(0.01)
    return False


def pidfile_text(pidfile: Path) -> str:
    return pidfile.read_text() if pidfile.exists() else ""


def printed_dir_is(result: Judgment, directory: Path) -> bool:
    return Path(result.metadata["output_tail"].strip()).resolve() == directory.resolve()


async def read_pid(pidfile: Path) -> int:
    for _ in range(500):
        text = pidfile_text(pidfile)
        if text.endswith("\n"):
            return int(text)
        await asyncio.sleep(0.01)
    raise AssertionError(f"{pidfile} was never written")


async def test_exit_zero_passes():
    result = await run_judge(CommandJudge(["sh", "-c", "echo all good"]), ctx())
    assert result.status is Status.PASS
    assert result.score == BooleanScore(True)
    assert result.metadata["exit_code"] == 0
    assert result.metadata["output_tail"] == "all good\n"
    assert result.metadata["duration_ms"] >= 0
    assert result.metadata["command"] == ("sh", "-c", "echo all good")


async def test_non_zero_exit_fails_with_the_merged_output_tail():
    judge = CommandJudge(["sh", "-c", "echo 3 passed; echo 1 failed >&2; exit 3"])
    result = await run_judge(judge, ctx())
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert result.metadata["exit_code"] == 3
    assert "3 passed" in result.metadata["output_tail"]
    assert "1 failed" in result.metadata["output_tail"]
    assert result.reasoning.startswith("exit code 3")
    assert "1 failed" in result.reasoning
    assert [(c.name, c.passed) for c in result.checks] == [("exit_code", False)]


async def test_only_the_tail_of_a_long_output_is_kept():
    script = "i=0; while [ $i -lt 3000 ]; do printf 'line%05d\\n' $i; i=$((i+1)); done; exit 1"
    result = await run_judge(CommandJudge(["sh", "-c", script], tail_chars=100), ctx())
    tail = result.metadata["output_tail"]
    assert len(tail) == 100
    assert tail.endswith("line02999\n")
    silent = await run_judge(CommandJudge(["sh", "-c", "echo x; exit 1"], tail_chars=0), ctx())
    assert silent.metadata["output_tail"] == ""
    assert silent.reasoning == "exit code 1"


async def test_a_command_string_is_split_without_a_shell():
    result = await run_judge(CommandJudge("sh -c 'echo \"$0\"; exit 4' '$HOME'"), ctx())
    assert result.metadata["exit_code"] == 4
    assert result.metadata["output_tail"] == "$HOME\n"


async def test_death_by_signal_is_a_fail_naming_the_signal():
    result = await run_judge(CommandJudge(["sh", "-c", "kill -TERM $$"]), ctx())
    assert result.status is Status.FAIL
    assert "SIGTERM" in result.reasoning


async def test_missing_executable_is_an_error_not_a_fail():
    result = await run_judge(CommandJudge(["no-such-program-for-jurist"]), ctx())
    assert result.status is Status.ERROR
    assert result.error_info is not None
    assert result.error_info["type"] == "FileNotFoundError"
    assert "no-such-program-for-jurist" in result.reasoning


async def test_missing_cwd_is_an_error(tmp_path: Path):
    missing = tmp_path / "gone"
    result = await run_judge(CommandJudge(["true"], cwd=missing), ctx())
    assert result.status is Status.ERROR
    assert str(missing) in result.reasoning


async def test_runs_in_the_workspace(tmp_path: Path):
    (tmp_path / "built.txt").write_text("x")
    judge = CommandJudge(["sh", "-c", "pwd; test -f built.txt"])
    result = await run_judge(judge, ctx(None, tmp_path))
    assert result.status is Status.PASS
    assert printed_dir_is(result, tmp_path)
    assert result.metadata["cwd"] == str(tmp_path)


async def test_relative_cwd_is_inside_the_workspace_and_absolute_cwd_wins(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "marker").write_text("")
    inside = CommandJudge(["test", "-f", "marker"], cwd="pkg")
    assert (await run_judge(inside, ctx(None, tmp_path))).status is Status.PASS
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    absolute = CommandJudge(["test", "-f", "marker"], cwd=elsewhere)
    assert (await run_judge(absolute, ctx(None, tmp_path))).status is Status.FAIL


async def test_without_workspace_runs_in_the_current_directory(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = await run_judge(CommandJudge(["pwd"]), ctx())
    assert printed_dir_is(result, tmp_path)


async def test_stdin_output_feeds_the_output_text():
    grep = CommandJudge(["grep", "-q", "needle"], stdin_output=True)
    assert (await run_judge(grep, ctx("hay needle hay"))).status is Status.PASS
    assert (await run_judge(grep, ctx("only hay"))).status is Status.FAIL
    cat = CommandJudge(["cat"], stdin_output=True)
    assert (await run_judge(cat, ctx({"a": 1}))).metadata["output_tail"] == '{"a": 1}'
    # Without stdin_output the command reads an empty stdin rather than hanging.
    assert (await run_judge(CommandJudge(["cat"]), ctx("text"))).metadata["output_tail"] == ""


async def test_a_command_that_ignores_a_large_stdin_still_passes():
    result = await run_judge(CommandJudge(["true"], stdin_output=True), ctx("x" * 1_000_000))
    assert result.status is Status.PASS


async def test_env_is_added_to_the_inherited_environment():
    judge = CommandJudge(["sh", "-c", 'test "$JURIST_FLAG" = on'], env={"JURIST_FLAG": "on"})
    assert (await run_judge(judge, ctx())).status is Status.PASS  # PATH still found sh
    unset = CommandJudge(["sh", "-c", 'test "$JURIST_FLAG" = on'])
    assert (await run_judge(unset, ctx())).status is Status.FAIL


async def test_timeout_fails_and_kills_the_whole_process_tree(tmp_path: Path):
    pidfile = tmp_path / "grandchild.pid"
    judge = CommandJudge(
        ["sh", "-c", f"echo started; sleep 60 & echo $! > {pidfile}; wait"], timeout_s=0.5
    )
    result = await run_judge(judge, ctx())
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert result.reasoning.startswith("timeout")
    assert result.metadata["reason"] == "timeout"
    assert result.metadata["timeout_s"] == 0.5
    assert result.metadata["output_tail"] == "started\n"
    assert "exit_code" not in result.metadata
    grandchild = await read_pid(pidfile)
    assert await wait_until_dead(grandchild)


async def test_processes_left_behind_after_exit_are_killed(tmp_path: Path):
    pidfile = tmp_path / "background.pid"
    # The background sleep keeps the output pipe open; the judge must not wait for it.
    judge = CommandJudge(["sh", "-c", f"sleep 60 & echo $! > {pidfile}"], timeout_s=30)
    result = await run_judge(judge, ctx())
    assert result.status is Status.PASS
    assert await wait_until_dead(await read_pid(pidfile))


async def test_cancelling_the_judge_kills_the_process_tree(tmp_path: Path):
    pidfile = tmp_path / "grandchild.pid"
    judge = CommandJudge(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout_s=60)
    task = asyncio.create_task(judge.judge(ctx()))
    grandchild = await read_pid(pidfile)
    assert not is_dead(grandchild)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_dead(grandchild)


def test_construction_rejects_bad_arguments():
    with pytest.raises(ValueError, match="command must name a program"):
        CommandJudge([])
    with pytest.raises(ValueError, match="command must name a program"):
        CommandJudge("   ")
    with pytest.raises(ValueError, match="cannot be split"):
        CommandJudge("sh -c 'unclosed")
    with pytest.raises(TypeError, match=r"command\[1\] is a int"):
        CommandJudge(["exit", 3])
    with pytest.raises(ValueError, match="timeout_s must be"):
        CommandJudge(["true"], timeout_s=0)
    with pytest.raises(ValueError, match="timeout_s must be"):
        CommandJudge(["true"], timeout_s=float("inf"))
    with pytest.raises(ValueError, match="tail_chars must be"):
        CommandJudge(["true"], tail_chars=-1)
    with pytest.raises(TypeError, match="env"):
        CommandJudge(["true"], env={"A": 1})


async def test_cancelled_while_its_pipes_connect_the_command_group_is_killed():
    # The command has started (and spawned a child) but asyncio has not yet handed back its
    # transport when the judge is cancelled: the whole group must still be killed.
    from jurist.judges._command import _started

    leader = await asyncio.create_subprocess_exec(
        "sh", "-c", "sleep 60 & wait", start_new_session=True
    )

    class Transport:
        closed = False

        def get_pid(self) -> int:
            return leader.pid

        def close(self) -> None:
            self.closed = True

    starting: asyncio.Future = asyncio.get_running_loop().create_future()
    waiting = asyncio.create_task(_started(starting))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.sleep(0)
    transport = Transport()
    starting.set_result((transport, None))
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert await asyncio.wait_for(leader.wait(), timeout=10) == -9
    assert transport.closed
