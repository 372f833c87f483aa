"""The agent-run judges built from data (`tool_call`, `tool_arguments`, `trajectory`), alone
and inside a jury, and their bad parameters refused by name."""

from pathlib import Path
from typing import Any

import pytest

from jurist.core import Status, Trajectory, judge_sync
from jurist.judges import ToolArgumentsJudge, ToolCallJudge, ToolStep, TrajectoryJudge
from jurist.specs import JudgeSpecError, judge_from_spec, judge_spec_schema, load_judge_spec

RUN = Trajectory.from_openai(
    [
        {"role": "user", "content": "Refund order 42."},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": '{"order": 42}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "paid"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c2",
                    "type": "function",
                    "function": {
                        "name": "refund",
                        "arguments": '{"order": 42, "amount": 19.5, "reason": "late"}',
                    },
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c2", "content": "refunded"},
        {"role": "assistant", "content": "Order 42 is refunded."},
    ]
).context("refund order 42")

SPEC_YAML = """\
type: jury
strategy: {type: majority}
judges:
  - type: tool_call
    tool: refund
    arguments: {order: 42, amount: 19.5}
  - type: tool_arguments
    tool: refund
    schema:
      type: object
      required: [order, amount]
      properties: {amount: {type: number, maximum: 100}}
  - type: trajectory
    must_call: [lookup_order]
    must_not_call: [{tool: refund, arguments: {amount: 0}}]
    order: [lookup_order, refund]
    max_tool_calls: 4
"""


def test_a_yaml_spec_builds_the_agent_judges_and_they_judge(tmp_path: Path):
    path = tmp_path / "agent.yaml"
    path.write_text(SPEC_YAML)
    jury = judge_from_spec(load_judge_spec(path))
    judgment = judge_sync(jury, RUN)
    assert judgment.status is Status.PASS, judgment.reasoning
    call, arguments, trajectory = jury.judges  # type: ignore[attr-defined]
    assert isinstance(call, ToolCallJudge)
    assert (call.tool, call.arguments, call.match) == (
        "refund",
        {"order": 42, "amount": 19.5},
        "subset",
    )
    assert isinstance(arguments, ToolArgumentsJudge)
    assert arguments.required is True
    assert isinstance(trajectory, TrajectoryJudge)
    assert trajectory.must_not_call == [ToolStep(tool="refund", arguments={"amount": 0})]
    assert (trajectory.max_tool_calls, trajectory.max_steps) == (4, None)


def test_a_dict_spec_fails_as_the_judge_does():
    judge = judge_from_spec(
        {"type": "tool_call", "tool": "refund", "arguments": {"amount": 20}, "match": "exact"}
    )
    judgment = judge_sync(judge, RUN)
    assert judgment.status is Status.FAIL
    assert {c.name for c in judgment.checks if not c.passed} == {"refund#1"}
    limits = judge_from_spec({"type": "trajectory", "max_steps": 3, "name": "short"})
    judged = judge_sync(limits, RUN)
    assert (limits.name, judged.status) == ("short", Status.FAIL)
    assert [c.name for c in judged.checks if not c.passed] == ["max_steps"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"type": "tool_call"}, "tool: required field is missing"),
        ({"type": "tool_call", "tool": "  "}, "tool"),
        ({"type": "tool_call", "tool": "x", "match": "most"}, "match: Input should be 'exact'"),
        ({"type": "tool_call", "tool": "x", "arguments": [1]}, "arguments"),
        ({"type": "tool_arguments", "tool": "x"}, "schema: required field is missing"),
        ({"type": "tool_arguments", "tool": "x", "schema": {"type": 3}}, "not a valid JSON Schema"),
        ({"type": "tool_arguments", "tool": "x", "schema": {}, "required": "yes"}, "required"),
        ({"type": "trajectory"}, "give at least one rule"),
        ({"type": "trajectory", "max_steps": -1}, "max_steps: Input should be greater"),
        ({"type": "trajectory", "max_tool_calls": "2"}, "max_tool_calls"),
        ({"type": "trajectory", "must_call": [""]}, r"must_call[0]"),
        ({"type": "trajectory", "order": [{"tool": "a", "args": {}}]}, "order[0].args: unknown"),
        ({"type": "trajectory", "must_call": "search"}, "must_call"),
    ],
)
def test_bad_parameters_are_refused_by_name(spec: dict[str, Any], message: str):
    with pytest.raises(JudgeSpecError) as raised:
        judge_from_spec(spec)
    assert message in str(raised.value)


def test_the_spec_schema_documents_the_agent_types():
    schema = judge_spec_schema()
    text = str(schema)
    for kind in ("ToolCallSpec", "ToolArgumentsSpec", "TrajectorySpec"):
        assert kind in text
