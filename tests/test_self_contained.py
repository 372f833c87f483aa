"""The repository speaks for itself: no code, test, bench, example, deployment file or page
points at a document or data set outside it (a sibling directory, a planning document, a
requirement's id, an issue number). Each such reference is reported as `file:line`."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("src", "tests", "bench", "examples", "deploy", "docs", "README.md", "Makefile")
SCANNED_FILES = ("pyproject.toml",)
SKIPPED_DIRS = frozenset({"__pycache__", "results", "node_modules", "site", ".pytest_cache"})
# Third-party data kept byte for byte (their text is the sources', not jurist's).
THIRD_PARTY = (
    "src/jurist/data/datasets/",
    "src/jurist/llm/data/",
    "bench/data/",
)
THIRD_PARTY_SUFFIXES = (".jsonl", ".json")

OUTSIDE = {
    "a path beside the repository": re.compile(r"\.\./shared\b|/work/shared\b"),
    "a planning document outside the repository": re.compile(
        r"\b(?:ENVIRONMENT|DESIGN|STYLE)\.md\b|\bREVIEW[-\w]*\.md\b"
    ),
    "a requirement's id": re.compile(
        r"(?<![A-Za-z0-9])(?:QV|AJ|RJ|SJ|RV|JV)-\d+\b|(?<![A-Za-z])(?:qv|aj|rj|sj|rv|jv)-?\d{2}\b"
    ),
    "an issue number": re.compile(r"(?i)\b(?:issue|ticket|bug)\s*(?:#|no\.?\s*)?\d+\b|\bGH-\d+\b"),
}


def _scanned_files() -> Iterator[Path]:
    for name in SCANNED + SCANNED_FILES:
        path = ROOT / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for found in sorted(path.rglob("*")):
                relative = found.relative_to(ROOT).as_posix()
                if not found.is_file() or SKIPPED_DIRS & set(found.relative_to(ROOT).parts):
                    continue
                if relative.startswith(THIRD_PARTY) and relative.endswith(THIRD_PARTY_SUFFIXES):
                    continue
                yield found


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # not text: a database, an image


def references_outside(paths: Iterator[Path], root: Path = ROOT) -> list[str]:
    """Every line that points outside the repository, as `file:line: what: the line`."""
    found = []
    for path in paths:
        text = _text(path)
        # This file names each kind of reference in order to test that it is found.
        if text is None or path == Path(__file__).resolve():
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for what, pattern in OUTSIDE.items():
                if pattern.search(line):
                    where = f"{path.relative_to(root).as_posix()}:{number}"
                    found.append(f"{where}: {what}: {line.strip()[:120]}")
    return found


def test_nothing_in_the_repository_points_outside_it():
    found = references_outside(_scanned_files())
    assert not found, "references to things outside the repository:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        "DATA = Path(__file__).parents[2] / '..' / '../shared/data/dev'",
        "see /work/shared/data/calibration/summeval-100.jsonl",
        "as ENVIRONMENT.md records",
        "STYLE.md asks for small modules",
        "noted in REVIEW-architecture.md",
        "# QV-04: latency under 30 s",
        "def test_report_passes_qv03():",
        "fixed in issue #12",
        "see GH-7",
    ],
)
def test_each_kind_of_outside_reference_is_found(tmp_path, line):
    path = tmp_path / "module.py"
    path.write_text(f"ok = 1\n{line}\n", encoding="utf-8")
    (found,) = references_outside(iter([path]), root=tmp_path)
    assert found.startswith("module.py:2: ")


@pytest.mark.parametrize(
    "line",
    [
        "text that is not UTF-8 (byte 0)",
        "Fernet (AES-128-CBC and HMAC-SHA256)",
        "names with '#2' on repeats",
        "Your order #4521 has shipped.",
        "each unverified claim is a warning issue (type unverified_fact)",
        "write report.md beside report.json",
        "the shared article is cached",
    ],
)
def test_what_only_looks_like_one_is_left_alone(tmp_path, line):
    path = tmp_path / "module.py"
    path.write_text(line + "\n", encoding="utf-8")
    assert references_outside(iter([path]), root=tmp_path) == []
