"""The vocabulary of the autonomous judges' protocol: its roles, stages and message types,
and the payload each (kind, type) pair carries, every one immutable and strict about its
fields (see `_messages.py` for the envelope around them)."""

import math
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Self

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    model_validator,
)

from jurist.core import NonBlank, Usage
from jurist.rubrics import Criterion


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


Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


class Frozen(BaseModel):
    # Strict: "3" is not a priority and 1 is not True. Enums and timestamps relax this per
    # field, since on the wire they can only be strings.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class MessageMetadata(Frozen):
    sender_id: NonBlank
    sender_role: Role = Field(strict=False)
    timestamp: AwareDatetime = Field(default_factory=lambda: datetime.now(UTC), strict=False)
    correlation_id: NonBlank = Field(default_factory=lambda: uuid.uuid4().hex)
    pipeline_stage: Stage = Field(strict=False)


class MessageRequest(Frozen):
    type: MessageType = Field(strict=False)
    priority: int = Field(default=3, ge=1, le=5)
    timeout_seconds: float = Field(default=30.0, gt=0.0)


class Constraints(Frozen):
    max_iterations: int = Field(default=10, ge=1)
    max_cost_usd: float = Field(default=1.0, ge=0.0)
    require_consensus: bool = False


# Requests: what a role is asked.


def _distinct_names(criteria: list[Criterion]) -> list[Criterion]:
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
Criteria = Annotated[list[Criterion], AfterValidator(_distinct_names)]


def _failed_are_scored(failed: Sequence[str], per_criterion: Mapping[str, float]) -> None:
    if not per_criterion:
        return
    for index, name in enumerate(failed):
        if name not in per_criterion:
            raise ValueError(
                f"failed_criteria[{index}] {name!r} has no score in per_criterion "
                f"(it holds {sorted(per_criterion)})"
            )


class EvaluateRequest(Frozen):
    """Score `response`, written for `prompt`, against each criterion."""

    prompt: NonBlank
    response: str
    criteria: Criteria = Field(min_length=1)
    context: dict[str, JsonValue] = Field(default_factory=dict)


class EvaluationSummary(Frozen):
    """What an analyst needs of an evaluation (an `Evaluation` without its usage)."""

    score: Fraction
    failed_criteria: list[str] = Field(default_factory=list)
    per_criterion: dict[str, Fraction] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        _failed_are_scored(self.failed_criteria, self.per_criterion)
        return self


class AnalyzeRequest(Frozen):
    """Say why `prompt` got `evaluation`, given some of the responses it produced."""

    prompt: NonBlank
    responses: list[str] = Field(min_length=1)
    evaluation: EvaluationSummary
    hypothesis_space: list[NonBlank] = Field(default_factory=list)
    # What the criteria ask, by name: a failed criterion's name alone rarely says why.
    criteria: Criteria = Field(default_factory=list)


class RewriteConstraints(Frozen):
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


class ChallengeRequest(Frozen):
    """Find edge cases, ambiguities and ways to game `prompt` and its criteria."""

    prompt: NonBlank
    criteria: Criteria = Field(default_factory=list)
    cases: list[str] = Field(default_factory=list)


class ReviewRequest(Frozen):
    """Where a cycle stands, for the meta judge to decide whether it goes on."""

    iteration: int = Field(ge=1)
    scores: list[Fraction] = Field(default_factory=list)  # oldest first
    proposal: str = ""  # the prompt proposed this iteration, if any
    findings: int = Field(default=0, ge=0)  # how many findings the adversarial judge made
    cost_usd: float = Field(default=0.0, ge=0.0)  # spent so far in the cycle
    stages: dict[str, JsonValue] = Field(default_factory=dict)


# Replies: what a role answers. Each carries the usage of the calls that made it.


class Evaluation(Frozen):
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


class Analysis(Frozen):
    failure_type: NonBlank
    root_cause: NonBlank
    hypotheses: list[NonBlank] = Field(default_factory=list)
    suggestions: list[NonBlank] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)


class RewriteRequest(Frozen):
    """Improve `current_prompt` following `analysis`, within `constraints`."""

    current_prompt: NonBlank
    analysis: Analysis
    constraints: RewriteConstraints = Field(default_factory=RewriteConstraints)
    techniques_to_try: list[NonBlank] = Field(default_factory=list)
    # Proposals this cycle already tried and rejected, so the rewriter tries something else.
    rejected: list[NonBlank] = Field(default_factory=list)
    # What the answers to the new prompt must do.
    criteria: Criteria = Field(default_factory=list)


class Rewrite(Frozen):
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


class FindingSeverity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Finding(Frozen):
    kind: FindingKind = Field(strict=False)
    description: NonBlank
    severity: FindingSeverity = Field(strict=False)


class Challenge(Frozen):
    findings: list[Finding] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)


class ReviewDecision(StrEnum):
    CONTINUE = "continue"
    HALT = "halt"
    ESCALATE = "escalate"  # a human decides


class Review(Frozen):
    decision: ReviewDecision = Field(strict=False)
    reason: NonBlank
    usage: Usage = Field(default_factory=Usage)


RequestPayload = (
    EvaluateRequest | AnalyzeRequest | RewriteRequest | ChallengeRequest | ReviewRequest
)
ReplyPayload = Evaluation | Analysis | Rewrite | Challenge | Review
Payload = RequestPayload | ReplyPayload

PAYLOADS: Mapping[tuple[MessageKind, MessageType], type[RequestPayload | ReplyPayload]] = {
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
    return PAYLOADS[(MessageKind(kind), MessageType(message_type))]
