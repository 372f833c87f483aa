"""The agent-run judges (tool calls, their arguments' schema, trajectory rules) on real
OpenAI and Anthropic conversations, and the command and file judges on a run's workspace."""

import sys
from pathlib import Path
from typing import Any

import pytest

from jurist.core import (
    TRAJECTORY_KEY,
    Cause,
    Context,
    FileChange,
    Judgment,
    Status,
    Trajectory,
    judge_sync,
    snapshot_files,
)
from jurist.judges import (
    CommandJudge,
    FileJudge,
    ToolArgumentsJudge,
    ToolCallJudge,
    ToolStep,
    TrajectoryJudge,
    json_equal,
)

# An OpenAI agent that looked the weather up twice and answered.
OPENAI_RUN: list[dict[str, Any]] = [
    {"role": "user", "content": "Will it rain in Oslo and in Bergen tomorrow?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Oslo", "days": 1}'},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Bergen", "days": "1"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "dry"},
    {"role": "tool", "tool_call_id": "c2", "content": "rain"},
    {"role": "assistant", "content": "Oslo stays dry; Bergen gets rain."},
]

# An Anthropic agent that searched, read a page and deleted a file.
ANTHROPIC_RUN: list[dict[str, Any]] = [
    {"role": "user", "content": "Tidy up the notes."},
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "t1", "name": "search", "input": {"query": "notes"}},
        ],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.md"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "t2", "name": "read", "input": {"path": "a.md"}},
            {"type": "tool_use", "id": "t3", "name": "delete", "input": {"path": "a.md"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "old"},
            {"type": "tool_result", "tool_use_id": "t3", "content": "ok"},
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "Deleted a.md."}]},
]


def openai_ctx() -> Context:
    return Trajectory.from_openai(OPENAI_RUN).context("forecast two cities")


def anthropic_ctx() -> Context:
    return Trajectory.from_anthropic(ANTHROPIC_RUN).context("tidy the notes")


def run(judge: Any, ctx: Context) -> Judgment:
    return judge_sync(judge, ctx)


def failed(judgment: Judgment) -> dict[str, str]:
    return {check.name: check.message for check in judgment.checks if not check.passed}


def test_json_equal_compares_as_json():
    assert json_equal(1, 1.0)
    assert not json_equal(True, 1)
    assert not json_equal("1", 1)
    assert json_equal({"a": [1, {"b": None}]}, {"a": (1.0, {"b": None})})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


# tool_call


def test_tool_call_passes_when_one_call_carries_the_arguments():
    judgment = run(ToolCallJudge("weather", {"city": "Bergen"}), openai_ctx())
    assert judgment.status is Status.PASS
    assert judgment.reasoning == "weather#2 steps[2]: matches"
    assert failed(judgment) == {
        "weather#1": "steps[1]: argument 'city' is 'Oslo', expected 'Bergen'"
    }


def test_tool_call_fails_naming_what_differs_in_each_call():
    # "days" came as the string "1" in Bergen's call: JSON tells it from the number 1.
    judgment = run(ToolCallJudge("weather", {"city": "Bergen", "days": 1}), openai_ctx())
    assert judgment.status is Status.FAIL
    assert failed(judgment) == {
        "weather#1": "steps[1]: argument 'city' is 'Oslo', expected 'Bergen'",
        "weather#2": "steps[2]: argument 'days' is '1', expected 1",
    }


def test_exact_match_refuses_extra_arguments():
    subset = ToolCallJudge("weather", {"city": "Oslo"})
    exact = ToolCallJudge("weather", {"city": "Oslo"}, match="exact")
    assert run(subset, openai_ctx()).status is Status.PASS
    judgment = run(exact, openai_ctx())
    assert judgment.status is Status.FAIL
    assert failed(judgment)["weather#1"] == "steps[1]: argument 'days' is not expected"
    exact_all = ToolCallJudge("weather", {"city": "Oslo", "days": 1.0}, match="exact")
    assert run(exact_all, openai_ctx()).status is Status.PASS


def test_tool_call_fails_when_the_tool_was_never_called():
    judgment = run(ToolCallJudge("calendar"), anthropic_ctx())
    assert judgment.status is Status.FAIL
    assert failed(judgment) == {
        "called": "no call of 'calendar'; the tools called: 'delete', 'read', 'search'"
    }
    assert run(ToolCallJudge("delete"), anthropic_ctx()).status is Status.PASS


def test_tool_call_judges_abstain_without_a_trajectory():
    plain = Context("forecast", output="dry")
    for judge in (
        ToolCallJudge("weather"),
        ToolArgumentsJudge("weather", {"type": "object"}),
        TrajectoryJudge(max_steps=3),
    ):
        judgment = run(judge, plain)
        assert judgment.status is Status.ABSTAIN
        assert judgment.metadata["missing"] == f"metadata.{TRAJECTORY_KEY}"


def test_a_malformed_trajectory_is_an_error_of_bad_input():
    ctx = Context("g", metadata={TRAJECTORY_KEY: {"steps": "none"}})
    judgment = run(ToolCallJudge("weather"), ctx)
    assert judgment.status is Status.ERROR
    assert judgment.cause is Cause.BAD_INPUT
    assert "metadata.trajectory: steps" in judgment.reasoning


