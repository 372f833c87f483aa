"""Redaction of concurrent requests' records together, in one analysis.

Presidio's analysis has a cost per call besides its cost per character, and a service under
load has several records waiting for it at once (the analysis runs one at a time per process
anyway, under the engine's lock). `RedactionBatch` hands every record waiting to one call of
`redact_json` over all of them, in a worker thread: the records are joined as one record's
strings are, each kept apart by the separator no finding spans, so what each record's
redaction finds is what it found alone. A batch that fails is redacted again one record at a
time, so one record the redactor cannot read never costs the others theirs.
"""

import asyncio
from collections.abc import Callable
from typing import Any

from jurist.llm import Redactor, redact_json
from jurist.server._errors import ServiceError


class RedactionBatch:
    """`await batch.redact(value)`: `value` redacted (see `redact_json`), together with
    whatever other values are waiting."""

    def __init__(self, redactor: Callable[[], Redactor], max_batch: int = 32) -> None:
        self._redactor = redactor
        self._max_batch = max_batch
        self._waiting: list[tuple[Any, asyncio.Future[Any]]] = []
        self._drain: asyncio.Task[None] | None = None

    async def redact_for_reading(self, value: Any) -> Any:
        """`redact`, for a read of sealed content by someone other than its owner: a redactor
        that fails (it could not be built, or broke on the text) answers 503 with its
        cause, never a 500, and shows nothing unredacted."""
        try:
            return await self.redact(value)
        except Exception as exc:  # noqa: BLE001 - whatever broke, the reader hears why
            raise ServiceError(
                503,
                "redactor_unavailable",
                "this key may read the record only redacted, and the redactor failed: "
                f"{type(exc).__name__}: {str(exc)[:300]}",
            ) from None

    async def redact(self, value: Any) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append((value, future))
        if self._drain is None or self._drain.done():
            self._drain = asyncio.create_task(self._redact_waiting())
        return await future

    async def _redact_waiting(self) -> None:
        while self._waiting:
            batch = self._waiting[: self._max_batch]
            del self._waiting[: self._max_batch]
            values = [value for value, _ in batch]
            try:
                done = await asyncio.to_thread(self._redact_all, values)
            except Exception as exc:  # noqa: BLE001 - handed to the requests that wait
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), result in zip(batch, done, strict=True):
                if future.done():  # its request was cancelled meanwhile
                    continue
                if isinstance(result, _Failed):
                    future.set_exception(result.error)
                else:
                    future.set_result(result)

    def _redact_all(self, values: list[Any]) -> list[Any]:
        redactor = self._redactor()
        try:
            redacted: list[Any] = redact_json(values, redactor)
            return redacted
        except Exception:
            if len(values) == 1:
                raise
        return [self._redact_one(value, redactor) for value in values]

    @staticmethod
    def _redact_one(value: Any, redactor: Redactor) -> Any:
        try:
            return redact_json(value, redactor)
        except Exception as exc:  # noqa: BLE001 - this record's own failure
            return _Failed(exc)


class _Failed:
    def __init__(self, error: Exception) -> None:
        self.error = error
