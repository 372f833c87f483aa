"""Trajectory: an agent's run read from OpenAI and Anthropic conversations, held in a
Context and read back typed; the files a run changed in its workspace."""

from pathlib import Path
from typing import Any

import pytest

from jurist.core import (
    TRAJECTORY_KEY,
    Context,
    ExecutionStatus,
    FileChange,
    Message,
    ToolCall,
    ToolResult,
    Trajectory,
    TrajectoryError,
    snapshot_files,
)

OPENAI_RUN: list[dict[str, Any]] = [
    {"role": "system", "content": "You book trains."},
    {"role": "user", "content": "A train to Lyon tomorrow morning, please."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "search_trains",
                    "arguments": '{"to": "Lyon", "date": "2026-11-28", "max_results": 3}',
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '[{"id": "TGV 6601"}]'},
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "Booking TGV 6601."}],
        "tool_calls": [
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "book", "arguments": '{"train": "TGV 6601"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_2", "content": "booked"},
    {"role": "assistant", "content": "Booked TGV 6601 to Lyon."},
]

ANTHROPIC_RUN: list[dict[str, Any]] = [
    {"role": "user", "content": "A train to Lyon tomorrow morning, please."},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "search first", "signature": "x"},
            {"type": "text", "text": "Let me search."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "search_trains",
                "input": {"to": "Lyon", "date": "2026-11-28"},
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": [{"type": "text", "text": "no seats"}],
                "is_error": True,
            }
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "No seats are left."}]},
]


def test_openai_messages_read_as_steps_in_order():
    trajectory = Trajectory.from_openai(OPENAI_RUN)
    assert [step.kind for step in trajectory.steps] == [
        "message",
        "message",
        "tool_call",
        "tool_result",
        "message",
        "tool_call",
        "tool_result",
        "message",
    ]
    search = trajectory.steps[2]
    assert search == ToolCall(
        name="search_trains",
        arguments={"to": "Lyon", "date": "2026-11-28", "max_results": 3},
        id="call_1",
    )
    assert trajectory.steps[4] == Message(role="assistant", content="Booking TGV 6601.")
    assert trajectory.result_of(trajectory.tool_calls[1]) == ToolResult(
        call_id="call_2", output="booked"
    )
    assert trajectory.final_answer == "Booked TGV 6601 to Lyon."
    assert trajectory.ended is ExecutionStatus.SUCCESS


def test_anthropic_blocks_read_as_steps_with_the_tool_error():
    trajectory = Trajectory.from_anthropic(ANTHROPIC_RUN, system="You book trains.")
    assert trajectory.steps[0] == Message(role="system", content="You book trains.")
    assert trajectory.steps[2] == Message(role="assistant", content="Let me search.")
    assert trajectory.tool_calls == (
        ToolCall(
            name="search_trains", arguments={"to": "Lyon", "date": "2026-11-28"}, id="toolu_1"
        ),
    )
    result = trajectory.result_of(trajectory.tool_calls[0])
    assert result == ToolResult(call_id="toolu_1", error="no seats")
    assert trajectory.final_answer == "No seats are left."


def test_the_real_sdk_objects_read_as_their_dicts():
    openai_types = pytest.importorskip("openai.types.chat")
    anthropic_types = pytest.importorskip("anthropic.types")
    message = openai_types.ChatCompletionMessage(
        role="assistant",
        content=None,
        tool_calls=[
            openai_types.ChatCompletionMessageToolCall(
                id="call_9",
                type="function",
                function={"name": "lookup", "arguments": '{"id": 7}'},
            )
        ],
    )
    assert Trajectory.from_openai([message]).steps == (
        ToolCall(name="lookup", arguments={"id": 7}, id="call_9"),
    )
    reply = anthropic_types.Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude",
        content=[
            anthropic_types.TextBlock(type="text", text="Looking it up."),
            anthropic_types.ToolUseBlock(
                type="tool_use", id="tu_1", name="lookup", input={"id": 7}
            ),
        ],
        stop_reason="tool_use",
        stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=1, output_tokens=1),
    )
    steps = Trajectory.from_anthropic([reply]).steps
    assert steps == (
        Message(role="assistant", content="Looking it up."),
        ToolCall(name="lookup", arguments={"id": 7}, id="tu_1"),
    )


def test_a_run_stopped_after_a_call_has_no_final_answer():
    trajectory = Trajectory.from_openai(OPENAI_RUN[:3])
    assert trajectory.final_answer is None
    assert trajectory.ended is ExecutionStatus.UNKNOWN
    assert Trajectory.from_openai(OPENAI_RUN, status=ExecutionStatus.TIMEOUT).ended == "timeout"


