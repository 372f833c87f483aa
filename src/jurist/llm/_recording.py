"""Recording the calls made under a judgment: the prompts sent and the raw answers.

    with recording_calls() as calls:
        judgment = await run_judge(judge, ctx)
    [call.to_dict() for call in calls]   # messages, answer, model, tokens, cost, latency

Whoever records opens `recording_calls()` around the work; every call made through a
`Recorded` model inside it (`jurist.judges.ask` wraps each call it makes with `recorded`) is
appended to its list, in the order the calls ended. The list lives in a context variable:
asyncio copies the context into the tasks a judging starts, so a jury's members judging
concurrently append to the one list of their item, while items judged concurrently, each
under its own `recording_calls()`, keep separate lists.

Nothing is recorded by default: prompts hold the item's inputs (the user's data), which a
store does not keep unless asked. Outside `recording_calls()` a call costs one context
variable read more.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from jurist.llm._types import Message, Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper


@dataclass(frozen=True)
class RecordedCall:
    """One call to a model as its caller saw it: the messages sent, the raw answer's text
    (the first sample's), the model asked, the tokens and cost the answer reported, and
    the latency the caller waited. `cached` says the response cache answered (the call
    cost nothing, but its answer is what the judgment used). A failed call has an empty
    `answer` and its `error` ("KIND: CAUSE"). `judge` names the judge that asked, when
    the call path knows it."""

    messages: tuple[Message, ...]
    answer: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float | None = None
    cached: bool = False
    judge: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The call as plain JSON: `messages` a list of {"role", "content"}, then every
        other field by its name."""
        return {
            "messages": [{"role": m.role, "content": m.content} for m in self.messages],
            "answer": self.answer,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "latency_ms": self.latency_ms,
            "cached": self.cached,
            "judge": self.judge,
            "error": self.error,
        }


_recording: ContextVar[list[RecordedCall] | None] = ContextVar(
    "jurist_recorded_calls", default=None
)


@contextmanager
def recording_calls() -> Iterator[list[RecordedCall]]:
    """Record every call made through a `Recorded` model inside the block (and in the tasks
    it starts) into the list it gives. Nested, the inner block records alone."""
    calls: list[RecordedCall] = []
    token = _recording.set(calls)
    try:
        yield calls
    finally:
        _recording.reset(token)


class Recorded(ModelWrapper):
    """Appends each call to the list of the `recording_calls()` it is made in, if any;
    passes calls straight through outside one. `judge` tags the calls it records."""

    def __init__(self, inner: Model, *, judge: str | None = None) -> None:
        super().__init__(inner)
        self.judge = judge

    async def complete(self, request: Request) -> Response:
        calls = _recording.get()
        if calls is None:
            return await self.inner.complete(request)
        started = time.perf_counter()
        try:
            response = await self.inner.complete(request)
        except Exception as exc:
            calls.append(self._failed(request, exc, _since(started)))
            raise
        calls.append(self._answered(request, response, _since(started)))
        return response

    def _answered(self, request: Request, response: Response, latency_ms: float) -> RecordedCall:
        usage = response.usage
        return RecordedCall(
            messages=request.messages,
            answer=response.text,
            model=self.name,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=usage.cost_usd,
            latency_ms=latency_ms,
            cached=response.cached,
            judge=self.judge,
        )

    def _failed(self, request: Request, exc: Exception, latency_ms: float) -> RecordedCall:
        # A ModelError says its kind first; anything else raised below is named by its type.
        error = str(exc) if isinstance(exc, ModelError) else f"{type(exc).__name__}: {exc}"
        usage = exc.usage if isinstance(exc, ModelError) else None
        return RecordedCall(
            messages=request.messages,
            answer="",
            model=self.name,
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
            cost_usd=usage.cost_usd if usage else None,
            latency_ms=latency_ms,
            judge=self.judge,
            error=error,
        )


def recorded(model: Model, *, judge: str | None = None) -> Model:
    """`model` with its calls recorded into the current `recording_calls()`: itself when no
    recording is open (or it records already), else wrapped in `Recorded`."""
    if _recording.get() is None or isinstance(model, Recorded):
        return model
    return Recorded(model, judge=judge)


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
