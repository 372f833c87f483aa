"""What `evaluate` accepts as its items: a Dataset, a file, or rows already in memory."""

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from jurist.core import Context
from jurist.data import Dataset, DatasetError, FieldMap, dataset_from_rows, load_dataset

Rows = Iterable[Mapping[str, Any]]


def as_dataset(data: Dataset | str | Path | Rows, field_map: FieldMap | str | None) -> Dataset:
    """The dataset of `data`. Rows in memory (dicts with `output` and, optionally, `goal`,
    `context`, `reference`, `id`, ...) are read exactly like a file's rows, through the same
    field map; unlike a file, whose unreadable rows are judged ERROR so a long run goes on, a
    row in memory that cannot be judged is a mistake in the calling code: DatasetError
    naming the row and the field, before anything is judged."""
    if isinstance(data, Dataset):
        if field_map is not None:
            raise ValueError("field_map applies to a file or rows; this Dataset is mapped already")
        return data
    if isinstance(data, str | Path):
        return load_dataset(data, field_map)
    if hasattr(data, "columns") and hasattr(data, "to_dict"):
        raise TypeError(
            "evaluate() takes rows as a list of dicts; for a DataFrame pass "
            "frame.to_dict('records')"
        )
    if isinstance(data, bytes | Mapping) or not isinstance(data, Iterable):
        raise TypeError(
            "evaluate() takes a Dataset, a dataset file's path, or a list of rows (dicts "
            f"with an 'output' and, optionally, 'goal', 'context', 'reference'); got "
            f"{type(data).__name__}"
        )
    rows = list(data)
    for number, row in enumerate(rows, 1):
        if not isinstance(row, Mapping):
            raise DatasetError(
                "rows",
                f"is a {type(row).__name__}, not a dict of fields ('output', 'goal', ...)",
                line=number,
            )
    try:
        dataset = dataset_from_rows(rows, field_map)
    except DatasetError:
        raise
    except ValueError as exc:  # the map does not fit: said for the command line's --map
        raise ValueError(f"rows: {str(exc).replace('--map', 'field_map')}") from exc
    for item, row in zip(dataset.items, rows, strict=True):
        missing = [column for column in dataset.columns.values() if column not in row]
        if missing:
            raise DatasetError(
                "rows",
                f"missing, which other rows have (rows count from 1, of {len(rows)})",
                line=item.line,
                field=missing[0],
            )
        if item.context is None:  # nothing else is known to keep a row from a Context
            raise DatasetError("rows", item.problem or "cannot be judged", line=item.line)
    return dataset


def stored_inputs(spec: Mapping[str, Any]) -> tuple[dict[str, Context], str | None]:
    """A stored run's inputs by item id, read again from its dataset file through its map;
    or none, and why, when the file is gone, changed since the run, or never was (rows
    in memory)."""
    described = spec.get("dataset")
    if not isinstance(described, Mapping):
        return {}, "the run records no dataset"
    path = described.get("path")
    if not isinstance(path, str):
        return {}, "the run judged rows in memory, and the store keeps no item's inputs"
    try:
        dataset = load_dataset(path, str(spec.get("map") or ""))
    except (OSError, ValueError) as exc:  # DatasetError is a ValueError
        return {}, f"its dataset {path} cannot be read again: {exc}"
    if dataset.sha256 != described.get("sha256"):
        return {}, f"its dataset {path} has changed since the run"
    return {item.id: item.context for item in dataset.items if item.context is not None}, None
