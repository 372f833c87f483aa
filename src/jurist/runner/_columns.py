"""The columns an exported result adds beside the judgment's: the item's inputs, and each
vote behind a jury's or cascade's verdict."""

import json
from collections.abc import Mapping
from typing import Any

from jurist.core import Context, Judgment, normalized_score

# An item's inputs, as the dataset's columns were mapped to them; `metadata.KEY` columns
# follow for the metadata the map gave the items.
INPUT_COLUMNS = ("goal", "output", "context", "reference")


def input_cells(ctx: Context | None) -> dict[str, Any]:
    """The inputs of one item; empty for an item that could not be read (its row had a
    problem, which its judgment states)."""
    if ctx is None:
        return {}
    cells: dict[str, Any] = {
        "goal": ctx.goal,
        "output": ctx.output,
        "context": list(ctx.context),
        "reference": ctx.reference,
    }
    cells.update({f"metadata.{key}": value for key, value in ctx.metadata.items()})
    return cells


def vote_cells(votes: Mapping[str, Judgment]) -> dict[str, Any]:
    """`vote.MEMBER` (the member's status) and `vote_score.MEMBER` (its score in 0..1, or
    empty) for each member of the jury."""
    cells: dict[str, Any] = {}
    for member, judgment in votes.items():
        cells[f"vote.{member}"] = judgment.status.value
        cells[f"vote_score.{member}"] = normalized_score(judgment)
    return cells


def input_columns(inputs: Mapping[str, Context]) -> list[str]:
    if not inputs:
        return []
    keys = dict.fromkeys(key for ctx in inputs.values() for key in ctx.metadata)
    return [*INPUT_COLUMNS, *(f"metadata.{key}" for key in keys)]


def vote_columns(members: list[str]) -> list[str]:
    return [column for m in members for column in (f"vote.{m}", f"vote_score.{m}")]


def as_cell(value: Any) -> Any:
    """A value as one CSV cell: text and numbers as they are, lists and objects as JSON
    (which the dataset reader reads back as a list of passages)."""
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def error_cause(judgment: Judgment) -> str:
    """Why an ERROR judgment is one: the judge's `cause` (`bad_input`, `timeout`,
    `unparseable`, ...), else `exception` for a judge that raised, else `error`."""
    if judgment.cause is not None:
        return judgment.cause.value
    return "exception" if judgment.error_info is not None else "error"
