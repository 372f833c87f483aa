"""The messages the autonomous judges exchange: a versioned, validated protocol.

Every message is an envelope (version, kind, metadata, request, constraints) around a
payload. A *request* goes to a role and a *reply* comes back from it; `request.type` says
what is asked (evaluate, analyze, rewrite, challenge, review), and the pair (kind, type)
fixes the one payload model that may travel in it: an `evaluate` request carries an
`EvaluateRequest`, its reply an `Evaluation`. A reply keeps the request's correlation id,
so a cycle's messages can be followed from first request to last reply.

Messages are immutable and reject unknown fields. `parse_message` reads one from JSON or a
mapping and reports the first problem as a `MessageError` naming its field by a dotted
path (`payload.criteria[0].weight`).
"""

import json
import math
import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from jurist.core import JuristError, Usage

PROTOCOL_VERSION = "1.0"


class Role(StrEnum):
    EVALUATOR = "evaluator"
    ANALYST = "analyst"
    REWRITER = "rewriter"
    ADVERSARIAL = "adversarial"
    META = "meta"


class Stage(StrEnum):
    """Where in an improvement cycle a message belongs."""

    EVALUATION = "evaluation"
    ANALYSIS = "analysis"
    REWRITING = "rewriting"
    VERIFICATION = "verification"


class MessageType(StrEnum):
    EVALUATE = "evaluate"
    ANALYZE = "analyze"
    REWRITE = "rewrite"
    CHALLENGE = "challenge"
    REVIEW = "review"


class MessageKind(StrEnum):
    """A request goes to a role; a reply comes back from it."""

    REQUEST = "request"
    REPLY = "reply"


#: The role that answers each type of request.
HANDLING_ROLE: Mapping[MessageType, Role] = {
    MessageType.EVALUATE: Role.EVALUATOR,
    MessageType.ANALYZE: Role.ANALYST,
    MessageType.REWRITE: Role.REWRITER,
    MessageType.CHALLENGE: Role.ADVERSARIAL,
    MessageType.REVIEW: Role.META,
}


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


NonBlank = Annotated[str, AfterValidator(_non_blank)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


class _Frozen(BaseModel):
    # Strict: "3" is not a priority and 1 is not True. Enums and timestamps relax this per
    # field, since on the wire they can only be strings.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class MessageMetadata(_Frozen):
    sender_id: NonBlank
    sender_role: Role = Field(strict=False)
    timestamp: AwareDatetime = Field(default_factory=lambda: datetime.now(UTC), strict=False)
    correlation_id: NonBlank = Field(default_factory=lambda: uuid.uuid4().hex)
    pipeline_stage: Stage = Field(strict=False)


class MessageRequest(_Frozen):
    type: MessageType = Field(strict=False)
    priority: int = Field(default=3, ge=1, le=5)
    timeout_seconds: float = Field(default=30.0, gt=0.0)


class Constraints(_Frozen):
    max_iterations: int = Field(default=10, ge=1)
    max_cost_usd: float = Field(default=1.0, ge=0.0)
    require_consensus: bool = False


# Requests: what a role is asked.


class CriterionSpec(_Frozen):
    name: NonBlank
    description: NonBlank
    weight: float = Field(default=1.0, gt=0.0)


def _distinct_names(criteria: list[CriterionSpec]) -> list[CriterionSpec]:
    seen: dict[str, int] = {}
    for index, criterion in enumerate(criteria):
        if criterion.name in seen:
            raise ValueError(
                f"criteria[{index}].name {criterion.name!r} repeats "
                f"criteria[{seen[criterion.name]}]"
            )
        seen[criterion.name] = index
    return criteria


# A list of criteria whose names are distinct (the error names the repeat and the first).
Criteria = Annotated[list[CriterionSpec], AfterValidator(_distinct_names)]


def _failed_are_scored(failed: Sequence[str], per_criterion: Mapping[str, float]) -> None:
    if not per_criterion:
        return
    for index, name in enumerate(failed):
        if name not in per_criterion:
            raise ValueError(
                f"failed_criteria[{index}] {name!r} has no score in per_criterion "
                f"(it holds {sorted(per_criterion)})"
            )


class EvaluateRequest(_Frozen):
    """Score `response`, written for `prompt`, against each criterion."""

    prompt: NonBlank
    response: str
    criteria: Criteria = Field(min_length=1)
    context: dict[str, JsonValue] = Field(default_factory=dict)


class EvaluationSummary(_Frozen):
    """What an analyst needs of an evaluation (an `Evaluation` without its usage)."""

    score: Fraction
    failed_criteria: list[str] = Field(default_factory=list)
    per_criterion: dict[str, Fraction] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        _failed_are_scored(self.failed_criteria, self.per_criterion)
        return self


class AnalyzeRequest(_Frozen):
    """Say why `prompt` got `evaluation`, given some of the responses it produced."""

    prompt: NonBlank
    responses: list[str] = Field(min_length=1)
    evaluation: EvaluationSummary
    hypothesis_space: list[NonBlank] = Field(default_factory=list)
    # What the criteria ask, by name: a failed criterion's name alone rarely says why.
    criteria: Criteria = Field(default_factory=list)


class RewriteConstraints(_Frozen):
    """What a rewrite must respect. `max_length_change` bounds the new prompt's length to
    between old / max_length_change and old * max_length_change characters."""

    preserve_intent: bool = True
    max_length_change: float = Field(default=1.5, gt=1.0)
    # 1.5 times a one-line prompt leaves no room for one more instruction: any prompt may
    # grow by this many characters whatever the ratio says.
    length_slack_chars: int = Field(default=150, ge=0)

    def length_bounds(self, current: int) -> tuple[int, int]:
        """The shortest and longest new prompt allowed, in characters, for a current
        prompt of `current` characters."""
        longest = max(
            math.floor(current * self.max_length_change), current + self.length_slack_chars
        )
        return math.ceil(current / self.max_length_change), longest


class ChallengeRequest(_Frozen):
    """Find edge cases, ambiguities and ways to game `prompt` and its criteria."""

    prompt: NonBlank
    criteria: Criteria = Field(default_factory=list)
    cases: list[str] = Field(default_factory=list)


class ReviewRequest(_Frozen):
    """Where a cycle stands, for the meta judge to decide whether it goes on."""

    iteration: int = Field(ge=1)
    scores: list[Fraction] = Field(default_factory=list)  # oldest first
    proposal: str = ""  # the prompt proposed this iteration, if any
    findings: int = Field(default=0, ge=0)  # how many findings the adversarial judge made
    cost_usd: float = Field(default=0.0, ge=0.0)  # spent so far in the cycle
    stages: dict[str, JsonValue] = Field(default_factory=dict)


# Replies: what a role answers. Each carries the usage of the calls that made it.


class Evaluation(_Frozen):
    score: Fraction
    per_criterion: dict[str, Fraction]
    failed_criteria: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        _failed_are_scored(self.failed_criteria, self.per_criterion)
        return self

    def summary(self) -> EvaluationSummary:
        return EvaluationSummary(
            score=self.score,
            failed_criteria=list(self.failed_criteria),
            per_criterion=dict(self.per_criterion),
        )


class Analysis(_Frozen):
    failure_type: NonBlank
    root_cause: NonBlank
    hypotheses: list[NonBlank] = Field(default_factory=list)
    suggestions: list[NonBlank] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)


