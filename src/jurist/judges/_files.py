"""File judges: what an agent left in its workspace."""

import asyncio
import os
import re
import stat
from abc import abstractmethod
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from jurist.core import BaseJudge, Check, Context, Judgment, Name
from jurist.judges._common import decided, shorten

PathArg = str | os.PathLike[str]

_CHUNK = 64 * 1024


def _as_path(value: PathArg, param: str) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{param} must be a str or a path, not {type(value).__name__}")
    if isinstance(value, str) and not value:
        raise ValueError(f"{param} must not be empty")
    return Path(value)


class FileJudge(BaseJudge):
    """A judge of a path, relative paths being taken inside the context's workspace.

    Build one with `FileJudge.exists`, `FileJudge.contains` or `FileJudge.matches_dir`.
    A relative path judged without a workspace is an ERROR (a configuration problem), a
    missing file is a FAIL, and a file that cannot be read is an ERROR.
    """

    def __init__(self, path: PathArg, *, name: Name | None = None, description: str = "") -> None:
        super().__init__(name, description)
        self.path = _as_path(path, "path")

    @classmethod
    def exists(
        cls, path: PathArg, *, name: Name | None = None, description: str = ""
    ) -> "FileExistsJudge":
        """PASS when `path` exists (a file, or a directory)."""
        return FileExistsJudge(path, name=name, description=description)

    @classmethod
    def contains(
        cls,
        path: PathArg,
        pattern: str,
        regex: bool = False,
        *,
        name: Name | None = None,
        description: str = "",
    ) -> "FileContainsJudge":
        """PASS when the file at `path` contains `pattern` (a substring, or a regex)."""
        return FileContainsJudge(path, pattern, regex, name=name, description=description)

    @classmethod
    def matches_dir(
        cls,
        expected_dir: PathArg,
        path: PathArg = ".",
        *,
        ignore: str | Iterable[str] = (),
        name: Name | None = None,
        description: str = "",
    ) -> "DirMatchesJudge":
        """PASS when the directory at `path` holds exactly the files of `expected_dir`.

        Same relative file names, same bytes. `ignore` takes glob patterns matched against
        each file's relative path and against each of its components, so "__pycache__"
        skips those directories and "*.pyc" those files, wherever they are.
        """
        return DirMatchesJudge(
            expected_dir, path, ignore=ignore, name=name, description=description
        )

    async def judge(self, ctx: Context) -> Judgment:
        if self.path.is_absolute():
            resolved = self.path
        elif ctx.workspace is None:
            return Judgment.error(
                f"path {str(self.path)!r} is relative and the context has no workspace to "
                "resolve it against; give the context a workspace or the judge an absolute path",
                metadata={"path": str(self.path)},
            )
        else:
            resolved = ctx.workspace / self.path
        return await self._judge_path(resolved)

    @abstractmethod
    async def _judge_path(self, path: Path) -> Judgment: ...


class FileExistsJudge(FileJudge):
    """PASS when a path exists. See `FileJudge.exists`."""

    async def _judge_path(self, path: Path) -> Judgment:
        metadata: dict[str, Any] = {"path": str(path)}
        try:
            info = await asyncio.to_thread(path.stat)
        except (FileNotFoundError, NotADirectoryError):
            return _fail(f"{path} does not exist", "exists", metadata)
        except OSError as exc:
            return Judgment.error(f"cannot look at {path}: {exc}", exc, metadata=metadata)
        kind = "directory" if stat.S_ISDIR(info.st_mode) else "file"
        metadata["kind"] = kind
        return _ok(f"{path} exists ({kind})", "exists", metadata)


class FileContainsJudge(FileJudge):
    """PASS when a file holds a substring or a regex match. See `FileJudge.contains`."""

    def __init__(
        self,
        path: PathArg,
        pattern: str,
        regex: bool = False,
        *,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(path, name=name, description=description)
        if not isinstance(pattern, str):
            raise TypeError(f"pattern must be a str, not {type(pattern).__name__}")
        if not pattern:
            raise ValueError("pattern must not be empty; an empty pattern is found in any file")
        self.pattern = pattern
        self.regex = regex
        self._compiled: re.Pattern[str] | None = None
        if regex:
            try:
                self._compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} is not a valid regex: {exc}") from exc

    async def _judge_path(self, path: Path) -> Judgment:
        metadata: dict[str, Any] = {"path": str(path), "pattern": self.pattern}
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except (FileNotFoundError, NotADirectoryError):
            return _fail(f"{path} does not exist", "contains", metadata)
        except IsADirectoryError:
            return _fail(f"{path} is a directory, not a file", "contains", metadata)
        except OSError as exc:
            return Judgment.error(f"cannot read {path}: {exc}", exc, metadata=metadata)
        # Replacement characters rather than an error: a stray bad byte should not stop a
        # search for text elsewhere in the file.
        text = data.decode("utf-8", errors="replace")
        if self._compiled is not None:
            found = self._compiled.search(text)
            start = None if found is None else found.start()
            matched = None if found is None else found.group(0)
        else:
            index = text.find(self.pattern)
            start = None if index < 0 else index
            matched = self.pattern
        kind = "regex" if self.regex else "text"
        shown = shorten(self.pattern, 80)
        if start is None or matched is None:
            return _fail(f"{path} does not contain {kind} {shown!r}", "contains", metadata)
        line = text.count("\n", 0, start) + 1
        metadata.update(line=line, match=shorten(matched, 80))
        return _ok(f"{path} contains {kind} {shown!r} at line {line}", "contains", metadata)


