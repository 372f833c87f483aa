"""Usage summed over many calls: what one judgment, one run or one service request cost."""

import threading

from jurist.core import Usage
from jurist.llm._types import Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper


class Metered(ModelWrapper):
    """Adds up the usage of every answer that passes through, and counts the failures.

    Wrap a shared model once per run (`Metered(get_model(...))`) to learn what that run cost
    while the model, its cache and its limits stay shared with everyone else. The total is
    kept under a lock, since a run may call from several threads' event loops.
    """

    def __init__(self, inner: Model) -> None:
        super().__init__(inner)
        self._lock = threading.Lock()
        self._total: Usage | None = None
        self._failures = 0

    @property
    def total(self) -> Usage:
        """All usage so far; `Usage()` before the first answer."""
        with self._lock:
            return self._total or Usage()

    @property
    def failures(self) -> int:
        with self._lock:
            return self._failures

    async def complete(self, request: Request) -> Response:
        try:
            response = await self.inner.complete(request)
        except ModelError:
            with self._lock:
                self._failures += 1
            raise
        with self._lock:
            self._total = Usage.total([self._total, response.usage])
        return response
