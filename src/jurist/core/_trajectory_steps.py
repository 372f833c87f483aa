"""The parts of a trajectory: messages, tool calls, tool results and changed files."""

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from jurist.core._errors import JuristError
from jurist.core._jsonsafe import NotJsonSafeError, to_json_safe


class TrajectoryError(JuristError, ValueError):
    """A trajectory, or the messages it is read from, is malformed. The message names the
    place (`messages[3].tool_calls[0].function.arguments`) and the problem."""


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Message(Frozen):
    """A message of the conversation: its role ("user", "assistant", "system", ...) and
    its text."""

    kind: Literal["message"] = "message"
    role: Annotated[str, Field(min_length=1)]
    content: str = ""


class ToolCall(Frozen):
    """A tool the agent called: its name, its arguments (a JSON object) and the call's id
    when the wire gives one (results are matched to calls by it)."""

    kind: Literal["tool_call"] = "tool_call"
    name: Annotated[str, Field(min_length=1)]
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ToolResult(Frozen):
    """What a tool call returned: its output, or the error it reported (`error` set)."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str | None = None
    output: Any = None
    error: str | None = None


TrajectoryStep = Annotated[Message | ToolCall | ToolResult, Field(discriminator="kind")]


class FileChange(Frozen):
    """A file the run added, modified or deleted; `path` is relative to the workspace, with
    forward slashes."""

    path: Annotated[str, Field(min_length=1)]
    change: Literal["added", "modified", "deleted"]

    @classmethod
    def between(cls, before: Mapping[str, str], after: Mapping[str, str]) -> tuple[Self, ...]:
        """The changes from one `snapshot_files` of a workspace to a later one, by path."""
        changes = [cls(path=p, change="deleted") for p in before if p not in after]
        for path, digest in after.items():
            if path not in before:
                changes.append(cls(path=path, change="added"))
            elif before[path] != digest:
                changes.append(cls(path=path, change="modified"))
        return tuple(sorted(changes, key=lambda change: change.path))


def snapshot_files(directory: str | Path, *, skip: Iterable[str] = (".git",)) -> dict[str, str]:
    """Every regular file under `directory`, by relative path, with the SHA-256 of its
    bytes: take one before a run and one after, and `FileChange.between` says what the run
    changed. Directories named in `skip` (any depth) are not entered; symbolic links are not
    followed, so a link is compared as the path it names."""
    root = Path(directory)
    if not root.is_dir():
        raise TrajectoryError(f"workspace {root} is not a directory")
    skipped = set(skip)
    found: dict[str, str] = {}
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in skipped)
        for name in files:
            path = Path(current) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = str(path.readlink()).encode()
                found[relative] = "link:" + hashlib.sha256(target).hexdigest()
            elif path.is_file():
                found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def json_object(value: Any, where: str) -> dict[str, Any]:
    """`value` as a JSON object, or a TrajectoryError naming `where`."""
    if not isinstance(value, Mapping):
        raise TrajectoryError(f"{where}: must be a JSON object, not {type(value).__name__}")
    try:
        result: dict[str, Any] = to_json_safe(value, where)
    except NotJsonSafeError as exc:
        raise TrajectoryError(str(exc)) from exc
    return result
