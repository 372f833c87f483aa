"""The dataset of a batch evaluation: rows turned into items, each a Context.

Every row is an item. Its id is the row's `id` field, else its line number. A row that
cannot become a Context (a mapped column missing, a JSON Lines line that is not a JSON
object) is still an item: the runner judges it ERROR with cause `bad_input`, naming the line
and the problem, and goes on.
"""

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jurist.core import Context, StrictJsonError, loads_strict
from jurist.data._errors import DatasetError
from jurist.data._rows import Row, columns_of, read_rows
from jurist.settings import get_settings

# Where each Context field is looked for when --map does not say: the first of these
# columns the dataset has.
DEFAULT_COLUMNS: Mapping[str, tuple[str, ...]] = {
    "goal": ("goal", "question", "instruction"),
    "output": ("output", "answer", "response"),
    "context": ("context", "source", "documents", "passages"),
    "reference": ("reference",),
}
_METADATA = "metadata."
# The judgments table keeps an item id in 200 characters.
MAX_ITEM_ID = 200


@dataclass(frozen=True)
class FieldMap:
    """Which dataset column fills each Context field (`goal`, `output`, `context`,
    `reference`, `metadata.KEY`); the fields it does not name use DEFAULT_COLUMNS.

    A default is chosen once per dataset (the first candidate any row has), and is then
    mapped like a named column: a row without it is a `bad_input` item, never a silent
    blank. A null value is a value (an empty goal, no passages)."""

    columns: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for target, column in self.columns.items():
            _check_entry(target, column)

    @classmethod
    def parse(cls, text: str | None) -> "FieldMap":
        """`"output=answer,context=docs"`: FIELD=COLUMN entries, comma-separated. A malformed
        entry is a ValueError naming `--map`."""
        columns: dict[str, str] = {}
        for entry in (text or "").split(","):
            if not entry.strip():
                continue
            target, equals, column = (part.strip() for part in entry.partition("="))
            if not equals:
                raise ValueError(f"--map: {entry.strip()!r} is not FIELD=COLUMN")
            _check_entry(target, column)
            if target in columns:
                raise ValueError(f"--map: {target} is mapped twice")
            columns[target] = column
        return cls(columns)

    def __str__(self) -> str:
        return ",".join(f"{target}={column}" for target, column in self.columns.items())

    def resolve(self, available: Sequence[str]) -> dict[str, str]:
        """Field -> column for a dataset with these columns. A mapped column the dataset
        does not have, or no column for the output, is a ValueError naming `--map`."""
        have = ", ".join(available) or "(none)"
        chosen: dict[str, str] = {}
        for target, candidates in DEFAULT_COLUMNS.items():
            found = next((c for c in candidates if c in available), None)
            if found is not None:
                chosen[target] = found
        for target, column in self.columns.items():
            if column not in available:
                raise ValueError(
                    f"--map: {target}={column}: the dataset has no column {column!r}; "
                    f"its columns: {have}"
                )
            chosen[target] = column
        if "output" not in chosen:
            raise ValueError(
                "--map: no column for the output: the dataset has none of "
                f"{', '.join(DEFAULT_COLUMNS['output'])}; name it with --map output=COLUMN "
                f"(its columns: {have})"
            )
        return chosen


def _check_entry(target: str, column: str) -> None:
    fields = [*DEFAULT_COLUMNS, "metadata.KEY"]
    if target not in DEFAULT_COLUMNS and not (
        target.startswith(_METADATA) and len(target) > len(_METADATA)
    ):
        raise ValueError(f"--map: unknown field {target!r}; the fields: {', '.join(fields)}")
    if not column:
        raise ValueError(f"--map: {target}= names no column")


@dataclass(frozen=True)
class Item:
    """One row to judge: its Context, or the `problem` that kept it from having one."""

    id: str
    line: int
    context: Context | None
    problem: str | None = None


@dataclass(frozen=True)
class Dataset:
    """The items of a dataset, with what identifies it: its file, that file's sha256,
    its format and the column chosen for each Context field."""

    items: tuple[Item, ...]
    columns: Mapping[str, str]
    field_map: FieldMap = field(default_factory=FieldMap)
    path: Path | None = None
    sha256: str | None = None
    format: str = "rows"

    def describe(self) -> dict[str, Any]:
        """What a run records about its dataset."""
        return {
            "path": None if self.path is None else str(self.path),
            "sha256": self.sha256,
            "format": self.format,
            "items": len(self.items),
            "columns": dict(self.columns),
        }


