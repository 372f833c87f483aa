"""Tool-call judges: did an agent call a tool with the right arguments.

Both read the context's trajectory (`Trajectory.of`): a context without one gets an
ABSTAIN (there is nothing to judge), and one whose trajectory is malformed an ERROR.
Argument values are compared as JSON: 1 and 1.0 are equal, true and 1 are not.
"""

from collections.abc import Mapping
from typing import Any, Literal

from jurist.core import (
    TRAJECTORY_KEY,
    BaseJudge,
    Cause,
    Check,
    Context,
    Judgment,
    Name,
    NonBlank,
    NotJsonSafeError,
    ToolCall,
    Trajectory,
    TrajectoryError,
    to_json_safe,
)
from jurist.judges._common import decided, is_number, listing, shorten
from jurist.judges._schema import SchemaSource, json_path, load_schema_object

ArgumentMatch = Literal["exact", "subset"]
_SHOWN_PROBLEMS = 3


def json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value (1 == 1.0), booleans only to booleans,
    objects by their keys whatever the order, arrays item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def json_arguments(arguments: Any, param: str) -> dict[str, Any]:
    """Expected arguments as a JSON object, or a ValueError naming `param`."""
    if not isinstance(arguments, Mapping):
        raise TypeError(f"{param} must be a mapping, not {type(arguments).__name__}")
    try:
        result: dict[str, Any] = to_json_safe(arguments, param)
    except NotJsonSafeError as exc:
        raise ValueError(f"{param} is not JSON data: {exc}") from exc
    return result


def argument_problems(
    expected: Mapping[str, Any], actual: Mapping[str, Any], match: ArgumentMatch
) -> list[str]:
    """How `actual` differs from `expected`: every expected argument must be there with an
    equal value; with "exact", no other argument may be."""
    problems = []
    for key, value in expected.items():
        if key not in actual:
            problems.append(f"argument {key!r} is missing")
        elif not json_equal(value, actual[key]):
            problems.append(f"argument {key!r} is {_shown(actual[key])}, expected {_shown(value)}")
    if match == "exact":
        problems.extend(
            f"argument {key!r} is not expected" for key in actual if key not in expected
        )
    return problems


def _shown(value: Any) -> str:
    return shorten(repr(value), 60)


def read_trajectory(ctx: Context, judge: str) -> Trajectory | Judgment:
    """The context's trajectory, or the judgment that stands when it has none (ABSTAIN)
    or a malformed one (ERROR)."""
    try:
        trajectory = Trajectory.of(ctx)
    except TrajectoryError as exc:
        metadata = {"judge": judge, "cause": Cause.BAD_INPUT}
        return Judgment.error(str(exc), exc, metadata=metadata)
    if trajectory is None:
        return Judgment.abstain(
            "the context holds no agent trajectory to judge",
            metadata={"judge": judge, "missing": f"metadata.{TRAJECTORY_KEY}"},
        )
    return trajectory


def _calls_of(trajectory: Trajectory, tool: str) -> list[tuple[int, ToolCall]]:
    return [
        (index, step)
        for index, step in enumerate(trajectory.steps)
        if isinstance(step, ToolCall) and step.name == tool
    ]


def _no_call(trajectory: Trajectory, tool: str) -> Judgment:
    called = sorted({call.name for call in trajectory.tool_calls})
    others = f"; the tools called: {listing(called)}" if called else "; no tool was called"
    message = f"no call of {tool!r}{others}"
    return decided(False, message, [Check.fail("called", message)], {"tool": tool, "calls": 0})


