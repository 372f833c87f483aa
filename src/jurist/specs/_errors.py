"""What is wrong with a spec, and where: SpecProblem, SpecError, and pydantic's errors read
as spec paths from their locations."""

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from jurist.core import JuristError

# The first problems go into the message; all of them are in SpecError.problems.
_SHOWN_PROBLEMS = 3

# The fields each registered `type` takes, for "unknown field" messages; the registry
# fills it as types are registered.
FIELDS_BY_TYPE: dict[str, list[str]] = {}


class SpecProblem(NamedTuple):
    """One thing wrong with a spec: where (`judges[1].strategy.type`; "" for the whole
    spec) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class SpecError(JuristError, ValueError):
    """A spec that cannot be read or built. The message names the path inside the spec and
    the problem (the first few); `problems` holds every one, for an API's field errors."""

    def __init__(self, problems: Sequence[SpecProblem], source: str | None = None) -> None:
        self.problems: tuple[SpecProblem, ...] = tuple(problems)
        self.source = source
        shown = "; ".join(str(p) for p in self.problems[:_SHOWN_PROBLEMS])
        more = len(self.problems) - _SHOWN_PROBLEMS
        if more > 0:
            shown += f"; and {more} more"
        super().__init__(f"{source}: {shown}" if source else shown)

    @classmethod
    def at(cls, path: str, message: str) -> "SpecError":
        return cls([SpecProblem(path, message)])

    @classmethod
    def from_errors(
        cls, errors: Sequence[Mapping[str, Any]], data: Any, source: str | None = None
    ) -> "SpecError":
        """pydantic's errors in validating `data` as a spec, with spec paths: for a caller
        that validated a spec itself, e.g. as a field of a request body (strip that field's
        own location from each error's `loc` first)."""
        return cls(problems_of(errors, data), source)


JudgeSpecError = SpecError


def _spec_path(loc: Sequence[int | str], data: Any, missing: bool) -> tuple[str, Any]:
    """A pydantic error location as a path in the spec, and the object holding its last
    field. Locations also name union members (a `type` tag, "inline", "list[str]"); those
    are found by walking the data alongside and left out."""
    path = ""
    node = data
    parent: Any = None
    tag_open = True  # just entered an object: a discriminated union's tag may come next
    for position, part in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(node, list | tuple) and isinstance(part, int):
            path += f"[{part}]"
            parent, node = node, (node[part] if 0 <= part < len(node) else None)
            tag_open = True
        elif isinstance(node, Mapping):
            if tag_open and isinstance(part, str) and node.get("type") == part:
                tag_open = False
            elif part in node or (last and missing):
                path += f".{part}" if path else str(part)
                parent, node = node, node.get(part)
                tag_open = True
            # else: the label of a union member, not a place in the spec
        # else: a scalar's or a list's union member label
    return path, parent


_DATA_WORDS = (
    ("a valid dictionary", "an object"),
    ("a valid tuple", "a list"),
    ("Tuple should", "List should"),
    ("Dictionary should", "Object should"),
)


def _message(error: Mapping[str, Any], parent: Any) -> tuple[str, bool]:
    """A readable message for one error, and whether it concerns the object's `type`."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in ("union_tag_invalid", "union_tag_not_found") and ctx.get("discriminator") in (
        "'type'",
        "type",
    ):
        if kind == "union_tag_not_found":
            return "required field is missing: every judge and strategy names its `type`", True
        return f"unknown type {ctx.get('tag')!r}; expected one of: {ctx.get('expected_tags')}", True
    if kind == "extra_forbidden":
        type_name = parent.get("type") if isinstance(parent, Mapping) else None
        fields = FIELDS_BY_TYPE.get(type_name) if isinstance(type_name, str) else None
        if fields is not None:
            return f"unknown field; type {type_name!r} takes: {', '.join(fields)}", False
        return "unknown field", False
    if kind == "missing":
        return "required field is missing", False
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"]), False
    message = str(error["msg"])
    # A spec is JSON or YAML: say so in its words, not Python's.
    for python, data in _DATA_WORDS:
        message = message.replace(python, data)
    return message, False


def problems_of(errors: Sequence[Mapping[str, Any]], data: Any) -> list[SpecProblem]:
    """pydantic's errors in validating `data`, as spec problems."""
    found: list[tuple[str, str, str]] = []
    for error in errors:
        path, parent = _spec_path(error["loc"], data, error["type"] == "missing")
        message, about_type = _message(error, parent)
        if about_type:
            path = f"{path}.type" if path else "type"
        found.append((path, message, error["type"]))
    problems: list[SpecProblem] = []
    for path, message, kind in found:
        # pydantic counts only the items that validated, so a list whose item is wrong is
        # also "too short": the item's own error says what is wrong.
        if kind == "too_short" and any(other.startswith(f"{path}[") for other, _, _ in found):
            continue
        if problems and problems[-1].path == path:
            # Several members of a union refused the same value: say what each wanted.
            if message not in problems[-1].message:
                problems[-1] = SpecProblem(path, f"{problems[-1].message}, or {message}")
            continue
        problems.append(SpecProblem(path, message))
    return problems