class DirMatchesJudge(FileJudge):
    """PASS when a directory holds exactly an expected tree. See `FileJudge.matches_dir`.

    Only files are compared; empty directories and the contents of symlinked directories
    (which are not followed) do not count.
    """

    def __init__(
        self,
        expected_dir: PathArg,
        path: PathArg = ".",
        *,
        ignore: str | Iterable[str] = (),
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(path, name=name, description=description)
        # Absolute now, so a later change of working directory cannot change the judge.
        self.expected_dir = _as_path(expected_dir, "expected_dir").absolute()
        if isinstance(ignore, str):
            ignore = (ignore,)
        patterns = tuple(ignore)
        for index, pattern in enumerate(patterns):
            if not isinstance(pattern, str):
                raise TypeError(f"ignore[{index}] is a {type(pattern).__name__}, not a str")
            if not pattern:
                raise ValueError(f"ignore[{index}] is empty; give a glob pattern")
        self.ignore: tuple[str, ...] = patterns

    async def _judge_path(self, path: Path) -> Judgment:
        metadata: dict[str, Any] = {"path": str(path), "expected_dir": str(self.expected_dir)}
        try:
            expected_kind = await asyncio.to_thread(_kind, self.expected_dir)
            actual_kind = await asyncio.to_thread(_kind, path)
        except OSError as exc:
            return Judgment.error(f"cannot look at {exc.filename}: {exc}", exc, metadata=metadata)
        if expected_kind != "directory":
            # The judge's own fixture is wrong, which says nothing about the output.
            return Judgment.error(
                f"expected_dir {self.expected_dir} is not a directory ({expected_kind})",
                metadata=metadata,
            )
        if actual_kind == "missing":
            return _fail(f"{path} does not exist", "directory", metadata)
        if actual_kind != "directory":
            return _fail(f"{path} is a file, not a directory", "directory", metadata)
        try:
            missing, extra, differing, compared = await asyncio.to_thread(
                self._compare, self.expected_dir, path
            )
        except OSError as exc:
            return Judgment.error(f"cannot compare {path}: {exc}", exc, metadata=metadata)
        metadata.update(
            compared=compared, missing=len(missing), extra=len(extra), differing=len(differing)
        )
        checks = [
            *(Check.fail(rel, "missing") for rel in missing),
            *(Check.fail(rel, "unexpected file") for rel in extra),
            *(Check.fail(rel, message) for rel, message in differing),
        ]
        if checks:
            counts = [
                f"{len(items)} {label}"
                for items, label in ((missing, "missing"), (extra, "extra"), (differing, "differ"))
                if items
            ]
            names = ", ".join(check.name for check in checks[:5])
            more = f" and {len(checks) - 5} more" if len(checks) > 5 else ""
            reason = f"{path} does not match {self.expected_dir}: {', '.join(counts)}"
            return decided(False, f"{reason} ({names}{more})", checks, metadata)
        return decided(
            True,
            f"{path} matches {self.expected_dir} ({compared} files)",
            [Check.ok("directory", f"{compared} identical files")],
            metadata,
        )

    def _compare(
        self, expected_root: Path, actual_root: Path
    ) -> tuple[list[str], list[str], list[tuple[str, str]], int]:
        expected = _files(expected_root, self.ignore)
        actual = _files(actual_root, self.ignore)
        missing = sorted(expected.keys() - actual.keys())
        extra = sorted(actual.keys() - expected.keys())
        differing: list[tuple[str, str]] = []
        common = sorted(expected.keys() & actual.keys())
        for rel in common:
            difference = _difference(expected[rel], actual[rel])
            if difference is not None:
                differing.append((rel, difference))
        return missing, extra, differing, len(common)


def _kind(path: Path) -> str:
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    return "directory" if stat.S_ISDIR(info.st_mode) else "file"


def _ignored(rel: str, patterns: tuple[str, ...]) -> bool:
    return any(
        fnmatchcase(rel, pattern) or any(fnmatchcase(part, pattern) for part in rel.split("/"))
        for pattern in patterns
    )


def _files(root: Path, ignore: tuple[str, ...]) -> dict[str, Path]:
    """Every file under `root` by its relative POSIX path, minus the ignored ones."""

    def fail(exc: OSError) -> None:
        # os.walk skips unreadable directories silently; a comparison must not.
        raise exc

    found: dict[str, Path] = {}
    for dirpath, dirnames, filenames in os.walk(root, onerror=fail):
        here = Path(dirpath)
        rel_dir = here.relative_to(root)
        dirnames[:] = [d for d in dirnames if not _ignored((rel_dir / d).as_posix(), ignore)]
        for filename in filenames:
            rel = (rel_dir / filename).as_posix()
            if not _ignored(rel, ignore):
                found[rel] = here / filename
    return found


def _difference(expected: Path, actual: Path) -> str | None:
    """None when two files hold the same bytes, else what differs."""
    expected_size, actual_size = expected.stat().st_size, actual.stat().st_size
    if expected_size != actual_size:
        return f"content differs: {actual_size} bytes, expected {expected_size}"
    offset = 0
    with expected.open("rb") as want, actual.open("rb") as got:
        while True:
            a, b = want.read(_CHUNK), got.read(_CHUNK)
            if a != b:
                # Equal sizes but a short read means the file changed under us; the
                # difference then starts where the shorter read ends.
                first = next(
                    (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                    min(len(a), len(b)),
                )
                return f"content differs from byte {offset + first}"
            if not a:
                return None
            offset += len(a)


def _ok(reasoning: str, check: str, metadata: dict[str, Any]) -> Judgment:
    return decided(True, reasoning, [Check.ok(check, reasoning)], metadata)


def _fail(reasoning: str, check: str, metadata: dict[str, Any]) -> Judgment:
    return decided(False, reasoning, [Check.fail(check, reasoning)], metadata)