class ToolCallJudge(BaseJudge):
    """PASS when the agent called `tool` with the expected `arguments` at least once.

    With `match="subset"` a call may carry arguments beyond the expected ones; with
    "exact" it holds exactly them. Either way the arguments are matched by their top-level
    names, and a value (a nested object too) must equal the expected one as JSON. Without
    `arguments`, any call of the tool passes. Each call of the tool is a check named
    `TOOL#N` (N counting its calls from 1), failed with what differs.
    """

    def __init__(
        self,
        tool: NonBlank,
        arguments: Mapping[str, Any] | None = None,
        match: ArgumentMatch = "subset",
        *,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name or f"tool_call:{tool}", description)
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError("tool must name a tool")
        if match not in ("exact", "subset"):
            raise ValueError(f"match must be 'exact' or 'subset', not {match!r}")
        self.tool = tool
        self.arguments = None if arguments is None else json_arguments(arguments, "arguments")
        self.match: ArgumentMatch = match

    async def judge(self, ctx: Context) -> Judgment:
        trajectory = read_trajectory(ctx, self.name)
        if isinstance(trajectory, Judgment):
            return trajectory
        calls = _calls_of(trajectory, self.tool)
        if not calls:
            return _no_call(trajectory, self.tool)
        checks = []
        for number, (index, call) in enumerate(calls, start=1):
            problems = (
                []
                if self.arguments is None
                else argument_problems(self.arguments, call.arguments, self.match)
            )
            where = f"steps[{index}]"
            message = f"{where}: " + ("; ".join(problems) if problems else "matches")
            checks.append(Check(f"{self.tool}#{number}", not problems, message))
        metadata = {"tool": self.tool, "calls": len(calls), "match": self.match}
        matched = [check for check in checks if check.passed]
        if matched:
            return decided(True, f"{matched[0].name} {matched[0].message}", checks, metadata)
        shown = "; ".join(f"{c.name} {c.message}" for c in checks[:_SHOWN_PROBLEMS])
        noun = "call" if len(calls) == 1 else f"{len(calls)} calls"
        return decided(False, f"no {noun} of {self.tool!r} matches: {shown}", checks, metadata)


class ToolArgumentsJudge(BaseJudge):
    """PASS when every call of `tool` has arguments that follow a JSON Schema.

    The schema is read as `SchemaJudge` reads one (no remote `$ref` is fetched). Each call
    is a check named `TOOL#N`, failed with its violations by JSON path. A trajectory with
    no call of the tool is a FAIL, or a PASS with `required=False`.
    """

    def __init__(
        self,
        tool: NonBlank,
        schema: SchemaSource,
        required: bool = True,
        *,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name or f"tool_arguments:{tool}", description)
        if not isinstance(tool, str) or not tool.strip():
            raise ValueError("tool must name a tool")
        self.tool = tool
        self.schema, self._validator = load_schema_object(schema)
        self.required = required

    async def judge(self, ctx: Context) -> Judgment:
        trajectory = read_trajectory(ctx, self.name)
        if isinstance(trajectory, Judgment):
            return trajectory
        calls = _calls_of(trajectory, self.tool)
        if not calls:
            if self.required:
                return _no_call(trajectory, self.tool)
            message = f"no call of {self.tool!r} to check"
            return decided(True, message, [Check.ok("called", message)], {"calls": 0})
        checks = []
        for number, (index, call) in enumerate(calls, start=1):
            violations = [
                f"{json_path(error.instance_path, call.arguments)}: {shorten(error.message)}"
                for error in self._validator.iter_errors(call.arguments)
            ]
            detail = "; ".join(violations) if violations else "follows the schema"
            checks.append(
                Check(f"{self.tool}#{number}", not violations, f"steps[{index}]: {detail}")
            )
        failed = [check for check in checks if not check.passed]
        metadata = {"tool": self.tool, "calls": len(calls), "failed": len(failed)}
        if not failed:
            noun = "call" if len(calls) == 1 else f"{len(calls)} calls"
            return decided(True, f"the {noun} of {self.tool!r} follow the schema", checks, metadata)
        shown = "; ".join(f"{c.name} {c.message}" for c in failed[:_SHOWN_PROBLEMS])
        return decided(
            False,
            f"{len(failed)} of {len(calls)} calls of {self.tool!r} break the schema: {shown}",
            checks,
            metadata,
        )