class RewriteRequest(_Frozen):
    """Improve `current_prompt` following `analysis`, within `constraints`."""

    current_prompt: NonBlank
    analysis: Analysis
    constraints: RewriteConstraints = Field(default_factory=RewriteConstraints)
    techniques_to_try: list[NonBlank] = Field(default_factory=list)
    # Proposals this cycle already tried and rejected, so the rewriter tries something else.
    rejected: list[NonBlank] = Field(default_factory=list)
    # What the answers to the new prompt must do.
    criteria: Criteria = Field(default_factory=list)


class Rewrite(_Frozen):
    improved_prompt: NonBlank
    techniques_used: list[NonBlank] = Field(default_factory=list)
    rationale: str = ""
    # The rewriter's own claim; nothing checks it.
    intent_preserved: bool | None = None
    usage: Usage = Field(default_factory=Usage)


class FindingKind(StrEnum):
    EDGE_CASE = "edge_case"
    AMBIGUITY = "ambiguity"
    GAMING = "gaming"


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Finding(_Frozen):
    kind: FindingKind = Field(strict=False)
    description: NonBlank
    severity: Severity = Field(strict=False)


class Challenge(_Frozen):
    findings: list[Finding] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)


class ReviewDecision(StrEnum):
    CONTINUE = "continue"
    HALT = "halt"
    ESCALATE = "escalate"  # a human decides


class Review(_Frozen):
    decision: ReviewDecision = Field(strict=False)
    reason: NonBlank
    usage: Usage = Field(default_factory=Usage)


RequestPayload = (
    EvaluateRequest | AnalyzeRequest | RewriteRequest | ChallengeRequest | ReviewRequest
)
ReplyPayload = Evaluation | Analysis | Rewrite | Challenge | Review
Payload = RequestPayload | ReplyPayload

