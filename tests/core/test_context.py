from datetime import datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from jurist import Context, ExecutionStatus


def test_defaults_and_fields():
    ctx = Context("Summarise the report", output="A summary")
    assert ctx.goal == "Summarise the report"
    assert ctx.status is ExecutionStatus.SUCCESS
    assert ctx.context == ()
    assert ctx.workspace is None
    assert dict(ctx.metadata) == {}


def test_all_fields_accept_their_types():
    ctx = Context(
        "g",
        output={"answer": 42},
        context=["passage one", "passage two"],
        reference="42",
        workspace="/tmp",
        status="timeout",
        started_at=datetime(2026, 1, 1, 12, 0),
        duration=timedelta(seconds=3),
        metadata={"run": 7},
    )
    assert ctx.context == ("passage one", "passage two")
    assert ctx.workspace == Path("/tmp")
    assert ctx.status is ExecutionStatus.TIMEOUT
    assert ctx.duration == timedelta(seconds=3)


def test_a_single_string_is_one_passage():
    assert Context("g", context="the only source").context == ("the only source",)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"goal": 3}, "goal"),
        ({"goal": "g", "context": [1, 2]}, "context"),
        ({"goal": "g", "status": "exploded"}, "status"),
        ({"goal": "g", "started_at": "not a time"}, "started_at"),
        ({"goal": "g", "metadata": ["not", "a", "mapping"]}, "metadata"),
    ],
)
def test_a_wrong_type_names_the_field(kwargs, field):
    with pytest.raises(ValidationError) as info:
        Context(**kwargs)
    assert field in str(info.value)


def test_positional_goal_error_names_goal_not_an_index():
    with pytest.raises(ValidationError) as info:
        Context(123)  # type: ignore[arg-type]
    assert info.value.errors()[0]["loc"] == ("goal",)


def test_context_is_immutable():
    ctx = Context("g", metadata={"a": 1})
    with pytest.raises(AttributeError):
        ctx.goal = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ctx.metadata["a"] = 2  # type: ignore[index]


def test_output_text():
    assert Context("g", output="plain").output_text() == "plain"
    assert Context("g", output={"a": [1, 2]}).output_text() == '{"a": [1, 2]}'
    assert Context("g").output_text() == ""
