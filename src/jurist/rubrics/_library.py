"""Loading rubrics: from a file, or by id from the built-in library and JURIST_RUBRICS_PATH."""

import functools
import os
import time
from importlib import resources
from pathlib import Path
from stat import S_ISDIR
from typing import Any, Generic, NamedTuple, TypeVar

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
    """Read and check one rubric file (YAML or JSON).

    A file unchanged since it was last read (the same modification time, size and inode) is
    not read again; one changed within the last seconds is always read, since a coarse
    file-system clock can leave a quick rewrite with the same time."""
    path = Path(path)
    key = str(path)
    try:
        stamp: _Stamp | None = _stamp(path.stat())
    except OSError:
        stamp = None
    seen = _read.get(key)
    if seen is not None and stamp is not None and seen.settled(stamp):
        return seen.value
    read_at = time.time_ns()
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise RubricError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
    rubric = _parsed(text, key)
    if stamp is not None:
        _remember(_read, key, _Seen(stamp, read_at, rubric))
    return rubric


# What changes when a file is rewritten, or a directory gains or loses an entry.
_Stamp = tuple[int, int, int, int]  # mtime_ns, size, inode, device
# A stamp this close to the time it was read may be followed by a change in the same tick
# of the file system's clock, which the stamp would not show: such an entry is re-read.
_SETTLE_NS = 2_000_000_000
_REMEMBERED = 256
T = TypeVar("T")


def _stamp(stat: os.stat_result) -> _Stamp:
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino, stat.st_dev)


class _Seen(NamedTuple, Generic[T]):
    stamp: _Stamp
    read_at_ns: int
    value: T

    def settled(self, stamp: _Stamp) -> bool:
        return stamp == self.stamp and stamp[0] < self.read_at_ns - _SETTLE_NS


def _remember(seen: dict[str, "_Seen[T]"], key: str, entry: "_Seen[T]") -> None:
    seen.pop(key, None)
    seen[key] = entry
    while len(seen) > _REMEMBERED:  # bounded: the oldest entry goes first
        seen.pop(next(iter(seen)), None)


# Rubric files and library directories as last read, by path: get_rubric runs for every
# validator made (validate() makes one per call), so it must not list and read every time.
_read: dict[str, _Seen[Rubric]] = {}
_listed: dict[str, _Seen[tuple[Path, ...]]] = {}


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


@functools.cache
def _library() -> Path:
    return Path(str(resources.files("jurist.rubrics").joinpath("library")))


def _rubric_files_in(directory: Path) -> tuple[Path, ...]:
    """The rubric files of a directory, sorted (none when it is not a directory); the
    listing is kept until the directory's entries change."""
    key = str(directory)
    try:
        stat = directory.stat()
    except OSError:
        return ()
    if not S_ISDIR(stat.st_mode):
        return ()
    stamp = _stamp(stat)
    seen = _listed.get(key)
    if seen is not None and seen.settled(stamp):
        return seen.value
    read_at = time.time_ns()
    files = tuple(sorted(p for p in directory.iterdir() if p.suffix in _SUFFIXES))
    _remember(_listed, key, _Seen(stamp, read_at, files))
    return files


def _builtin_files() -> tuple[Path, ...]:
    return _rubric_files_in(_library())


def _files() -> list[Path]:
    """Rubric files, JURIST_RUBRICS_PATH first so a user's rubric overrides a built-in."""
    found: list[Path] = []
    for directory in _user_dirs():
        found.extend(_rubric_files_in(directory))
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
