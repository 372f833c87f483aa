"""Reading and building specs: from data, from a file, with the bounds every spec keeps."""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from jurist.core import Judge, StrictJsonError, loads_strict
from jurist.llm import Model
from jurist.specs import _entries  # noqa: F401 - registers jurist's spec types
from jurist.specs._errors import SpecError, SpecProblem, problems_of
from jurist.specs._registry import Spec, judge_of, registry

# Building and validating a spec recurse once per level, and every judge may call a model:
# a spec from a client must not be able to exhaust the stack or make thousands of calls.
MAX_SPEC_DEPTH = 32  # levels of objects and lists, the spec itself being the first
MAX_SPEC_JUDGES = 64  # judge objects, at every level (a service may lower it)
_PATH_PARTS_SHOWN = 4

JudgeSpec: Any = registry.unions()["JudgeSpec"]
"""A judge, jury or cascade as data: a pydantic type (a union discriminated by `type`), so
it can be a field of a FastAPI request body. The types registered when jurist.specs was
imported; `parse_judge_spec` also knows those registered since."""
registry.adapter()  # the models that hold specs resolve their references to the unions


def parse_judge_spec(
    data: Any, source: str | None = None, *, max_judges: int = MAX_SPEC_JUDGES
) -> Any:
    """A spec from parsed JSON or YAML data; SpecError (naming `source`, when given, and
    the path inside the spec) if it is malformed, nests deeper than MAX_SPEC_DEPTH or holds
    more than `max_judges` judges."""
    _check_size(data, max_judges, source)
    try:
        return registry.adapter().validate_python(data)
    except ValidationError as exc:
        raise SpecError(problems_of(exc.errors(), data), source) from exc


def judge_from_spec(
    spec: Any,
    *,
    model: Model | str | None = None,
    max_judges: int = MAX_SPEC_JUDGES,
) -> Judge:
    """Build the judge, jury or cascade a spec (data, or a parsed spec) describes.

    Every model-backed judge in it asks `model` (a Model, a spec string such as
    "openai:gpt-4o", or None for JURIST_MODEL), resolved on first use, so building loads
    no weights. A spec cannot choose its own model: the caller (the service, the CLI)
    decides which model runs, and a spec has no field for it.

    Raises SpecError naming the path inside the spec and the problem: a malformed spec, an
    unknown rubric id (listing the known ones), or an option a judge's constructor refuses.
    A malformed rubric file in the library raises RubricError, as it is the library's
    fault and not the spec's.
    """
    if not (isinstance(spec, Spec) and getattr(spec, "type", None) in registry):
        spec = parse_judge_spec(spec, max_judges=max_judges)
    return judge_of(spec, model)


def load_judge_spec(path: Path) -> Any:
    """Read a spec from a YAML file, or a JSON file when its name ends in .json."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SpecError([SpecProblem("", f"cannot be read: {reason}")], source) from exc
    try:
        data = loads_strict(text) if path.suffix == ".json" else yaml.safe_load(text)
    except StrictJsonError as exc:
        where = f" at line {exc.line} column {exc.column}" if exc.line is not None else ""
        problem = SpecProblem(
            exc.path, exc.problem.replace("not valid JSON", f"not valid JSON{where}")
        )
        raise SpecError([problem], source) from exc
    except RecursionError:  # PyYAML composes nested nodes recursively
        problem = SpecProblem("", f"nested too deeply (at most {MAX_SPEC_DEPTH} levels)")
        raise SpecError([problem], source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise SpecError([SpecProblem("", f"not valid YAML{at}: {reason}")], source) from exc
    if data is None:
        raise SpecError([SpecProblem("", "the file holds no spec")], source)
    return parse_judge_spec(data, source)


def _check_size(data: Any, max_judges: int, source: str | None) -> None:
    """Refuse a spec deeper than MAX_SPEC_DEPTH or with more than `max_judges` judges, before
    anything recurses into it: a walk with a stack of its own, so a long chain of `not`
    is refused here too."""
    judge_types = set(registry.judge_types())
    judges = 0
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while pending:
        parts, node = pending.pop()
        children: list[tuple[str | int, Any]]
        if isinstance(node, Mapping):
            children = [(str(key), child) for key, child in node.items()]
            kind = node.get("type")
            if isinstance(kind, str) and kind in judge_types:
                judges += 1
                if judges > max_judges:
                    problem = SpecProblem(
                        _shown_path(parts), f"a spec may hold at most {max_judges} judges"
                    )
                    raise SpecError([problem], source)
        elif isinstance(node, list | tuple):
            children = list(enumerate(node))
        else:
            continue
        if len(parts) >= MAX_SPEC_DEPTH:
            problem = SpecProblem(_shown_path(parts), f"nested deeper than {MAX_SPEC_DEPTH} levels")
            raise SpecError([problem], source)
        pending.extend(((*parts, key), child) for key, child in reversed(children))


def _shown_path(parts: Sequence[str | int]) -> str:
    shown = list(parts[:_PATH_PARTS_SHOWN])
    path = "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(shown)
    )
    return path + ("…" if len(parts) > _PATH_PARTS_SHOWN else "")


def judge_spec_schema() -> dict[str, Any]:
    """The JSON Schema of a judge spec (what an API documents for its `judge` field)."""
    return registry.adapter().json_schema()
