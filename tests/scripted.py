"""Fakes for the middleware tests: a model that follows a script, and a clock that never waits."""

import asyncio
import inspect
import math
from collections.abc import Awaitable, Callable, Iterable

from jurist.core import Usage
from jurist.llm import Capabilities, Choice, Request, Response

Step = Response | BaseException | Callable[[Request], Response | Awaitable[Response]]


def answer(
    text: str = "ok",
    *,
    input_tokens: int = 10,
    output_tokens: int = 5,
    model: str = "test:scripted",
    alternatives: Iterable[str] = (),
) -> Response:
    """A response as a provider returns it: one call, tokens counted, cost unknown."""
    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens, model=model, calls=1)
    choices = [Choice(text, finish_reason="stop")]
    choices += [Choice(other, finish_reason="stop") for other in alternatives]
    return Response.from_choices(choices, usage)


class ScriptedModel:
    """Answers call k with step k of the script: a Response is returned, an exception raised,
    a callable called with the request (and awaited if it returns an awaitable).

    It records every request and the calls in flight, so tests can see what the middleware
    sent and how many calls it let run at once. Running out of script is a test failure.
    """

    def __init__(
        self,
        name: str = "test:scripted",
        script: Iterable[Step] = (),
        *,
        capabilities: Capabilities | None = None,
    ) -> None:
        self._name = name
        self.script = list(script)
        self._capabilities = capabilities or Capabilities()
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    @property
    def calls(self) -> int:
        return len(self.requests)

    async def complete(self, request: Request) -> Response:
        self.requests.append(request)
        if not self.script:
            raise AssertionError(f"{self.name}: the script ran out at call {self.calls}")
        step = self.script.pop(0)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if isinstance(step, BaseException):
                raise step
            if isinstance(step, Response):
                return step
            result = step(request)
            if inspect.isawaitable(result):
                result = await result
            return result
        finally:
            self.in_flight -= 1


def gated(gate: asyncio.Event, outcome: Response | BaseException) -> Step:
    """A step that waits for `gate` before it answers (or raises)."""

    async def step(request: Request) -> Response:
        await gate.wait()
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return step


async def settle(rounds: int = 20) -> None:
    """Lets every ready task run until it blocks; yields to the loop, never waits on time."""
    for _ in range(rounds):
        await asyncio.sleep(0)


class FakeClock:
    """A clock for `now()` and an `async sleep(s)` that only moves it, recording each sleep."""

    def __init__(self, start: float = 1000.0) -> None:
        self.time = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.time += seconds
        await asyncio.sleep(0)  # a real sleep yields to the loop, so this one does too


def with_logprobs(
    *pieces: str | tuple[str, dict[str, float]],
    model: str = "test:scripted",
    json: object = None,
) -> Response:
    """A response whose tokens carry log-probabilities, built piece by piece.

    A plain string piece is a token generated with probability 1; a pair (token, {alt:
    probability}) is a token whose top alternatives have the given probabilities (the token
    itself should be among them). The text is the pieces joined.
    """
    from jurist.llm import TokenLogprob, TopLogprob

    tokens = []
    for piece in pieces:
        if isinstance(piece, str):
            tokens.append(TokenLogprob(piece, 0.0, (TopLogprob(piece, 0.0),)))
            continue
        text, alternatives = piece
        top = tuple(TopLogprob(alt, math.log(p)) for alt, p in alternatives.items())
        chosen = alternatives.get(text, 1e-9)
        tokens.append(TokenLogprob(text, math.log(chosen), top))
    text = "".join(token.token for token in tokens)
    usage = Usage(input_tokens=10, output_tokens=len(tokens), model=model, calls=1)
    choice = Choice(text, json=json, logprobs=tuple(tokens), finish_reason="stop")  # type: ignore[arg-type]
    return Response.from_choices([choice], usage)


LOGPROB_CAPABILITIES = Capabilities(
    logprobs=True, max_top_logprobs=20, json_schema=True, seed=True, local=True
)
