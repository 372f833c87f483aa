"""The inputs of a run's items (goal, output, ...), which the store keeps none of: read again
from the run's dataset file through the runner (`stored_inputs`, which says why when the file
is gone or changed), and kept for a few datasets so that page 2 of a run, or a search in it,
does not read ten thousand rows again. A file written since it was read (its size or time
changed) is read again."""

import asyncio
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jurist.core import Context, SingleFlight
from jurist.runner import stored_inputs

KEPT_DATASETS = 4
CLIP = 240


@dataclass(frozen=True)
class RunInputs:
    """A run's inputs by item id, and why there are none when there are none."""

    contexts: Mapping[str, Context]
    note: str | None
    # What a search looks in, per item: goal, output and reference, lower-cased once.
    _haystacks: dict[str, str] = field(default_factory=dict, repr=False)

    def matching(self, text: str) -> list[str]:
        """The ids of the items whose inputs hold `text`, ignoring case."""
        needle = text.lower()
        if not self._haystacks:
            for item_id, context in self.contexts.items():
                self._haystacks[item_id] = _haystack(context)
        return [item_id for item_id, hay in self._haystacks.items() if needle in hay]


def _haystack(context: Context) -> str:
    reference = "" if context.reference is None else str(context.reference)
    return "\n".join((context.goal, context.output_text(), reference)).lower()


def clip(text: str, limit: int = CLIP) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_kept: OrderedDict[tuple[Any, ...], RunInputs] = OrderedDict()
_reading: SingleFlight[tuple[Any, ...], RunInputs] = SingleFlight(keep="none")


async def run_inputs(spec: Mapping[str, Any]) -> RunInputs:
    """The inputs of the run with this spec; read once per version of its dataset file."""
    key = _file_key(spec)
    if key is None:
        return await _read(spec)
    found = _kept.get(key)
    if found is not None:
        _kept.move_to_end(key)
        return found
    read = await _reading(key, lambda: _read(spec))
    _kept[key] = read
    while len(_kept) > KEPT_DATASETS:
        _kept.popitem(last=False)
    return read


def _file_key(spec: Mapping[str, Any]) -> tuple[Any, ...] | None:
    described = spec.get("dataset")
    path = described.get("path") if isinstance(described, Mapping) else None
    if not isinstance(path, str) or not isinstance(described, Mapping):
        return None
    try:
        seen = os.stat(path)
    except OSError:
        return None  # gone: the runner says so, and nothing is kept
    return (path, seen.st_size, seen.st_mtime_ns, str(spec.get("map")), described.get("sha256"))


async def _read(spec: Mapping[str, Any]) -> RunInputs:
    # Reading and hashing a large file would stall every other request of the event loop.
    contexts, note = await asyncio.to_thread(stored_inputs, spec)
    return RunInputs(contexts, note)
