"""The trajectory judge: what an agent must do, must not do, in which order, and how many
steps it may take on the way."""

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from jurist.core import (
    BaseJudge,
    Check,
    Context,
    Judgment,
    Name,
    NonBlank,
    NonNegative,
    ToolCall,
    Trajectory,
)
from jurist.judges._common import decided
from jurist.judges._tool_calls import argument_problems, json_arguments, read_trajectory


class ToolStep(BaseModel):
    """A tool call a trajectory check looks for: the tool's name and, optionally, arguments
    the call must carry (a subset of its arguments, compared as JSON). A plain string is a
    tool's name alone."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    tool: NonBlank
    arguments: dict[str, Any] | None = None

    def matches(self, call: ToolCall) -> bool:
        if call.name != self.tool:
            return False
        return self.arguments is None or not argument_problems(
            self.arguments, call.arguments, "subset"
        )

    def __str__(self) -> str:
        if self.arguments is None:
            return repr(self.tool)
        return f"{self.tool!r} with {self.arguments}"


StepPattern = ToolStep | NonBlank
StepPatterns = Annotated[Sequence[StepPattern], Field(max_length=100)]


def _patterns(patterns: Sequence[StepPattern | Mapping[str, Any]], param: str) -> list[ToolStep]:
    if isinstance(patterns, str | bytes) or not isinstance(patterns, Sequence):
        raise TypeError(f"{param} must be a list of tool names or ToolSteps")
    steps = []
    for index, pattern in enumerate(patterns):
        if isinstance(pattern, ToolStep):
            steps.append(pattern)
        elif isinstance(pattern, str):
            if not pattern.strip():
                raise ValueError(f"{param}[{index}] must name a tool")
            steps.append(ToolStep(tool=pattern))
        elif isinstance(pattern, Mapping):
            arguments = pattern.get("arguments")
            where = f"{param}[{index}].arguments"
            steps.append(
                ToolStep(
                    tool=pattern.get("tool"),
                    arguments=None if arguments is None else json_arguments(arguments, where),
                )
            )
        else:
            raise TypeError(f"{param}[{index}] must be a tool name or a ToolStep")
    return steps


def _limit(value: int | None, param: str) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"{param} must be an int >= 0, not {value!r}")
    return value


class TrajectoryJudge(BaseJudge):
    """PASS when an agent's trajectory keeps every rule given.

    `must_call`: each step must happen (a call of the tool, with the arguments when given).
    `must_not_call`: none of these may happen. `order`: these calls happen in this order,
    other steps allowed between them (a subsequence of the calls). `max_steps`: at most
    this many steps (messages, calls and results); `max_tool_calls`: at most this many
    calls. Each rule is a check: `must_call[0]`, `must_not_call[1]`, `order`, `max_steps`,
    `max_tool_calls`.
    """

    def __init__(
        self,
        must_call: StepPatterns = (),
        must_not_call: StepPatterns = (),
        order: StepPatterns = (),
        max_steps: NonNegative | None = None,
        max_tool_calls: NonNegative | None = None,
        *,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.must_call = _patterns(must_call, "must_call")
        self.must_not_call = _patterns(must_not_call, "must_not_call")
        self.order = _patterns(order, "order")
        self.max_steps = _limit(max_steps, "max_steps")
        self.max_tool_calls = _limit(max_tool_calls, "max_tool_calls")
        if not (self.must_call or self.must_not_call or self.order) and (
            self.max_steps is None and self.max_tool_calls is None
        ):
            raise ValueError(
                "give at least one rule: must_call, must_not_call, order, max_steps "
                "or max_tool_calls"
            )

    async def judge(self, ctx: Context) -> Judgment:
        trajectory = read_trajectory(ctx, self.name)
        if isinstance(trajectory, Judgment):
            return trajectory
        calls = [
            (index, step)
            for index, step in enumerate(trajectory.steps)
            if isinstance(step, ToolCall)
        ]
        checks = [*self._presence(calls), *self._order(calls), *self._limits(trajectory)]
        failed = [check for check in checks if not check.passed]
        metadata = {"steps": len(trajectory.steps), "tool_calls": len(calls)}
        if not failed:
            return decided(True, f"all {len(checks)} trajectory checks hold", checks, metadata)
        shown = "; ".join(f"{check.name}: {check.message}" for check in failed)
        return decided(False, shown, checks, metadata)

    def _presence(self, calls: list[tuple[int, ToolCall]]) -> list[Check]:
        checks = []
        for index, pattern in enumerate(self.must_call):
            found = next((at for at, call in calls if pattern.matches(call)), None)
            message = f"{pattern} " + ("never called" if found is None else f"at steps[{found}]")
            checks.append(Check(f"must_call[{index}]", found is not None, message))
        for index, pattern in enumerate(self.must_not_call):
            found = next((at for at, call in calls if pattern.matches(call)), None)
            message = f"{pattern} " + (
                "not called" if found is None else f"called at steps[{found}]"
            )
            checks.append(Check(f"must_not_call[{index}]", found is None, message))
        return checks

    def _order(self, calls: list[tuple[int, ToolCall]]) -> list[Check]:
        if not self.order:
            return []
        position = 0
        seen: list[int] = []
        for wanted, pattern in enumerate(self.order):
            found = next(
                (i for i in range(position, len(calls)) if pattern.matches(calls[i][1])), None
            )
            if found is None:
                after = f" after steps[{seen[-1]}]" if seen else ""
                message = f"order[{wanted}] ({pattern}) is not called{after}"
                return [Check.fail("order", message)]
            seen.append(calls[found][0])
            position = found + 1
        shown = ", ".join(f"steps[{at}]" for at in seen)
        return [Check.ok("order", f"in order at {shown}")]

    def _limits(self, trajectory: Trajectory) -> list[Check]:
        checks = []
        for label, limit, count in (
            ("max_steps", self.max_steps, len(trajectory.steps)),
            ("max_tool_calls", self.max_tool_calls, len(trajectory.tool_calls)),
        ):
            if limit is not None:
                what = "steps" if label == "max_steps" else "tool calls"
                checks.append(Check(label, count <= limit, f"{count} {what}, at most {limit}"))
        return checks
