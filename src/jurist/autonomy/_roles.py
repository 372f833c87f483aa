"""The five roles of the autonomous judge system: each turns a request message into a reply.

A role is configured with a model (a `Model`, a spec string, or None for the configured
default, resolved on first use) and its own prompt template
(`jurist/prompts/templates/autonomy_<role>.j2`). `await role.handle(message)` checks the
message is a request of the type the role handles (else `MessageError`), asks the model for
a JSON answer under a schema, checks the answer, and returns the reply message with the
calls' usage in its payload. Whatever keeps a role from answering is a `RoleFailure` whose
`cause` says why: the model failed, its answer could not be read, the budget refused the
call, or (for the rewriter) the answer broke the request's constraints.

Prompts and answers are kept short: the default model is a small local one with an 8k
context, so long inputs are cut and every answer field and list is bounded.
"""

import asyncio
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, JsonValue, ValidationError

from jurist.autonomy._messages import (
    JudgeMessage,
    MessageError,
    error_path,
    reply_to,
)
from jurist.autonomy._payloads import (
    HANDLING_ROLE,
    Analysis,
    AnalyzeRequest,
    Challenge,
    ChallengeRequest,
    EvaluateRequest,
    Evaluation,
    MessageKind,
    MessageType,
    ReplyPayload,
    Review,
    ReviewRequest,
    Rewrite,
    RewriteConstraints,
    RewriteRequest,
    Role,
)
from jurist.core import (
    Cause,
    Context,
    Judgment,
    JuristError,
    Status,
    Usage,
    normalize,
    run_judge,
    to_json_text,
)
from jurist.judges import (
    CallPolicy,
    CriterionJudge,
    CriterionReport,
    Failure,
    ModelRef,
    ask,
    json_object,
    shorten,
)
from jurist.llm import ErrorKind, Model, ModelError
from jurist.prompts import Prompt, PromptError, PromptTemplate, answer_schema

T = TypeVar("T", bound=BaseModel)

# Bounds on what goes into a prompt and what comes out, for a small model's 8k context.
# The answers' own bounds are in each role's schema file beside its template
# (autonomy_<role>.schema.json); the counts a prompt states are the same as its schema's.
EXCERPT_CHARS = 1200  # each sample response or case shown to a role
MAX_SAMPLES = 3  # sample responses or cases shown
MAX_ITEMS = 3  # hypotheses, suggestions, techniques
MAX_FINDINGS = 5
FAILING_P_YES = 0.5  # a criterion with P(yes) below this has failed


class RoleFailure(JuristError):
    """A role could not answer, and its `cause` why. `usage` is what the calls cost before
    it gave up (None when no call finished), so the loop can still account for it."""

    def __init__(
        self,
        role: Role,
        cause: Cause | str,
        detail: str,
        *,
        usage: Usage | None = None,
    ) -> None:
        self.role = Role(role)
        self.cause = Cause(cause)
        self.detail = detail
        self.usage = usage
        super().__init__(f"the {self.role.value} failed ({self.cause.value}): {detail}")


class ConstraintViolation(RoleFailure):
    """An answer that breaks a constraint of the request: `field` names the constraint
    (e.g. "payload.constraints.max_length_change")."""

    def __init__(self, role: Role, field: str, detail: str, *, usage: Usage | None = None) -> None:
        super().__init__(role, Cause.CONSTRAINT, detail, usage=usage)
        self.field = field


_MODEL_LAYER = frozenset(Cause(kind.value) for kind in ErrorKind)


def _cause(kind: ErrorKind | Cause | None) -> Cause:
    """Why a role gives up on a failed call: the budget (the cycle halts on it) and an
    unreadable answer as themselves; any other failure of the model layer is a MODEL_ERROR
    (the role gives up on each alike; the ModelError it is raised from keeps the kind); a
    judge's own cause (a prompt, an input) as itself."""
    cause = Cause.of(kind.value) if kind is not None else None
    if cause is Cause.BUDGET or cause is Cause.UNPARSEABLE:
        return cause
    if cause is None or cause in _MODEL_LAYER:
        return Cause.MODEL_ERROR
    return cause


def _model_failure(role: Role, exc: ModelError) -> RoleFailure:
    return RoleFailure(role, _cause(exc.kind), f"the model failed ({exc.kind.value}): {exc.cause}")


