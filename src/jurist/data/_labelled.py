"""Labelled datasets: outputs that humans rated, labelled or compared, read by the one row
reader (JSON Lines, a JSON array, CSV or Parquet; another suffix is read as JSON Lines).

Three kinds, told apart by the first record's fields:

* ratings: ``id, source, output, human_scores {dimension: value}, scale [lo, hi]``, optional
  ``doc_id`` (default: the sha256 of ``source``);
* binary: ``id, context, output, label`` (true/false, 1/0 or "yes"/"no");
* pairwise: ``id, instruction, output_a, output_b, label`` (A, B or tie).

Fields beyond these are kept in each item's ``metadata``. In CSV, nested fields
(``human_scores``, ``scale``, ``metadata``) are JSON text and an empty cell is a missing field.
Unlike a batch run's dataset, a labelled dataset is all or nothing: any bad record is a
DatasetError naming its line and field.
"""

import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from jurist.core import JuristError, StrictJsonError
from jurist.data._errors import DatasetError
from jurist.data._rows import json_value, read_rows

PairwiseLabel = Literal["A", "B", "tie"]
_Item = TypeVar("_Item", bound=BaseModel)


class DatasetKind(StrEnum):
    RATINGS = "ratings"
    BINARY = "binary"
    PAIRWISE = "pairwise"


class RatingItem(BaseModel):
    """One output with human scores per dimension on the closed scale [lo, hi]."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    source: str
    output: str
    human_scores: dict[str, float] = Field(min_length=1)
    scale: tuple[float, float]
    doc_id: str
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _scores_on_scale(self) -> "RatingItem":
        low, high = self.scale
        if not low < high:
            raise ValueError(f"scale: expected [lo, hi] with lo < hi, got {list(self.scale)}")
        for dimension, value in self.human_scores.items():
            if not low <= value <= high:
                raise ValueError(
                    f"human_scores.{dimension}: {value!r} is outside the scale [{low}, {high}]"
                )
        return self


class BinaryItem(BaseModel):
    """One output a human labelled acceptable (True) or not (False) in its context."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    context: str
    output: str
    label: bool
    metadata: dict[str, Any] = Field(default_factory=dict)