_PAYLOADS: Mapping[tuple[MessageKind, MessageType], type[RequestPayload | ReplyPayload]] = {
    (MessageKind.REQUEST, MessageType.EVALUATE): EvaluateRequest,
    (MessageKind.REQUEST, MessageType.ANALYZE): AnalyzeRequest,
    (MessageKind.REQUEST, MessageType.REWRITE): RewriteRequest,
    (MessageKind.REQUEST, MessageType.CHALLENGE): ChallengeRequest,
    (MessageKind.REQUEST, MessageType.REVIEW): ReviewRequest,
    (MessageKind.REPLY, MessageType.EVALUATE): Evaluation,
    (MessageKind.REPLY, MessageType.ANALYZE): Analysis,
    (MessageKind.REPLY, MessageType.REWRITE): Rewrite,
    (MessageKind.REPLY, MessageType.CHALLENGE): Challenge,
    (MessageKind.REPLY, MessageType.REVIEW): Review,
}


def payload_model(
    kind: MessageKind, message_type: MessageType
) -> type[RequestPayload | ReplyPayload]:
    """The payload model of a (kind, type) pair: `payload_model(REPLY, EVALUATE)` is
    `Evaluation`."""
    return _PAYLOADS[(MessageKind(kind), MessageType(message_type))]


_MISMATCH = "message_mismatch"


def _error(title: str, loc: tuple[str | int, ...], problem: str, value: Any) -> ValidationError:
    # "{problem}" is the template and the problem its value, so braces in it stay as they are.
    error = PydanticCustomError(_MISMATCH, "{problem}", {"problem": problem})
    return ValidationError.from_exception_data(
        title, [InitErrorDetails(type=error, loc=loc, input=value)]
    )


def _relocated(exc: ValidationError, prefix: str, title: str) -> ValidationError:
    """`exc` with every error's location under `prefix`, its type and message kept."""
    details = [
        InitErrorDetails(
            type=PydanticCustomError(error["type"], "{msg}", {"msg": error["msg"]}),
            loc=(prefix, *error["loc"]),
            input=error["input"],
        )
        for error in exc.errors()
    ]
    return ValidationError.from_exception_data(title, details)


def _declared(data: Mapping[str, Any]) -> type[RequestPayload | ReplyPayload] | None:
    """The payload model the raw envelope asks for, or None when its kind or type is not
    readable (their own errors then say so)."""
    request = data.get("request")
    raw_type: object = request.get("type") if isinstance(request, Mapping) else None
    if isinstance(request, MessageRequest):
        raw_type = request.type
    raw_kind: object = data.get("kind")
    if not isinstance(raw_kind, str) or not isinstance(raw_type, str):
        return None
    try:
        return payload_model(MessageKind(raw_kind), MessageType(raw_type))
    except ValueError:
        return None


def _fitting_model(
    payload: Mapping[str, Any], declared: type[RequestPayload | ReplyPayload]
) -> type[RequestPayload | ReplyPayload] | None:
    """Another payload model `payload` is valid for, when it holds fields `declared` does
    not have: then the message's kind or type, not the payload, is what is wrong, and the
    error should say so. A payload that is merely incomplete gets its own errors."""
    if set(payload) <= set(declared.model_fields):
        return None
    for model in _PAYLOADS.values():
        if model is declared:
            continue
        try:
            model.model_validate(payload)
        except ValidationError:
            continue
        return model
    return None


def _what(data: Mapping[str, Any]) -> str:
    request = data["request"]
    kind = MessageKind(data["kind"]).value
    raw = request.type if isinstance(request, MessageRequest) else request["type"]
    type_ = MessageType(raw).value
    return f"{_article(type_)} {type_} {kind}"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


