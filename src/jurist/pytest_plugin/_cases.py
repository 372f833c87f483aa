"""Tests parametrised over a dataset file, read by jurist's one dataset reader."""

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # pytest loads the plugin in every session: the reader when a test asks
    from jurist.data import FieldMap

MARKER = "jurist_dataset"
DEFAULT_ARGUMENT = "case"
# pytest shows this error's message alone, without a traceback into the plugin.
_CollectError = pytest.Collector.CollectError


def jurist_cases(
    path: str | Path, field_map: "FieldMap | str | None" = None, *, base: Path | None = None
) -> list[Any]:
    """The rows of a dataset file (.jsonl, .json, .csv, .parquet) as Contexts, one
    `pytest.param` each, with the row's `id` (else its line number) as the test id: use it
    in `@pytest.mark.parametrize("case", jurist_cases("answers.jsonl"))`.

    `field_map` picks the columns (`"output=answer,context=docs"`, as `jurist eval --map`).
    A relative path is read from the directory of the file that calls this (the test
    module), else from `base`. A row that cannot be judged is a DatasetError naming its line,
    raised at collection."""
    from jurist.data import DatasetError, load_dataset

    if base is None:
        caller = inspect.stack()[1].filename
        base = Path(caller).resolve().parent
    target = Path(path)
    if not target.is_absolute():
        target = base / target
    try:
        dataset = load_dataset(target, field_map)
    except DatasetError:
        raise
    except ValueError as exc:  # the columns do not fit: said in the command line's words
        raise DatasetError(
            str(target), f"{exc} (here: the marker's map=, or jurist_cases' field_map)"
        ) from None
    params = []
    for item in dataset.items:
        if item.context is None:
            raise DatasetError(str(target), item.problem or f"line {item.line}: cannot be judged")
        params.append(pytest.param(item.context, id=item.id))
    return params


def parametrize_marked(metafunc: pytest.Metafunc) -> None:
    """`@pytest.mark.jurist_dataset(PATH, map=None, argument="case")`: the test runs once per
    row of PATH (relative to the test module), its `argument` the row's Context."""
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None:
        return
    if len(marker.args) != 1:
        raise _CollectError(
            f"{metafunc.definition.nodeid}: @pytest.mark.{MARKER} takes one dataset path, "
            f"got {len(marker.args)} arguments"
        )
    unknown = sorted(set(marker.kwargs) - {"map", "argument"})
    if unknown:
        raise _CollectError(
            f"{metafunc.definition.nodeid}: @pytest.mark.{MARKER} has no option {unknown[0]!r} "
            "(options: map, argument)"
        )
    from jurist.data import DatasetError

    argument = marker.kwargs.get("argument", DEFAULT_ARGUMENT)
    if argument not in metafunc.fixturenames:
        raise _CollectError(
            f"{metafunc.definition.nodeid}: @pytest.mark.{MARKER} gives each row as the "
            f"argument {argument!r}, which the test does not take"
        )
    try:
        cases = jurist_cases(
            marker.args[0], marker.kwargs.get("map"), base=metafunc.definition.path.parent
        )
    except (DatasetError, OSError) as exc:
        raise _CollectError(f"{metafunc.definition.nodeid}: {exc}") from None
    metafunc.parametrize(argument, cases)