def _failure(role: Role, got: Judgment) -> tuple[Exception, ModelError | None]:
    """The exception for an ERROR from `ask`, and the model error it is raised from: a
    template that does not render stays a PromptError (the role is misconfigured, not
    failing); an answer that holds no JSON object (`ask` records the answer it could not
    read) is unparseable with what the call cost; anything else is the model's failure."""
    failure = Failure.of(got)
    if failure.cause is Cause.PROMPT:
        return PromptError(failure.error), None
    if failure.cause is Cause.UNPARSEABLE and "answer" in got.metadata:
        detail = f"the answer holds no JSON object: {failure.error}"
        return RoleFailure(role, Cause.UNPARSEABLE, detail, usage=got.usage), None
    failed = RoleFailure(role, _cause(failure.cause), got.reasoning, usage=got.usage)
    return failed, failure.model_error()


def _excerpts(texts: Sequence[str]) -> list[str]:
    return [shorten(text, EXCERPT_CHARS) for text in texts[:MAX_SAMPLES]]


class JudgeRole(ABC):
    """What the five roles share: a lazily resolved model, a template, the system prompt,
    the request checks and the one structured call."""

    role: ClassVar[Role]
    default_template: ClassVar[str]
    default_max_tokens: ClassVar[int]

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        sender_id: str | None = None,
        template: PromptTemplate | str | Path | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        policy: CallPolicy | None = None,
    ) -> None:
        if sender_id is not None and not sender_id.strip():
            raise ValueError("sender_id must not be blank")
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, not {max_tokens}")
        if temperature is not None and not 0.0 <= temperature <= 2.0:
            raise ValueError(f"temperature must lie in 0..2, not {temperature}")
        self.model = ModelRef(model)
        self.sender_id = sender_id or self.role.value
        self.template = PromptTemplate.of(template or self.default_template)
        self.system = PromptTemplate.named("system")
        self.max_tokens = max_tokens or self.default_max_tokens
        self._given_max_tokens = max_tokens
        self._policy = (policy or CallPolicy.from_settings()).but(max_tokens=self.max_tokens)
        self.temperature = temperature

    @property
    def temperature(self) -> float | None:
        """The role's sampling temperature; None: the call policy's own."""
        return self._temperature

    @temperature.setter
    def temperature(self, value: float | None) -> None:
        # Changed between calls (the loop samples the rewriter once a proposal is rejected),
        # so the policy is remade here rather than read from the settings at call time.
        self._temperature = value
        self.policy = self._policy.but(temperature=value)

    @property
    def handles(self) -> MessageType:
        """The type of request this role answers."""
        return next(kind for kind, role in HANDLING_ROLE.items() if role is self.role)

    @abstractmethod
    async def handle(self, message: JudgeMessage) -> JudgeMessage:
        """The reply to `message`: a request of the type this role handles."""

    def _accept(self, message: JudgeMessage, model: type[T]) -> T:
        if message.kind is not MessageKind.REQUEST:
            raise MessageError(
                "kind", f"is {message.kind.value!r}: the {self.role.value} answers requests"
            )
        if message.request.type is not self.handles:
            raise MessageError(
                "request.type",
                f"is {message.request.type.value!r}: the {self.role.value} answers "
                f"{self.handles.value!r} requests",
            )
        payload = message.payload
        if not isinstance(payload, model):  # a validated message cannot get here
            raise MessageError("payload", f"is not {model.__name__}")
        return payload

    def _reply(self, message: JudgeMessage, payload: ReplyPayload) -> JudgeMessage:
        return reply_to(message, self.sender_id, self.role, payload)

    async def _ask(
        self,
        message: JudgeMessage,
        variables: Mapping[str, Any],
        schema: dict[str, JsonValue],
        *,
        max_tokens: int | None = None,
    ) -> tuple[Mapping[str, Any], Usage]:
        """The model's JSON answer to the rendered template, and what the call cost; the
        call has the message's time limit."""
        got = await ask(
            self.model,
            Prompt(self.template, schema).reading(json_object),
            policy=self.policy.but(
                max_tokens=max_tokens, timeout_s=message.request.timeout_seconds
            ),
            judge=self.sender_id,
            variables=variables,
            system=self.system,
        )
        if isinstance(got, Judgment):
            failed, error = _failure(self.role, got)
            raise failed from error
        return got.value, got.usage

    def _read(self, model: type[T], answer: Mapping[str, Any], usage: Usage) -> T:
        """The reply payload from the model's answer; an answer that does not fit is
        unparseable, named by the field at fault."""
        try:
            return model.model_validate({**answer, "usage": usage})
        except ValidationError as exc:
            error = exc.errors()[0]
            raise RoleFailure(
                self.role,
                Cause.UNPARSEABLE,
                f"the answer's {error_path(error['loc'])}: {error['msg']}",
                usage=usage,
            ) from exc


