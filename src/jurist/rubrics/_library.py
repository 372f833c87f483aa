"""Loading rubrics: from a file, or by id from the built-in library and JURIST_RUBRICS_PATH."""

import functools
import os
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from pydantic import ValidationError

from jurist.core import JuristError
from jurist.rubrics._model import Rubric
from jurist.settings import get_settings

_SUFFIXES = (".yaml", ".yml")


class RubricError(JuristError, ValueError):
    """A rubric that cannot be used: names the file, the field and the problem."""


def _location(loc: tuple[Any, ...], data: Any) -> str:
    """A pydantic error location as a readable path: criteria[1].anchors."""
    parts: list[str] = []
    node = data
    for part in loc:
        if isinstance(part, int) and isinstance(node, list):
            name = None
            if 0 <= part < len(node) and isinstance(node[part], dict):
                name = node[part].get("name")
            parts.append(f"[{part}]" + (f" ({name})" if name else ""))
            node = node[part] if 0 <= part < len(node) else None
        else:
            parts.append(("." if parts else "") + str(part))
            node = node.get(part) if isinstance(node, dict) else None
    return "".join(parts) or "(top level)"


def parse_rubric(data: Any, source: str) -> Rubric:
    """A rubric from parsed YAML/JSON data; `source` names it in errors."""
    if not isinstance(data, dict):
        raise RubricError(f"{source}: a rubric must be a mapping, not {type(data).__name__}")
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{source}: {_location(tuple(error['loc']), data)}: {error['msg']}"
            for error in exc.errors()
        ]
        raise RubricError("\n".join(problems)) from exc


def load_rubric(path: str | Path) -> Rubric:
    """Read and check one rubric file (YAML or JSON)."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise RubricError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    return _parsed(text, str(path))


# Parsing the YAML is most of what a rubric costs (about 10 ms against microseconds to read
# the file): a text already parsed is not parsed again. Rubrics are frozen, so sharing one
# is safe; a file that changes is a new text, parsed afresh.
@functools.lru_cache(maxsize=256)
def _parsed(text: str, path: str) -> Rubric:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1} column {where.column + 1}" if where else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise RubricError(f"{path}: not valid YAML{at}: {problem}") from exc
    return parse_rubric(data, path)


def _user_dirs() -> list[Path]:
    raw = get_settings().rubrics_path or ""
    return [Path(part) for part in raw.split(os.pathsep) if part.strip()]


def _builtin_files() -> list[Path]:
    library = resources.files("jurist.rubrics").joinpath("library")
    return sorted(Path(str(entry)) for entry in library.iterdir() if entry.name.endswith(_SUFFIXES))


def _files() -> list[Path]:
    """Rubric files, JURIST_RUBRICS_PATH first so a user's rubric overrides a built-in."""
    found: list[Path] = []
    for directory in _user_dirs():
        if directory.is_dir():
            found.extend(sorted(p for p in directory.iterdir() if p.suffix in _SUFFIXES))
    found.extend(_builtin_files())
    return found


class LocatedRubric(NamedTuple):
    """A rubric of the library and the file it was read from."""

    rubric: Rubric
    path: Path
    builtin: bool


def locate_rubrics() -> list[LocatedRubric]:
    """Every rubric by id with its file: the one that wins when ids clash.

    A malformed file in the library raises RubricError naming it, rather than being skipped.
    """
    builtin = set(_builtin_files())
    found: dict[str, LocatedRubric] = {}
    for path in _files():
        rubric = load_rubric(path)
        found.setdefault(rubric.id, LocatedRubric(rubric, path, path in builtin))
    return sorted(found.values(), key=lambda located: located.rubric.id)


def list_rubrics() -> list[Rubric]:
    """Every rubric by id (a user's rubric shadows a built-in of the same id).

    A malformed file in the library raises RubricError naming it, rather than being skipped.
    """
    return [located.rubric for located in locate_rubrics()]


def get_rubric(id_or_path: str | Path) -> Rubric:
    """A rubric by id, or from a file when given a path to one."""
    candidate = Path(id_or_path)
    if isinstance(id_or_path, Path) or candidate.suffix in _SUFFIXES or candidate.is_file():
        return load_rubric(candidate)
    name = str(id_or_path)
    for path in _files():
        if path.stem == name:
            rubric = load_rubric(path)
            if rubric.id == name:
                return rubric
    for rubric in list_rubrics():
        if rubric.id == name:
            return rubric
    known = ", ".join(rubric.id for rubric in list_rubrics())
    raise RubricError(f"no rubric with id {name!r}; known: {known or '(none)'}")
