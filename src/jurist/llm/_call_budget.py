"""A bound on the model calls one unit of work (one service request) may make."""

from jurist.llm._types import ErrorKind, Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper


class CallBudget(ModelWrapper):
    """The model one request's judges ask, allowed `limit` calls: past them each call fails
    with ModelError(BUDGET), which its judge reports as an ERROR judgment (never a silent
    pass), so no request makes unbounded work whatever its spec holds."""

    def __init__(self, inner: Model, limit: int, *, setting: str | None = None) -> None:
        super().__init__(inner)
        if limit < 1:
            raise ValueError(f"CallBudget.limit must be at least 1, got {limit}")
        self.limit = limit
        self.setting = setting  # what raises the limit, named in the error
        self.calls = 0

    async def complete(self, request: Request) -> Response:
        if self.calls >= self.limit:
            raise ModelError(
                ErrorKind.BUDGET,
                f"this request may make at most {self.limit} model calls"
                + (f" ({self.setting})" if self.setting else ""),
                model=self.name,
                retryable=False,
            )
        self.calls += 1
        return await self.inner.complete(request)