def test_tool_call_refuses_bad_parameters():
    with pytest.raises(ValueError, match="match must be 'exact' or 'subset'"):
        ToolCallJudge("weather", match="most")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool must name a tool"):
        ToolCallJudge(" ")
    with pytest.raises(ValueError, match="arguments is not JSON data"):
        ToolCallJudge("weather", {"days": float("nan")})


# tool_arguments

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city", "days"],
    "additionalProperties": False,
}


def test_tool_arguments_checks_every_call_against_the_schema():
    judgment = run(ToolArgumentsJudge("weather", WEATHER_SCHEMA), openai_ctx())
    assert judgment.status is Status.FAIL
    assert failed(judgment) == {"weather#2": 'steps[2]: $.days: "1" is not of type "integer"'}
    assert [check.passed for check in judgment.checks] == [True, False]
    assert judgment.metadata["failed"] == 1


def test_tool_arguments_passes_when_every_call_follows():
    schema = {"type": "object", "required": ["path"]}
    judgment = run(ToolArgumentsJudge("read", schema), anthropic_ctx())
    assert judgment.status is Status.PASS
    assert judgment.checks[0].message == "steps[3]: follows the schema"


def test_tool_arguments_without_a_call_fails_unless_not_required():
    required = run(ToolArgumentsJudge("weather", WEATHER_SCHEMA), anthropic_ctx())
    assert required.status is Status.FAIL
    assert "called" in failed(required)
    optional = ToolArgumentsJudge("weather", WEATHER_SCHEMA, required=False)
    assert run(optional, anthropic_ctx()).status is Status.PASS


def test_tool_arguments_refuses_a_schema_that_is_not_one():
    with pytest.raises(ValueError, match="schema is not a valid JSON Schema"):
        ToolArgumentsJudge("weather", {"type": "nope"})


# trajectory


def test_trajectory_rules_that_hold_pass():
    judge = TrajectoryJudge(
        must_call=["search", ToolStep(tool="read", arguments={"path": "a.md"})],
        must_not_call=["rm_rf"],
        order=["search", "read", "delete"],
        max_steps=9,
        max_tool_calls=3,
    )
    judgment = run(judge, anthropic_ctx())
    assert judgment.status is Status.PASS, judgment.reasoning
    assert [check.name for check in judgment.checks] == [
        "must_call[0]",
        "must_call[1]",
        "must_not_call[0]",
        "order",
        "max_steps",
        "max_tool_calls",
    ]
    assert judgment.checks[3].message == "in order at steps[1], steps[3], steps[4]"


def test_each_broken_rule_is_a_named_failed_check():
    judge = TrajectoryJudge(
        must_call=[{"tool": "read", "arguments": {"path": "b.md"}}],
        must_not_call=["delete"],
        order=["read", "search"],
        max_steps=5,
        max_tool_calls=2,
    )
    judgment = run(judge, anthropic_ctx())
    assert judgment.status is Status.FAIL
    assert failed(judgment) == {
        "must_call[0]": "'read' with {'path': 'b.md'} never called",
        "must_not_call[0]": "'delete' called at steps[4]",
        "order": "order[1] ('search') is not called after steps[3]",
        "max_steps": "8 steps, at most 5",
        "max_tool_calls": "3 tool calls, at most 2",
    }


def test_a_trajectory_judge_needs_a_rule_and_good_limits():
    with pytest.raises(ValueError, match="give at least one rule"):
        TrajectoryJudge()
    with pytest.raises(ValueError, match="max_steps must be an int >= 0"):
        TrajectoryJudge(max_steps=-1)
    with pytest.raises(ValueError, match=r"must_call\[0\] must name a tool"):
        TrajectoryJudge(must_call=[""])
    assert run(TrajectoryJudge(max_tool_calls=0), openai_ctx()).status is Status.FAIL


# the command and file judges on the run's workspace


def test_command_and_file_judges_judge_the_runs_workspace(tmp_path: Path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("old")
    before = snapshot_files(tmp_path)
    # The agent's run: it deleted a.md and wrote an index.
    (tmp_path / "notes" / "a.md").unlink()
    (tmp_path / "notes" / "index.md").write_text("# Notes\n")
    after = snapshot_files(tmp_path)
    trajectory = Trajectory.from_anthropic(
        ANTHROPIC_RUN, files_changed=FileChange.between(before, after)
    )
    ctx = trajectory.context("tidy the notes", workspace=tmp_path)
    assert [(c.path, c.change) for c in Trajectory.of(ctx).files_changed] == [  # type: ignore[union-attr]
        ("notes/a.md", "deleted"),
        ("notes/index.md", "added"),
    ]
    assert run(FileJudge.exists("notes/index.md"), ctx).status is Status.PASS
    assert run(FileJudge.exists("notes/a.md"), ctx).status is Status.FAIL
    assert run(FileJudge.contains("notes/index.md", "# Notes"), ctx).status is Status.PASS
    only_index = "import os; raise SystemExit(0 if os.listdir('notes') == ['index.md'] else 3)"
    listing = [sys.executable, "-c", only_index]
    assert run(CommandJudge(listing), ctx).status is Status.PASS
    (tmp_path / "notes" / "stray.md").write_text("")
    assert run(CommandJudge(listing), ctx).status is Status.FAIL