def load_dataset(path: str | Path, field_map: FieldMap | str | None = None) -> Dataset:
    """Read a .jsonl (.ndjson), .json, .csv or .parquet file. DatasetError when the file
    cannot be read or has no rows; ValueError naming `--map` when the map does not fit it."""
    rows = read_rows(path)
    return _dataset(
        rows.rows,
        rows.columns,
        _field_map(field_map),
        source=rows.source,
        path=rows.path,
        sha256=rows.sha256,
        format=rows.format,
        lists_as_json=rows.format == "csv",
    )


def dataset_from_rows(
    rows: Iterable[Mapping[str, Any]], field_map: FieldMap | str | None = None
) -> Dataset:
    """A dataset of rows already in memory; row n (1-based) is line n. Its sha256 is that
    of the rows as JSON (keys sorted; a value JSON has no form for as its text)."""
    parsed = [Row(number, dict(row)) for number, row in enumerate(rows, 1)]
    as_json = json.dumps([row.values for row in parsed], sort_keys=True, default=str)
    return _dataset(
        parsed,
        columns_of(parsed),
        _field_map(field_map),
        source="rows",
        sha256=hashlib.sha256(as_json.encode()).hexdigest(),
    )


def _field_map(value: FieldMap | str | None) -> FieldMap:
    return value if isinstance(value, FieldMap) else FieldMap.parse(value)


def _dataset(
    rows: Sequence[Row],
    columns: Sequence[str],
    field_map: FieldMap,
    *,
    source: str,
    path: Path | None = None,
    sha256: str | None = None,
    format: str = "rows",
    lists_as_json: bool = False,
) -> Dataset:
    if not rows:
        raise DatasetError(source, "holds no rows")
    chosen = field_map.resolve(columns)
    items: list[Item] = []
    first_line: dict[str, int] = {}
    for row in rows:
        item_id = _item_id(row, source)
        if item_id in first_line:
            raise DatasetError(
                source,
                f"{item_id!r} is already used on line {first_line[item_id]}; item ids must "
                "be unique (a row without an `id` field takes its line number)",
                line=row.line,
                field="id",
            )
        first_line[item_id] = row.line
        items.append(_item(item_id, row, chosen, lists_as_json))
    return Dataset(tuple(items), chosen, field_map, path, sha256, format)


def _item_id(row: Row, source: str) -> str:
    value = row.values.get("id")
    if value is None or value == "":
        return str(row.line)
    item_id = value if isinstance(value, str) else json.dumps(value)
    if len(item_id) > MAX_ITEM_ID:
        raise DatasetError(
            source,
            f"has {len(item_id)} characters; at most {MAX_ITEM_ID} are kept",
            line=row.line,
            field="id",
        )
    return item_id


def _item(item_id: str, row: Row, chosen: Mapping[str, str], lists_as_json: bool) -> Item:
    if row.problem is not None:
        return Item(item_id, row.line, None, f"line {row.line}: {row.problem}")
    missing = [
        f"{column!r} ({target})" for target, column in chosen.items() if column not in row.values
    ]
    if missing:
        return Item(item_id, row.line, None, f"line {row.line}: no column {', '.join(missing)}")
    values = {target: row.values[column] for target, column in chosen.items()}
    context = Context(
        goal=_text(values.get("goal")),
        output=values.get("output"),
        context=_passages(values.get("context"), lists_as_json),
        reference=values.get("reference"),
        metadata={
            target.removeprefix(_METADATA): value
            for target, value in values.items()
            if target.startswith(_METADATA)
        },
    )
    return Item(item_id, row.line, context)


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _passages(value: Any, lists_as_json: bool) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        # A CSV cell cannot hold a list, so one that is a JSON array of texts is read as one.
        if lists_as_json and value.lstrip().startswith("["):
            try:
                parsed = loads_strict(value, max_depth=get_settings().max_json_depth)
            except StrictJsonError:
                return (value,)
            if isinstance(parsed, list):
                return tuple(_text(part) for part in parsed)
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(_text(part) for part in value)
    return (_text(value),)
