"""The model layer's vocabulary: what a judge asks a model, and what comes back."""

import math
from enum import StrEnum
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import Field, JsonValue

from jurist.core import JuristError, Usage, record

Role = Literal["system", "user", "assistant"]


@record
class Message:
    role: Role
    content: str


@record
class Request:
    """One call to a model. Defaults are the reproducible ones: temperature 0 and a seed.

    `json_schema` asks for an answer that is JSON valid against the schema; `logprobs` with
    `top_logprobs` > 0 asks for each generated token's log-probability and its alternatives.
    `n` > 1 asks for several samples (meaningful with a temperature above 0).
    """

    messages: tuple[Message, ...]
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    seed: int | None = 0
    max_tokens: int | None = Field(default=1024, ge=1)
    stop: tuple[str, ...] | None = None
    json_schema: dict[str, JsonValue] | None = None
    logprobs: bool = False
    top_logprobs: int = Field(default=0, ge=0, le=20)
    n: int = Field(default=1, ge=1, le=16)
    timeout_s: float | None = Field(default=120.0, gt=0)

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("Request.messages must hold at least one message")
        if self.top_logprobs and not self.logprobs:
            raise ValueError("Request.top_logprobs needs logprobs=True")

    @classmethod
    def of(cls, prompt: str, *, system: str | None = None, **options: Any) -> "Request":
        """A request from one user prompt (and an optional system prompt)."""
        messages = [Message("user", prompt)]
        if system is not None:
            messages.insert(0, Message("system", system))
        return cls(tuple(messages), **options)


@record
class TopLogprob:
    token: str
    logprob: float

    @classmethod
    def read(cls, token: Any, logprob: Any) -> "TopLogprob":
        """One alternative as an answer's JSON gives it (see `_read`)."""
        # The hottest constructor of a call's path (every token's alternatives): `_read`
        # inlined, the instance's fields set as its __dict__ in one step.
        instance = _new(cls)
        _set(instance, "__dict__", {"token": _token(token), "logprob": float(logprob)})
        return instance


@record
class TokenLogprob:
    """A generated token, its log-probability, and the most likely alternatives at its place."""

    token: str
    logprob: float
    top: tuple[TopLogprob, ...] = ()

    @classmethod
    def read(cls, token: Any, logprob: Any, top: tuple[TopLogprob, ...]) -> "TokenLogprob":
        """One generated token as an answer's JSON gives it (see `_read`); `top` holds
        alternatives made by `TopLogprob.read` or validated."""
        instance = _new(cls)
        fields = {"token": _token(token), "logprob": float(logprob), "top": tuple(top)}
        _set(instance, "__dict__", fields)
        return instance

    @classmethod
    def read_lazily(cls, token: Any, logprob: Any, alternatives: "Alternatives") -> "TokenLogprob":
        """Like `read`, with the alternatives given as `read_alternatives` checked them: `top`
        is built from them on first use. A reader looks at the alternatives of one or two
        tokens of an answer; the objects of the others would only be built and collected."""
        instance = _new(cls)
        fields = {"token": _token(token), "logprob": float(logprob), "_pairs": alternatives}
        _set(instance, "__dict__", fields)
        return instance

    @property
    def probability(self) -> float:
        return math.exp(self.logprob)


class _Alternatives:
    """`TokenLogprob.top` of a token made by `read_lazily`: built from its pairs when first
    read, then kept in the instance, where it is found before this descriptor (a token made
    otherwise has it there from the start). Equality, hashing, repr, copies and JSON all read
    the field by attribute, so a lazy token is indistinguishable from an eager one."""

    def __get__(self, instance: Any, owner: Any = None) -> tuple[TopLogprob, ...]:
        if instance is None:
            return ()
        state = instance.__dict__
        tokens, logprobs = state.pop("_pairs", ((), ()))
        top = tuple([TopLogprob.read(t, p) for t, p in zip(tokens, logprobs, strict=True)])
        state["top"] = top
        return top


TokenLogprob.top = _Alternatives()  # type: ignore[assignment]


Alternatives = tuple[tuple[str, ...], tuple[float, ...]]


def read_alternatives(raw: Any) -> Alternatives:
    """The tokens and the logprobs of an answer's `top_logprobs` list, checked as
    `TopLogprob.read` checks them. Two tuples of plain values a token: the garbage collector
    stops walking them after its first pass, where a pair each would be ten objects."""
    if not raw:
        return (), ()
    tokens = tuple([_token(t["token"]) for t in raw])
    return tokens, tuple([float(t["logprob"]) for t in raw])