class Evaluator(JudgeRole):
    """Scores a response against each criterion: the criterion's value is P(yes) from a
    `CriterionJudge` (token probabilities when the model has them, else its stated answer
    and confidence); the score is their weighted mean; a criterion fails below P(yes) 0.5.
    The criteria are judged concurrently. A criterion that could not be judged fails the
    whole evaluation (an unknown is not a low score)."""

    role = Role.EVALUATOR
    default_template = "autonomy_evaluator"
    default_max_tokens = 120  # CriterionJudge bounds its own answer; this goes unused

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        sender_id: str | None = None,
        template: PromptTemplate | str | Path | None = None,
        temperature: float | None = None,
        reason_first: bool = False,
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(
            model, sender_id=sender_id, template=template, temperature=temperature, policy=policy
        )
        self.reason_first = reason_first

    async def handle(self, message: JudgeMessage) -> JudgeMessage:
        request = self._accept(message, EvaluateRequest)
        try:
            model = self.model.get()
        except ModelError as exc:
            raise _model_failure(self.role, exc) from exc
        # The criterion judges ask with the role's policy (its temperature, when set) under
        # the message's time limit.
        policy = self.policy.but(timeout_s=message.request.timeout_seconds)
        ctx = Context(request.prompt, output=request.response, metadata=request.context)
        judges = [
            CriterionJudge(
                criterion.description,
                model,
                reason_first=self.reason_first,
                template=self.template,
                name=f"{self.sender_id}:{criterion.name}",
                policy=policy,
            )
            for criterion in request.criteria
        ]
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(run_judge(judge, ctx)) for judge in judges]
        results = [task.result() for task in tasks]
        usage = Usage.total(result.usage for result in results) or Usage()
        per_criterion: dict[str, float] = {}
        for criterion, result in zip(request.criteria, results, strict=True):
            per_criterion[criterion.name] = self._p_yes(criterion.name, result, usage)
        weights = sum(criterion.weight for criterion in request.criteria)
        score = (
            sum(criterion.weight * per_criterion[criterion.name] for criterion in request.criteria)
            / weights
        )
        evaluation = Evaluation(
            score=min(max(score, 0.0), 1.0),  # rounding may step a hair outside
            per_criterion=per_criterion,
            failed_criteria=[
                name for name, p_yes in per_criterion.items() if p_yes < FAILING_P_YES
            ],
            usage=usage,
        )
        return self._reply(message, evaluation)

    def _p_yes(self, name: str, result: Judgment, usage: Usage) -> float:
        if result.status not in (Status.PASS, Status.FAIL):
            raise RoleFailure(
                self.role,
                _cause(result.cause),
                f"criterion {name!r} could not be judged: {result.reasoning}",
                usage=usage,
            )
        verdict = CriterionReport.of(result)
        if verdict is not None and verdict.p_yes is not None and math.isfinite(verdict.p_yes):
            return verdict.p_yes
        if result.score is None:
            raise RoleFailure(
                self.role,
                Cause.UNPARSEABLE,
                f"criterion {name!r}: the judgment has neither P(yes) nor a score",
                usage=usage,
            )
        # Stated answer without a confidence: yes is 1, no is 0.
        return normalize(result.score)


class Analyst(JudgeRole):
    """Says why a prompt falls short: a failure type, a root cause, alternative hypotheses
    and concrete suggestions, from the prompt, a few of its responses and their evaluation."""

    role = Role.ANALYST
    default_template = "autonomy_analyst"
    default_max_tokens = 400

    SCHEMA: ClassVar[dict[str, JsonValue]] = answer_schema("autonomy_analyst")

    async def handle(self, message: JudgeMessage) -> JudgeMessage:
        request = self._accept(message, AnalyzeRequest)
        evaluation = request.evaluation
        answer, usage = await self._ask(
            message,
            {
                "prompt": request.prompt,
                "responses": _excerpts(request.responses),
                "score": f"{evaluation.score:.2f}",
                "failed_criteria": list(evaluation.failed_criteria),
                "per_criterion": [
                    {"name": name, "score": f"{value:.2f}"}
                    for name, value in evaluation.per_criterion.items()
                ],
                "hypothesis_space": list(request.hypothesis_space),
                "criteria": [c.model_dump() for c in request.criteria],
                "max_items": MAX_ITEMS,
            },
            self.SCHEMA,
        )
        return self._reply(message, self._read(Analysis, answer, usage))


