"""Reading documents for the knowledge base from text, Markdown and JSONL files and from
directories of them. Reading is all or nothing: a bad file or line stops the whole read, so
the caller writes nothing from it."""

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jurist.data import DatasetError, jsonl_rows, kind_of
from jurist.store import StoreError

TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
SUFFIXES = TEXT_SUFFIXES | {".jsonl"}
_SHOWN_SUFFIXES = ", ".join(sorted(SUFFIXES))
_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


class IngestError(StoreError):
    """A document that cannot be ingested. `location` is the file, or `file:line` in JSONL."""

    def __init__(self, location: str, problem: str) -> None:
        self.location = location
        self.problem = problem
        super().__init__(f"{location}: {problem}")


@dataclass(frozen=True)
class SourceDocument:
    document_id: str
    text: str
    title: str | None
    source: str | None
    location: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def sha256(self) -> str:
        return sha256(self.text)


@dataclass(frozen=True)
class Skipped:
    """Something not ingested, and why (an empty file, a repeated record)."""

    location: str
    reason: str


@dataclass(frozen=True)
class DocumentsRead:
    """The documents read from a path or given as text, and what was left out of them."""

    documents: tuple[SourceDocument, ...]
    skipped: tuple[Skipped, ...]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_path(path: Path) -> DocumentsRead:
    """The documents in a file, or in the files under a directory (recursively, in sorted
    order, hidden ones left out). A file's document id is its path relative to the directory
    (or its name); a JSONL record's is its `id`, else a hash of its text."""
    if path.is_dir():
        files = _files_under(path)
        if not files:
            raise IngestError(str(path), f"no {_SHOWN_SUFFIXES} files in this directory")
        root = path
    elif path.is_file():
        if path.suffix.lower() not in SUFFIXES:
            raise IngestError(
                str(path), f"unsupported file type {path.suffix!r}: expected {_SHOWN_SUFFIXES}"
            )
        files, root = [path], path.parent
    else:
        raise IngestError(str(path), "no such file or directory")
    documents: dict[str, SourceDocument] = {}
    skipped: list[Skipped] = []
    for file in files:
        relative = file.relative_to(root).as_posix()
        found, empty = _read_file(file, relative)
        skipped.extend(empty)
        for document in found:
            earlier = documents.get(document.document_id)
            if earlier is None:
                documents[document.document_id] = document
            elif earlier.text == document.text:
                skipped.append(Skipped(document.location, f"repeats {earlier.location}"))
            else:
                raise IngestError(
                    document.location,
                    f"document id {document.document_id!r} is also used by {earlier.location}; "
                    "ids must be unique within a collection",
                )
    return DocumentsRead(tuple(documents.values()), tuple(skipped))


def _files_under(directory: Path) -> list[Path]:
    found: list[Path] = []
    for folder, subfolders, names in os.walk(directory):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        found.extend(
            Path(folder, name)
            for name in names
            if not name.startswith(".") and Path(name).suffix.lower() in SUFFIXES
        )
    return sorted(found, key=lambda file: file.relative_to(directory).as_posix())


def _read_file(file: Path, relative: str) -> tuple[list[SourceDocument], list[Skipped]]:
    try:
        text = file.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(str(file), f"not UTF-8 text (bad byte at offset {exc.start})") from None
    except OSError as exc:
        raise IngestError(str(file), f"cannot read it ({exc.strerror})") from None
    if not text.strip():
        return [], [Skipped(str(file), "empty")]
    if file.suffix.lower() == ".jsonl":
        return _read_jsonl(file, text)
    title = None
    if file.suffix.lower() != ".txt":
        heading = _HEADING.search(text)
        title = heading.group(1) if heading else None
    source = str(file.resolve())
    return [SourceDocument(relative, text, title, source, str(file))], []


def _read_jsonl(file: Path, text: str) -> tuple[list[SourceDocument], list[Skipped]]:
    documents: list[SourceDocument] = []
    skipped: list[Skipped] = []
    resolved = file.resolve()
    try:
        rows = jsonl_rows(text, str(file))
    except DatasetError as exc:  # a value no record could hold
        where = exc.problem if exc.field is None else f"{exc.field}: {exc.problem}"
        raise IngestError(exc.location, where) from None
    for row in rows:
        location = f"{file}:{row.line}"
        if row.problem is not None:
            raise IngestError(location, row.problem)
        record = _record(dict(row.values), location)
        body = record.pop("text")
        if not body.strip():
            skipped.append(Skipped(location, "empty text"))
            continue
        identifier = record.pop("id", None)
        title = record.pop("title", None)
        documents.append(
            SourceDocument(
                document_id=sha256(body)[:16] if identifier is None else str(identifier),
                text=body,
                title=title,
                source=f"{resolved}:{row.line}",
                location=location,
                metadata=record,
            )
        )
    if not documents and not skipped:
        skipped.append(Skipped(str(file), "empty"))
    return documents, skipped


def _record(record: dict[str, Any], location: str) -> dict[str, Any]:
    if "text" not in record:
        raise IngestError(location, "the object has no `text` field")
    if not isinstance(record["text"], str):
        raise IngestError(location, f"`text` must be a string, got {kind_of(record['text'])}")
    identifier = record.get("id")
    if identifier is not None:
        if isinstance(identifier, bool) or not isinstance(identifier, str | int):
            raise IngestError(
                location, f"`id` must be a string or an integer, got {kind_of(identifier)}"
            )
        if not str(identifier).strip():
            raise IngestError(location, "`id` is empty")
    title = record.get("title")
    if title is not None and not isinstance(title, str):
        raise IngestError(location, f"`title` must be a string, got {kind_of(title)}")
    return record
