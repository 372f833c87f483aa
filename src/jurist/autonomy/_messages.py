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
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Self

from pydantic import (
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from jurist.autonomy._payloads import (
    HANDLING_ROLE,
    PAYLOADS,
    Constraints,
    Frozen,
    MessageKind,
    MessageMetadata,
    MessageRequest,
    MessageType,
    Payload,
    ReplyPayload,
    RequestPayload,
    Role,
    Stage,
    payload_model,
)
from jurist.core import JuristError

PROTOCOL_VERSION = "1.0"


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
    for model in PAYLOADS.values():
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


class JudgeMessage(Frozen):
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
