"""Trajectory: what an agent did on its way to an answer, as a judge can read it.

A trajectory is the run's steps in order (a message, a tool call, a tool's result) and the
files the run changed in its workspace. `Trajectory.from_openai` and
`Trajectory.from_anthropic` read the two common wire shapes of a conversation;
`trajectory.context(goal)` makes the Context a judge looks at, with the trajectory held in
`metadata["trajectory"]` and read back, validated, by `Trajectory.of(ctx)`: no reader picks
keys out of that metadata by hand.
"""

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Self

from pydantic import ValidationError

from jurist.core._context import Context
from jurist.core._report import thawed
from jurist.core._status import ExecutionStatus
from jurist.core._trajectory_steps import (
    FileChange,
    Frozen,
    Message,
    ToolCall,
    ToolResult,
    TrajectoryError,
    TrajectoryStep,
)
from jurist.core._trajectory_wire import anthropic_steps, openai_steps

TRAJECTORY_KEY = "trajectory"


class Trajectory(Frozen):
    """An agent's run: its steps in order, the files it changed and how it ended.

    `status` is how the run ended; left out, it is SUCCESS when the run ends with an
    assistant's message (its final answer) and UNKNOWN when it stops anywhere else (after a
    tool call or a result).
    """

    steps: tuple[TrajectoryStep, ...] = ()
    files_changed: tuple[FileChange, ...] = ()
    status: ExecutionStatus | None = None

    @classmethod
    def from_openai(
        cls,
        messages: Sequence[Any],
        *,
        files_changed: Iterable[FileChange] = (),
        status: ExecutionStatus | None = None,
    ) -> Self:
        """Read OpenAI chat messages (dicts, or the SDK's message objects): assistant
        messages with `tool_calls`, and `role: tool` messages holding their results."""
        return cls(steps=openai_steps(messages), files_changed=tuple(files_changed), status=status)

    @classmethod
    def from_anthropic(
        cls,
        messages: Sequence[Any],
        *,
        system: str | None = None,
        files_changed: Iterable[FileChange] = (),
        status: ExecutionStatus | None = None,
    ) -> Self:
        """Read Anthropic messages (dicts, or the SDK's objects) whose content is text or a
        list of blocks: `text`, `tool_use` and `tool_result` (with `is_error`). `system` is
        the request's system prompt, which that API keeps outside the messages."""
        steps = anthropic_steps(messages)
        if system is not None:
            steps = (Message(role="system", content=system), *steps)
        return cls(steps=steps, files_changed=tuple(files_changed), status=status)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(step for step in self.steps if isinstance(step, ToolCall))

    def result_of(self, call: ToolCall) -> ToolResult | None:
        """The result answering `call` (by its id), None when none came back."""
        if call.id is None:
            return None
        for step in self.steps:
            if isinstance(step, ToolResult) and step.call_id == call.id:
                return step
        return None

    @property
    def final_answer(self) -> str | None:
        """The last step's text when the run ended with an assistant's message, else None."""
        last = self.steps[-1] if self.steps else None
        if isinstance(last, Message) and last.role == "assistant":
            return last.content
        return None

    @property
    def ended(self) -> ExecutionStatus:
        """How the run ended: `status` when given, else as the class says."""
        if self.status is not None:
            return self.status
        return ExecutionStatus.SUCCESS if self.final_answer is not None else ExecutionStatus.UNKNOWN

    def context(
        self,
        goal: str,
        *,
        output: Any = None,
        workspace: str | Path | None = None,
        reference: Any = None,
        started_at: datetime | None = None,
        duration: timedelta | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Context:
        """The Context of this run: `output` is the final answer unless given, `status` is
        how the run ended, and the trajectory sits in `metadata["trajectory"]`."""
        extra = dict(metadata or {})
        if TRAJECTORY_KEY in extra:
            raise TrajectoryError(f"metadata: {TRAJECTORY_KEY!r} is where the trajectory goes")
        return Context(
            goal,
            output=self.final_answer if output is None else output,
            reference=reference,
            workspace=None if workspace is None else Path(workspace),
            status=self.ended,
            started_at=started_at,
            duration=duration,
            metadata={**extra, TRAJECTORY_KEY: self.to_metadata()},
        )

    def to_metadata(self) -> dict[str, Any]:
        """This trajectory as the JSON data a Context's metadata holds."""
        return self.model_dump(mode="json")

    @classmethod
    def of(cls, ctx: Context) -> Self | None:
        """The trajectory a Context holds, validated; None when it holds none. Metadata
        under the key that does not read as a trajectory raises TrajectoryError."""
        data = ctx.metadata.get(TRAJECTORY_KEY)
        if data is None:
            return None
        if isinstance(data, cls):
            return data
        try:
            return cls.model_validate(thawed(data))
        except ValidationError as exc:
            raise TrajectoryError(f"metadata.{TRAJECTORY_KEY}: {_first_error(exc)}") from exc


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
    return f"{where.lstrip('.') or 'value'}: {error['msg']}"