class Rewriter(JudgeRole):
    """Writes an improved prompt from an analysis. The length bound is checked here, after
    the model answers: a prompt longer than `max_length_change` times the current one, or
    shorter than the current one divided by it, is a `ConstraintViolation`.
    `preserve_intent` is asked of the model, and its claim reported in `intent_preserved`,
    not checked. Without `max_tokens`, the answer may hold the longest prompt allowed."""

    role = Role.REWRITER
    default_template = "autonomy_rewriter"
    default_max_tokens = 600
    # Room for the answer's other fields around the prompt, in tokens.
    ANSWER_OVERHEAD_TOKENS: ClassVar[int] = 160

    SCHEMA: ClassVar[dict[str, JsonValue]] = answer_schema("autonomy_rewriter")

    async def handle(self, message: JudgeMessage) -> JudgeMessage:
        request = self._accept(message, RewriteRequest)
        current = request.current_prompt.strip()
        min_chars, max_chars = request.constraints.length_bounds(len(current))
        # About three characters a token, so the longest prompt allowed fits the answer.
        needed = self.ANSWER_OVERHEAD_TOKENS + math.ceil(max_chars / 3)
        answer, usage = await self._ask(
            message,
            {
                "prompt": request.current_prompt,
                "failure_type": request.analysis.failure_type,
                "root_cause": request.analysis.root_cause,
                "suggestions": list(request.analysis.suggestions),
                "techniques": list(request.techniques_to_try),
                "preserve_intent": request.constraints.preserve_intent,
                "min_chars": min_chars,
                "max_chars": max_chars,
                "rejected": list(request.rejected),
                "criteria": [c.model_dump() for c in request.criteria],
            },
            self.SCHEMA,
            max_tokens=self._given_max_tokens or max(self.max_tokens, needed),
        )
        improved = answer.get("improved_prompt")
        if isinstance(improved, str):
            answer = {**answer, "improved_prompt": improved.strip()}
            if improved.strip():
                self._check_length(improved.strip(), current, request.constraints, usage)
        return self._reply(message, self._read(Rewrite, answer, usage))

    def _check_length(
        self, improved: str, current: str, constraints: RewriteConstraints, usage: Usage
    ) -> None:
        shortest, longest = constraints.length_bounds(len(current))
        if not shortest <= len(improved) <= longest:
            raise ConstraintViolation(
                self.role,
                "payload.constraints.max_length_change",
                f"the improved prompt has {len(improved)} characters; from the current "
                f"prompt's {len(current)}, {constraints.max_length_change:g} times either way "
                f"(or {constraints.length_slack_chars} more) allows {shortest} to {longest}",
                usage=usage,
            )


class Adversarial(JudgeRole):
    """Looks for edge cases, ambiguities and ways to game a prompt and its criteria; finds
    at most five, and may find none."""

    role = Role.ADVERSARIAL
    default_template = "autonomy_adversarial"
    default_max_tokens = 500

    SCHEMA: ClassVar[dict[str, JsonValue]] = answer_schema("autonomy_adversarial")

    async def handle(self, message: JudgeMessage) -> JudgeMessage:
        request = self._accept(message, ChallengeRequest)
        answer, usage = await self._ask(
            message,
            {
                "prompt": request.prompt,
                "criteria": [
                    {"name": criterion.name, "description": criterion.description}
                    for criterion in request.criteria
                ],
                "cases": _excerpts(request.cases),
                "max_findings": MAX_FINDINGS,
            },
            self.SCHEMA,
        )
        return self._reply(message, self._read(Challenge, answer, usage))


class Meta(JudgeRole):
    """Decides whether an improvement cycle goes on (continue), stops (halt) or needs a
    person (escalate), from the scores so far, the proposal, the findings and the spend."""

    role = Role.META
    default_template = "autonomy_meta"
    default_max_tokens = 150

    SCHEMA: ClassVar[dict[str, JsonValue]] = answer_schema("autonomy_meta")

    async def handle(self, message: JudgeMessage) -> JudgeMessage:
        request = self._accept(message, ReviewRequest)
        answer, usage = await self._ask(
            message,
            {
                "iteration": request.iteration,
                "max_iterations": message.constraints.max_iterations,
                "scores": [f"{score:.2f}" for score in request.scores],
                "proposal": shorten(request.proposal, EXCERPT_CHARS),
                "findings": request.findings,
                "cost_usd": f"{request.cost_usd:.4f}",
                "max_cost_usd": f"{message.constraints.max_cost_usd:.4f}",
                "stages": shorten(to_json_text(request.stages), EXCERPT_CHARS)
                if request.stages
                else "",
            },
            self.SCHEMA,
        )
        return self._reply(message, self._read(Review, answer, usage))