class JudgeMessage(_Frozen):
    """One message of the protocol. The payload's model follows from `kind` and
    `request.type` (see `payload_model`); a reply comes from the role that handles its type
    (see `HANDLING_ROLE`)."""

    version: Literal["1.0"]
    kind: MessageKind = Field(strict=False)
    metadata: MessageMetadata
    request: MessageRequest
    payload: Payload
    constraints: Constraints = Field(default_factory=Constraints)

    @model_validator(mode="before")
    @classmethod
    def _typed_payload(cls, data: Any) -> Any:
        # Validating the payload against its one model (rather than trying the union) gives
        # errors located inside it, e.g. payload.criteria[0].weight.
        if not isinstance(data, Mapping) or not isinstance(data.get("payload"), Mapping):
            return data
        model = _declared(data)
        if model is None:
            return data
        try:
            typed = model.model_validate(data["payload"])
        except ValidationError as exc:
            other = _fitting_model(data["payload"], model)
            if other is not None:
                raise _error(
                    cls.__name__,
                    ("payload",),
                    f"is {_article(other.__name__)} {other.__name__}, but {_what(data)} "
                    f"carries {_article(model.__name__)} {model.__name__}",
                    data["payload"],
                ) from None
            raise _relocated(exc, "payload", cls.__name__) from None
        return {**data, "payload": typed}

    @model_validator(mode="after")
    def _payload_fits(self) -> Self:
        expected = payload_model(self.kind, self.request.type)
        if type(self.payload) is not expected:
            what = f"{self.request.type.value} {self.kind.value}"
            raise _error(
                type(self).__name__,
                ("payload",),
                f"is {_article(type(self.payload).__name__)} {type(self.payload).__name__}, "
                f"but the payload of {_article(what)} {what} is {_article(expected.__name__)} "
                f"{expected.__name__}",
                self.payload,
            )
        handler = HANDLING_ROLE[self.request.type]
        if self.kind is MessageKind.REPLY and self.metadata.sender_role is not handler:
            raise _error(
                type(self).__name__,
                ("metadata", "sender_role"),
                f"is {self.metadata.sender_role.value!r}, but the reply to "
                f"{_article(self.request.type.value)} {self.request.type.value} request "
                f"comes from the {handler.value} role",
                self.metadata.sender_role.value,
            )
        return self

    @property
    def correlation_id(self) -> str:
        return self.metadata.correlation_id

    def to_json(self, indent: int | None = None) -> str:
        return self.model_dump_json(indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> "JudgeMessage":
        return parse_message(text)


class MessageError(JuristError, ValueError):
    """A malformed message: `field` is the dotted path of what is wrong ("message" for the
    whole), `problem` what is wrong with it."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def error_path(loc: Sequence[str | int]) -> str:
    """A pydantic error location as a path: ("payload", "criteria", 0, "weight") ->
    "payload.criteria[0].weight"; a key that is not a name is quoted: ["a key"]."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _IDENTIFIER.match(part):
            path += f".{part}" if path else part
        else:
            path += f"[{json.dumps(part)}]"
    return path or "message"


def first_problem(exc: ValidationError) -> tuple[str, str]:
    """The path and the problem of the first error of `exc`."""
    error = exc.errors()[0]
    problem = error["msg"].removeprefix("Value error, ")
    value = error["input"]
    shown = error["type"] not in ("missing", _MISMATCH)
    if shown and isinstance(value, str | int | float | bool | None):
        problem += f" (got {value!r})"
    return error_path(error["loc"]), problem


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str | bytes) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise MessageError(
            "message", f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise MessageError("message", f"is not valid JSON: {exc}") from exc


def _validated(data: Mapping[str, Any]) -> JudgeMessage:
    try:
        return JudgeMessage.model_validate(data)
    except ValidationError as exc:
        field, problem = first_problem(exc)
        raise MessageError(field, problem) from exc


def parse_message(data: Mapping[str, Any] | str | bytes) -> JudgeMessage:
    """A message from JSON text or a mapping; any malformation is a `MessageError` naming
    the first field at fault."""
    value = _loads(data) if isinstance(data, str | bytes) else data
    if not isinstance(value, Mapping):
        raise MessageError("message", f"is a JSON {type(value).__name__}, not an object")
    return _validated(value)


def request_message(
    sender_id: str,
    role: Role,
    stage: Stage,
    type: MessageType,
    payload: RequestPayload,
    *,
    constraints: Constraints | None = None,
    correlation_id: str | None = None,
    priority: int = 3,
    timeout_seconds: float = 30.0,
) -> JudgeMessage:
    """A request from `sender_id` (acting as `role`) to the role that handles `type`. A new
    correlation id unless one is given (to tie the request to a cycle's earlier messages)."""
    metadata: dict[str, Any] = {
        "sender_id": sender_id,
        "sender_role": role,
        "pipeline_stage": stage,
    }
    if correlation_id is not None:
        metadata["correlation_id"] = correlation_id
    return _validated(
        {
            "version": PROTOCOL_VERSION,
            "kind": MessageKind.REQUEST,
            "metadata": metadata,
            "request": {"type": type, "priority": priority, "timeout_seconds": timeout_seconds},
            "payload": payload,
            "constraints": constraints or Constraints(),
        }
    )


def reply_to(
    message: JudgeMessage, sender_id: str, role: Role, payload: ReplyPayload
) -> JudgeMessage:
    """The reply to `message`: same correlation id, stage, request and constraints, sent now
    by `sender_id` acting as `role`."""
    if message.kind is not MessageKind.REQUEST:
        raise MessageError("kind", f"is {message.kind.value!r}: only a request has a reply")
    metadata = {
        "sender_id": sender_id,
        "sender_role": role,
        "correlation_id": message.metadata.correlation_id,
        "pipeline_stage": message.metadata.pipeline_stage,
    }
    return _validated(
        {
            "version": PROTOCOL_VERSION,
            "kind": MessageKind.REPLY,
            "metadata": metadata,
            "request": message.request,
            "payload": payload,
            "constraints": message.constraints,
        }
    )
