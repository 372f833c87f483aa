"""The one reader of dataset rows: JSON Lines, a JSON array, CSV or Parquet.

Every row keeps the line it starts on (JSON Lines and CSV: the line of the file, so the
header is line 1 of a CSV; a JSON array: the line its element opens on; Parquet and rows in
memory: the 1-based row number). A row that is not a record (a JSON Lines line that is not
JSON, an element that is not an object, a CSV record longer than the header) is still a row,
with its `problem`: a batch run judges it as a bad item, a stricter reader refuses it with
`Row.check`. A value no record could hold (too deep, NaN, a lone surrogate...) refuses the
whole file: it is a defect of the file, not of one item.
"""

import csv
import hashlib
import importlib
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jurist.core import StrictJsonError, loads_strict
from jurist.data._errors import DatasetError
from jurist.settings import get_settings

FORMATS: Mapping[str, str] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".parquet": "parquet",
}
# Strings and the brackets and commas outside them: enough to find where each element of a
# top-level array opens without parsing (and so without recursing) again.
_ELEMENT_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]|[^\s\[\]{},"]', re.DOTALL)
_ELEMENT_PATH = re.compile(r"^\[(\d+)\]\.?")


@dataclass(frozen=True)
class Row:
    """One record of a dataset: its line and values, or the `problem` that kept it from
    being a record."""

    line: int
    values: Mapping[str, Any]
    problem: str | None = None

    def check(self, source: str) -> Mapping[str, Any]:
        """The values, or DatasetError naming the source and line when the row has a problem."""
        if self.problem is not None:
            raise DatasetError(source, self.problem, line=self.line)
        return self.values


@dataclass(frozen=True)
class Rows:
    """The rows of one file, its columns in order of first appearance, its format and the
    sha256 of its bytes."""

    rows: tuple[Row, ...]
    columns: tuple[str, ...]
    format: str
    source: str
    path: Path | None
    sha256: str


def format_of(path: Path, default: str | None = None) -> str:
    """The format a file's suffix names (`default` for any other suffix, when given)."""
    kind = FORMATS.get(path.suffix.lower(), default)
    if kind is None:
        raise DatasetError(
            str(path),
            f"unknown dataset format {path.suffix or '(no suffix)'!r}; "
            f"use one of {', '.join(FORMATS)}",
        )
    return kind


def read_rows(path: str | Path, *, default_format: str | None = None) -> Rows:
    """The rows of a .jsonl (.ndjson), .json (an array of objects), .csv or .parquet file.
    DatasetError when the file cannot be read at all."""
    path = Path(path)
    kind = format_of(path, default_format)
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DatasetError(source, f"cannot be read: {exc.strerror or exc}") from None
    if kind == "parquet":
        rows, columns = parquet_rows(raw, source)
    else:
        text = decode(raw, source)
        if kind == "csv":
            rows, columns = csv_rows(text, source)
        else:
            rows = jsonl_rows(text, source) if kind == "jsonl" else json_array_rows(text, source)
            columns = columns_of(rows)
    sha256 = hashlib.sha256(raw).hexdigest()
    return Rows(tuple(rows), tuple(columns), kind, source, path.resolve(), sha256)


def decode(raw: bytes, source: str) -> str:
    """UTF-8 text (a leading byte-order mark dropped), or DatasetError naming the byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(source, f"not UTF-8 text (byte {exc.start})") from None


def columns_of(rows: Iterable[Row]) -> list[str]:
    """Every key any row has, in order of first appearance."""
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row.values))
    return list(seen)


def json_value(text: str, source: str, line: int | None = None, field: str = "") -> Any:
    """One JSON value read strictly. A value no record could hold is a DatasetError naming
    the line and the field; text that is not JSON is StrictJsonError, for the caller to
    place (a row's problem, or an error of its own)."""
    try:
        return loads_strict(text, max_depth=get_settings().max_json_depth)
    except StrictJsonError as exc:
        if exc.kind == "syntax":
            raise
        raise _refused(exc, source, line, field) from None


def _refused(exc: StrictJsonError, source: str, line: int | None, field: str) -> DatasetError:
    limit = " (JURIST_MAX_JSON_DEPTH)" if exc.kind == "depth" else ""
    path = exc.path if not field else field + ("" if exc.path.startswith("[") else ".") + exc.path
    return DatasetError(source, f"{exc.problem}{limit}", line=line, field=path.rstrip("."))


def syntax_problem(exc: StrictJsonError) -> str:
    return exc.problem if exc.column is None else f"{exc.problem} (column {exc.column})"


def kind_of(value: object) -> str:
    """What a JSON value is, in words (`an array`, `a number`...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    kinds: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}
    return kinds.get(type(value), type(value).__name__)


def _record(line: int, value: Any) -> Row:
    if not isinstance(value, dict):
        return Row(line, {}, f"expected a JSON object, got {kind_of(value)}")
    return Row(line, value)


def jsonl_rows(text: str, source: str) -> list[Row]:
    """One row per non-blank line of JSON Lines text."""
    rows: list[Row] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json_value(line, source, number)
        except StrictJsonError as exc:  # one unreadable line is that row's problem
            rows.append(Row(number, {}, syntax_problem(exc)))
            continue
        rows.append(_record(number, value))
    return rows


def json_array_rows(text: str, source: str) -> list[Row]:
    """One row per element of a JSON array, on the line the element opens on."""
    try:
        value = loads_strict(text, max_depth=get_settings().max_json_depth)
    except StrictJsonError as exc:
        if exc.kind == "syntax":
            raise DatasetError(source, syntax_problem(exc), line=exc.line) from None
        match = _ELEMENT_PATH.match(exc.path)
        if match is None:
            raise _refused(exc, source, None, "") from None
        lines = _element_lines(text)
        index = int(match.group(1))
        field = exc.path[match.end() :]
        place = StrictJsonError(field, exc.problem, kind=exc.kind)
        raise _refused(place, source, lines[index] if index < len(lines) else None, "") from None
    if not isinstance(value, list):
        raise DatasetError(source, f"expected a JSON array of objects, got {kind_of(value)}")
    lines = _element_lines(text)
    return [_record(line, element) for line, element in zip(lines, value, strict=True)]


def _element_lines(text: str) -> list[int]:
    """The line each element of the top-level array opens on (text known to be JSON)."""
    lines: list[int] = []
    depth = 0
    expecting = False
    for match in _ELEMENT_TOKEN.finditer(text):
        token = match.group()
        if depth == 1 and expecting and token not in ("]", ","):
            lines.append(text.count("\n", 0, match.start()) + 1)
            expecting = False
        if token in ("[", "{"):
            depth += 1
            if depth == 1:
                expecting = True
        elif token in ("]", "}"):
            depth -= 1
        elif token == "," and depth == 1:
            expecting = True
    return lines


def csv_rows(text: str, source: str) -> tuple[list[Row], list[str]]:
    """One row per CSV record after the header, each cell a string. A short record lacks
    its last columns rather than holding empty ones; a blank line is no record."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise DatasetError(source, "holds no rows (not even a header)")
        header = [name.strip() for name in header]
        doubled = sorted({name for name in header if header.count(name) > 1})
        if doubled:
            raise DatasetError(source, f"the header names {', '.join(doubled)} more than once")
        rows: list[Row] = []
        start = reader.line_num + 1
        for record in reader:
            line, start = start, reader.line_num + 1
            if not record:
                continue
            if len(record) > len(header):
                problem = f"{len(record)} fields, but the header has {len(header)}"
                rows.append(Row(line, {}, problem))
                continue
            rows.append(Row(line, dict(zip(header, record, strict=False))))
    except csv.Error as exc:
        raise DatasetError(source, f"not valid CSV: {exc}", line=reader.line_num) from None
    return rows, header


def _pyarrow_parquet(source: str) -> Any:
    try:
        return importlib.import_module("pyarrow.parquet")
    except ImportError:
        raise DatasetError(
            source, "reading Parquet needs pyarrow: pip install 'jurist[dataframes]'"
        ) from None


def parquet_rows(raw: bytes, source: str) -> tuple[list[Row], list[str]]:
    """One row per Parquet row, with the types the file holds (needs the `dataframes`
    extra)."""
    parquet = _pyarrow_parquet(source)
    try:
        table = parquet.read_table(io.BytesIO(raw))
    except Exception as exc:  # pyarrow raises several types for a bad file
        raise DatasetError(source, f"not a readable Parquet file: {exc}") from exc
    rows = [Row(number, row) for number, row in enumerate(table.to_pylist(), 1)]
    return rows, [str(name) for name in table.column_names]