def test_the_context_holds_the_trajectory_and_reads_it_back(tmp_path: Path):
    trajectory = Trajectory.from_openai(
        OPENAI_RUN, files_changed=[FileChange(path="bookings.txt", change="added")]
    )
    ctx = trajectory.context("book a train", workspace=tmp_path, metadata={"run": 4})
    assert ctx.output == "Booked TGV 6601 to Lyon."
    assert ctx.workspace == tmp_path
    assert ctx.status is ExecutionStatus.SUCCESS
    assert ctx.metadata["run"] == 4
    assert Trajectory.of(ctx) == trajectory
    # The stored form is JSON data, so a context that went through JSON reads the same.
    copied = Context("book a train", metadata={TRAJECTORY_KEY: trajectory.to_metadata()})
    assert Trajectory.of(copied) == trajectory
    assert Trajectory.of(Context("book a train")) is None
    assert trajectory.context("g", output={"train": 1}).output == {"train": 1}


def test_a_malformed_stored_trajectory_names_the_field():
    ctx = Context("g", metadata={TRAJECTORY_KEY: {"steps": [{"kind": "tool_call", "name": ""}]}})
    with pytest.raises(TrajectoryError, match=r"metadata\.trajectory: steps\[0\]\.tool_call\.name"):
        Trajectory.of(ctx)
    with pytest.raises(TrajectoryError, match="is where the trajectory goes"):
        Trajectory().context("g", metadata={TRAJECTORY_KEY: 1})


def _call(arguments: Any, **extra: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
        ],
        **extra,
    }


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ({"role": "user"}, "messages: must be a list of messages, not dict"),
        (["hello"], r"messages\[0\]: must be an object, not str"),
        ([{"content": "hi"}], r"messages\[0\]\.role: is missing"),
        ([_call("{not json")], r"messages\[0\]\.tool_calls\[0\]\.function\.arguments: not valid"),
        ([_call("[1, 2]")], r"tool_calls\[0\]\.function\.arguments: must be a JSON object"),
        ([_call("{}"), {"role": "tool", "tool_call_id": "x", "content": "r"}], r"messages\[1\]"),
        ([{"role": "user", "content": [{"type": "video"}]}], r"content\[0\]\.type: unknown"),
        ([{"role": "user", "content": "q", "tool_calls": []}], r"messages\[0\]\.tool_calls"),
    ],
)
def test_bad_openai_messages_name_the_step_and_field(messages: Any, message: str):
    with pytest.raises(TrajectoryError, match=message):
        Trajectory.from_openai(messages)


def test_an_unknown_tool_call_id_is_named():
    messages = [_call("{}"), {"role": "tool", "tool_call_id": "x", "content": "r"}]
    with pytest.raises(TrajectoryError, match=r"messages\[1\]\.tool_call_id: no earlier tool call"):
        Trajectory.from_openai(messages)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([{"type": "tool_use", "id": "t", "input": {}}], r"content\[0\]\.name: is missing"),
        ([{"type": "tool_use", "id": "t", "name": "f", "input": [1]}], r"content\[0\]\.input"),
        (
            [{"type": "tool_result", "tool_use_id": "nope"}],
            r"content\[0\]\.tool_use_id: no earlier",
        ),
        ([{"type": "audio"}], r"messages\[0\]\.content\[0\]\.type: unknown content block"),
        (7, r"messages\[0\]\.content: must be a list, not int"),
    ],
)
def test_bad_anthropic_blocks_name_the_step_and_field(content: Any, message: str):
    with pytest.raises(TrajectoryError, match=message):
        Trajectory.from_anthropic([{"role": "assistant", "content": content}])


def test_files_changed_between_two_snapshots(tmp_path: Path):
    (tmp_path / "keep.txt").write_text("same")
    (tmp_path / "edit.txt").write_text("before")
    (tmp_path / "gone.txt").write_text("bye")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    before = snapshot_files(tmp_path)
    assert ".git/HEAD" not in before
    (tmp_path / "edit.txt").write_text("after")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "new.py").write_text("x = 1\n")
    (tmp_path / ".git" / "HEAD").write_text("other")
    assert FileChange.between(before, snapshot_files(tmp_path)) == (
        FileChange(path="edit.txt", change="modified"),
        FileChange(path="gone.txt", change="deleted"),
        FileChange(path="src/new.py", change="added"),
    )
    with pytest.raises(TrajectoryError, match="is not a directory"):
        snapshot_files(tmp_path / "keep.txt")