@record
class Choice:
    """One sampled answer: its text, its JSON when a schema was asked, its token logprobs."""

    text: str
    json: JsonValue | None = None
    logprobs: tuple[TokenLogprob, ...] | None = None
    finish_reason: str | None = None


@record
class Response:
    """A model's answer. With `n` > 1 the first sample is the answer and the rest follow in
    `alternatives`; `usage` covers them all."""

    text: str
    json: JsonValue | None = None
    logprobs: tuple[TokenLogprob, ...] | None = None
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    alternatives: tuple[Choice, ...] = ()

    @property
    def cached(self) -> bool:
        return self.usage.cached_calls > 0 and self.usage.cached_calls == self.usage.calls

    @property
    def choices(self) -> tuple[Choice, ...]:
        first = Choice(self.text, self.json, self.logprobs, self.finish_reason)
        return (first, *self.alternatives)

    @classmethod
    def from_choices(cls, choices: list[Choice], usage: Usage) -> "Response":
        if not choices:
            raise ValueError("Response.from_choices needs at least one choice")
        first = choices[0]
        return cls(
            first.text, first.json, first.logprobs, first.finish_reason, usage, tuple(choices[1:])
        )


@record
class Capabilities:
    """What a model can do, so judges choose their method (probabilities need logprobs).

    `local`: the model runs in this process (the embedded provider), one generation at a
    time, so a judge may choose calls that suit it (claims checked one call each) rather
    than the fewest calls a hosted provider wants.
    """

    logprobs: bool = False
    max_top_logprobs: int = 0
    json_schema: bool = False
    json_mode: bool = False
    seed: bool = False
    multiple_samples: bool = False
    local: bool = False


class ErrorKind(StrEnum):
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    CONNECTION = "connection"
    CLIENT_ERROR = "client_error"
    UNPARSEABLE = "unparseable"
    REFUSED = "refused"
    UNAVAILABLE = "unavailable"
    BUDGET = "budget"


_RETRYABLE = frozenset(
    {ErrorKind.TIMEOUT, ErrorKind.RATE_LIMITED, ErrorKind.SERVER_ERROR, ErrorKind.CONNECTION}
)


class ModelError(JuristError):
    """The one exception the model layer raises: what went wrong (`kind`) and why (`cause`).

    `retryable` defaults from the kind: timeouts, rate limits, server and connection errors are
    worth another attempt; a rejected request, an unreadable answer or a refusal are not.
    `usage` is what the calls made before the failure cost, when there were any.
    """

    def __init__(
        self,
        kind: ErrorKind | str,
        cause: str,
        *,
        model: str | None = None,
        status: int | None = None,
        retry_after_s: float | None = None,
        retryable: bool | None = None,
        attempts: int = 1,
        usage: Usage | None = None,
    ) -> None:
        self.kind = ErrorKind(kind)
        self.cause = cause
        self.model = model
        self.status = status
        self.retry_after_s = retry_after_s
        self.retryable = self.kind in _RETRYABLE if retryable is None else retryable
        self.attempts = attempts
        # What the provider billed before the failure (a re-asked answer still unreadable
        # was two calls): a failed judgment still counts its tokens and cost.
        self.usage = usage
        where = f" from {model}" if model else ""
        super().__init__(f"{self.kind.value}{where}: {cause}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_error, (self.kind, self.cause, self.__dict__))


def _rebuild_error(kind: ErrorKind, cause: str, state: dict[str, Any]) -> ModelError:
    error = ModelError(kind, cause)
    error.__dict__.update(state)
    return error


@runtime_checkable
class Model(Protocol):
    """Anything that completes a request. Providers implement it, and so does middleware,
    which wraps a model and is a model itself."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    async def complete(self, request: Request) -> Response: ...


R = TypeVar("R")


def _read(cls: type[R], **values: object) -> R:
    """An instance of the record class `cls` holding `values`, which the caller made of its
    fields' types already, built without pydantic's validation. An answer with token
    log-probabilities carries hundreds of them (every token, each with up to 20
    alternatives): validating each cost ~5 us, about a millisecond of client CPU a call.
    The instance is the one validation would build (equal, hashed, shown and serialised
    alike)."""
    instance = _new(cls)
    _set(instance, "__dict__", values)
    return instance


_new = object.__new__
_set = object.__setattr__


def _token(value: object) -> str:
    if type(value) is not str and not isinstance(value, str):
        raise TypeError(f"a token must be a string, got {type(value).__name__}")
    return value