class PairwiseItem(BaseModel):
    """Two outputs for one instruction and the human's preference: A, B or tie."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    instruction: str
    output_a: str
    output_b: str
    label: PairwiseLabel
    metadata: dict[str, Any] = Field(default_factory=dict)


DatasetItem = RatingItem | BinaryItem | PairwiseItem


@dataclass(frozen=True)
class LabelledDataset:
    """The items of one file, its kind, and the sha256 of its bytes (a report names it so a
    result can be traced to the exact data)."""

    path: Path
    kind: DatasetKind
    items: tuple[DatasetItem, ...]
    sha256: str

    def __len__(self) -> int:
        return len(self.items)

    @property
    def ratings(self) -> tuple[RatingItem, ...]:
        return tuple(self._of(RatingItem, DatasetKind.RATINGS))

    @property
    def binary(self) -> tuple[BinaryItem, ...]:
        return tuple(self._of(BinaryItem, DatasetKind.BINARY))

    @property
    def pairwise(self) -> tuple[PairwiseItem, ...]:
        return tuple(self._of(PairwiseItem, DatasetKind.PAIRWISE))

    @property
    def dimensions(self) -> tuple[str, ...]:
        """The rated dimensions in order of first appearance (empty unless ratings)."""
        if self.kind is not DatasetKind.RATINGS:
            return ()
        seen: dict[str, None] = {}
        for item in self.ratings:
            seen.update(dict.fromkeys(item.human_scores))
        return tuple(seen)

    def _of(self, cls: type[_Item], kind: DatasetKind) -> Iterator[_Item]:
        if self.kind is not kind:
            raise DatasetError(str(self.path), f"is a {self.kind} dataset, not {kind}")
        for item in self.items:
            assert isinstance(item, cls)  # load_labelled makes every item of the file's kind
            yield item


_REQUIRED: dict[DatasetKind, tuple[str, ...]] = {
    DatasetKind.RATINGS: ("id", "source", "output", "human_scores", "scale"),
    DatasetKind.BINARY: ("id", "context", "output", "label"),
    DatasetKind.PAIRWISE: ("id", "instruction", "output_a", "output_b", "label"),
}
_OPTIONAL: dict[DatasetKind, tuple[str, ...]] = {
    DatasetKind.RATINGS: ("doc_id", "metadata"),
    DatasetKind.BINARY: ("metadata",),
    DatasetKind.PAIRWISE: ("metadata",),
}
_JSON_TEXT_FIELDS = ("human_scores", "scale", "metadata")
# In CSV an empty cell is a missing field, except in these, where it is an empty text.
_TEXT_FIELDS = ("source", "output", "context", "instruction", "output_a", "output_b")
_TRUE_WORDS = frozenset({"true", "yes", "1"})
_FALSE_WORDS = frozenset({"false", "no", "0"})


class _FieldError(JuristError):
    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


def load_labelled(path: str | Path, kind: DatasetKind | str | None = None) -> LabelledDataset:
    """Read a labelled dataset; `kind` None tells the kind from the first record's fields.
    DatasetError naming `path:line` and the field for a bad record or a repeated id, or
    naming the file when it cannot be read or holds no records."""
    wanted = _parse_kind(kind) if kind is not None else None
    rows = read_rows(path, default_format="jsonl")
    source = rows.source
    items: list[DatasetItem] = []
    first_line_of: dict[str, int] = {}
    for row in rows.rows:
        record = row.check(source)
        if rows.format == "csv":
            record = _csv_record(record, source, row.line)
            if not record:
                continue
        if wanted is None:
            wanted = _detect_kind(record, source, row.line)
        try:
            item = _parse_item(record, wanted)
        except _FieldError as exc:
            raise DatasetError(source, exc.problem, line=row.line, field=exc.field) from None
        if item.id in first_line_of:
            raise DatasetError(
                source,
                f"{item.id!r} is already used on line {first_line_of[item.id]}",
                line=row.line,
                field="id",
            )
        first_line_of[item.id] = row.line
        items.append(item)
    if not items or wanted is None:
        raise DatasetError(source, "holds no rows")
    return LabelledDataset(Path(path), wanted, tuple(items), rows.sha256)


def _parse_kind(kind: DatasetKind | str) -> DatasetKind:
    try:
        return DatasetKind(kind)
    except ValueError:
        known = ", ".join(k.value for k in DatasetKind)
        raise ValueError(f"kind: {kind!r} is not one of {known}") from None


def _csv_record(cells: Mapping[str, Any], source: str, line: int) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for name, cell in cells.items():
        if cell == "" and name not in _TEXT_FIELDS:
            continue  # an empty cell: the field is missing
        if name not in _JSON_TEXT_FIELDS:
            record[name] = cell
            continue
        try:
            record[name] = json_value(cell, source, line, name)
        except StrictJsonError as exc:
            problem = exc.problem.removeprefix("not valid JSON: ")
            raise DatasetError(
                source, f"not valid JSON text: {problem}", line=line, field=name
            ) from None
    return record


def _detect_kind(record: Mapping[str, Any], source: str, line: int) -> DatasetKind:
    if "human_scores" in record:
        return DatasetKind.RATINGS
    if "output_a" in record or "output_b" in record:
        return DatasetKind.PAIRWISE
    if "label" in record:
        return DatasetKind.BINARY
    raise DatasetError(
        source,
        "cannot tell the dataset kind: expected human_scores (ratings), "
        "output_a and output_b (pairwise) or label (binary)",
        line=line,
    )


def _parse_item(record: Mapping[str, Any], kind: DatasetKind) -> DatasetItem:
    for name in _REQUIRED[kind]:
        if record.get(name) is None:
            raise _FieldError(name, f"missing (a {kind} record needs {', '.join(_REQUIRED[kind])})")
    metadata = _metadata(record, kind)
    item_id = _identifier(record["id"], "id")
    if kind is DatasetKind.RATINGS:
        source = _text(record, "source")
        scale = _scale(record["scale"])
        doc_id = record.get("doc_id")
        return RatingItem(
            id=item_id,
            source=source,
            output=_text(record, "output"),
            human_scores=_human_scores(record["human_scores"], scale),
            scale=(float(scale[0]), float(scale[1])),
            doc_id=(
                _identifier(doc_id, "doc_id")
                if doc_id is not None
                else hashlib.sha256(source.encode()).hexdigest()
            ),
            metadata=metadata,
        )
    if kind is DatasetKind.BINARY:
        return BinaryItem(
            id=item_id,
            context=_text(record, "context"),
            output=_text(record, "output"),
            label=_binary_label(record["label"]),
            metadata=metadata,
        )
    return PairwiseItem(
        id=item_id,
        instruction=_text(record, "instruction"),
        output_a=_text(record, "output_a"),
        output_b=_text(record, "output_b"),
        label=_pairwise_label(record["label"]),
        metadata=metadata,
    )


def _metadata(record: Mapping[str, Any], kind: DatasetKind) -> dict[str, Any]:
    given = record.get("metadata")
    if given is not None and not isinstance(given, dict):
        raise _FieldError("metadata", f"expected an object, got {type(given).__name__}")
    known = set(_REQUIRED[kind]) | set(_OPTIONAL[kind])
    return {**(given or {}), **{k: v for k, v in record.items() if k not in known}}


def _identifier(value: Any, field: str) -> str:
    # JSON ids are often numbers; bools are numbers to Python but never a meant id.
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _FieldError(field, f"expected a string, got {type(value).__name__}")
    text = str(value).strip()
    if not text:
        raise _FieldError(field, "is empty")
    return text


def _text(record: Mapping[str, Any], field: str) -> str:
    value = record[field]
    if not isinstance(value, str):
        raise _FieldError(field, f"expected a string, got {type(value).__name__}")
    return value


def _number(value: Any, field: str) -> float:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise _FieldError(field, f"expected a number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _FieldError(field, f"expected a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise _FieldError(field, f"{value!r} is not a finite number")
    return float(value)


def _scale(value: Any) -> tuple[Any, Any]:
    if not isinstance(value, list) or len(value) != 2:
        raise _FieldError("scale", f"expected [lo, hi], got {json.dumps(value)}")
    low, high = (_number(v, "scale") for v in value)
    if not low < high:
        raise _FieldError("scale", f"expected [lo, hi] with lo < hi, got {json.dumps(value)}")
    return value[0], value[1]


def _human_scores(value: Any, scale: tuple[Any, Any]) -> dict[str, float]:
    if not isinstance(value, dict) or not value:
        raise _FieldError("human_scores", "expected a non-empty object {dimension: score}")
    low, high = float(scale[0]), float(scale[1])
    scores: dict[str, float] = {}
    for dimension, raw in value.items():
        field = f"human_scores.{dimension}"
        if not dimension.strip():
            raise _FieldError("human_scores", "a dimension name is empty")
        score = _number(raw, field)
        if not low <= score <= high:
            raise _FieldError(field, f"{raw!r} is outside the scale [{scale[0]}, {scale[1]}]")
        scores[dimension] = score
    return scores


def _binary_label(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    raise _FieldError("label", f'expected true/false, 1/0 or "yes"/"no", got {json.dumps(value)}')


def _pairwise_label(value: Any) -> PairwiseLabel:
    word = value.strip().lower() if isinstance(value, str) else None
    if word == "a":
        return "A"
    if word == "b":
        return "B"
    if word == "tie":
        return "tie"
    raise _FieldError("label", f"expected A, B or tie, got {json.dumps(value)}")
