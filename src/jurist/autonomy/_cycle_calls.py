"""A cycle's plumbing: its models behind one budget, its five roles and their reputations,
and the calls every stage makes (the target answering cases, the evaluator scoring them, a
role asked by message), each recorded in the cycle's log as it happens."""

from collections.abc import Sequence
from typing import Any

from jurist.autonomy._cases import Case, TargetOutput, run_prompt, split_cases
from jurist.autonomy._cycle_models import CycleSpec, EventSink, LoopState, RoleModels
from jurist.autonomy._messages import (
    JudgeMessage,
    MessageError,
    request_message,
)
from jurist.autonomy._payloads import (
    Constraints,
    EvaluateRequest,
    Evaluation,
    EvaluationSummary,
    MessageType,
    ReplyPayload,
    RequestPayload,
    Role,
    Stage,
)
from jurist.autonomy._persistence import AutonomyStore
from jurist.autonomy._reputation import ReputationBook, ReputationEvent
from jurist.autonomy._roles import (
    Adversarial,
    Analyst,
    Evaluator,
    JudgeRole,
    Meta,
    Rewriter,
    RoleFailure,
)
from jurist.core import Usage
from jurist.llm import Budget, Budgeted, Model, get_model

ORCHESTRATOR = "orchestrator"
# A role on the embedded model writes a few hundred tokens at a few tokens a second.
ROLE_TIMEOUT_S = 300.0


class CycleCalls:
    """One cycle at work: its roles, its budget and its store; `Cycle` runs its iterations."""

    def __init__(
        self,
        cycle_id: str,
        name: str | None,
        spec: CycleSpec,
        store: AutonomyStore,
        *,
        models: RoleModels | None,
        on_event: EventSink | None,
    ) -> None:
        self.cycle_id = cycle_id
        self.name = name
        self.spec = spec
        self.store = store
        self.on_event = on_event
        self.limits = spec.limits
        self.train, self.held = split_cases(spec.cases, spec.holdout)
        self._models = models
        self.book = ReputationBook()
        self.constraints = Constraints(
            max_iterations=self.limits.max_iterations,
            max_cost_usd=self.limits.max_cost_usd or 0.0,
        )
        # The usage of calls recorded but not yet booked to the cycle's governance.
        self._unbooked: list[Usage] = []

    # -- models and roles ------------------------------------------------------------------

    def _build(self, state: LoopState) -> None:
        spent = state.governance
        # The budget holds what is left of the cycle's limits: a resumed cycle has spent
        # some already.
        cost = self.limits.max_cost_usd
        tokens = self.limits.max_tokens
        self.budget = Budget(
            max_cost_usd=None if cost is None else max(cost - spent.cost_usd, 1e-9),
            max_tokens=None if tokens is None else max(tokens - spent.spent.total_tokens, 1),
        )
        if self._models is not None:
            target, judge = self._models.target, self._models.judge
        else:
            target = get_model(self.spec.model)
            judge = (
                target
                if self.spec.judge_model == self.spec.model
                else get_model(self.spec.judge_model)
            )
        self.target: Model = Budgeted(target, self.budget)
        self.judge: Model = Budgeted(judge, self.budget)
        label = self.judge.name
        self.roles: dict[Role, JudgeRole] = {
            Role.EVALUATOR: Evaluator(self.judge, sender_id=f"evaluator@{label}"),
            Role.ANALYST: Analyst(self.judge, sender_id=f"analyst@{label}"),
            Role.REWRITER: Rewriter(self.judge, sender_id=f"rewriter@{label}"),
            Role.ADVERSARIAL: Adversarial(self.judge, sender_id=f"adversarial@{label}"),
            Role.META: Meta(self.judge, sender_id=f"meta@{label}"),
        }

    async def _load_reputations(self) -> None:
        for role in self.roles.values():
            found = await self.store.get_reputation(role.sender_id)
            if found is not None:
                self.book.put(found, saved=True)

    async def _save_reputations(self) -> None:
        for role in self.roles.values():
            changes = self.book.unsaved(role.sender_id)
            if changes:
                await self.store.save_reputation(self.book.get(role.sender_id), changes)
                self.book.mark_saved(role.sender_id)

    def _reputation(self, role: Role, event: ReputationEvent, note: str) -> None:
        judge_id = self.roles[role].sender_id
        before = self.book.get(judge_id).score
        after = self.book.apply(judge_id, event, self.cycle_id, note).score
        self._say(f"reputation {judge_id}: {event.value} {before:.3f} -> {after:.3f}")

    # -- stages ----------------------------------------------------------------------------

    async def _held_out_score(self, prompt: str, which: str) -> float:
        self._say(f"scoring the {which} prompt on {len(self.held)} held-back cases")
        outputs = await self._answers(prompt, self.held, which)
        evaluations = await self._evaluate_all(prompt, outputs)
        return mean_evaluation(evaluations).score

    async def _answers(self, prompt: str, cases: Sequence[Case], which: str) -> list[TargetOutput]:
        outputs = await run_prompt(
            prompt, cases, self.target, max_tokens=self.spec.output_tokens, concurrency=1
        )
        await self._record(
            "evaluation",
            "outputs",
            {
                "prompt": which,
                "outputs": [
                    {"case": o.case_id, "output": o.output, "error": o.error} for o in outputs
                ],
            },
            usage_sum([o.usage for o in outputs]),
        )
        return outputs

    async def _evaluate_all(self, prompt: str, outputs: Sequence[TargetOutput]) -> list[Evaluation]:
        evaluations = []
        for output in outputs:
            if output.error is not None:
                # No answer is the worst answer: every criterion unmet.
                names = [c.name for c in self.spec.criteria]
                evaluations.append(
                    Evaluation(
                        score=0.0, per_criterion=dict.fromkeys(names, 0.0), failed_criteria=names
                    )
                )
                continue
            evaluations.append(
                await self._ask(
                    Role.EVALUATOR,
                    Stage.EVALUATION,
                    MessageType.EVALUATE,
                    EvaluateRequest(
                        prompt=prompt,
                        response=output.output,
                        criteria=list(self.spec.criteria),
                        context={"case": output.case_id},
                    ),
                )
            )
        return evaluations

    async def _ask(
        self,
        role: Role,
        stage: Stage,
        kind: MessageType,
        payload: RequestPayload,
    ) -> Any:
        request = request_message(
            ORCHESTRATOR,
            Role.META,
            stage,
            kind,
            payload,
            constraints=self.constraints,
            correlation_id=self.cycle_id,
            timeout_seconds=ROLE_TIMEOUT_S,
        )
        await self._record(stage.value, f"request:{kind.value}", _dumped(request))
        try:
            reply = await self.roles[role].handle(request)
        except RoleFailure as exc:
            await self._record(
                stage.value,
                f"failure:{kind.value}",
                {"role": role.value, "cause": exc.cause.value, "detail": str(exc)},
                exc.usage,
            )
            raise
        except MessageError as exc:
            await self._record(
                stage.value,
                f"rejected:{kind.value}",
                {"role": role.value, "field": exc.field, "problem": exc.problem},
            )
            raise
        answer: ReplyPayload = reply.payload  # type: ignore[assignment]
        await self._record(stage.value, f"reply:{kind.value}", _dumped(reply), answer.usage)
        return answer

    async def _record(
        self, stage: str, kind: str, message: dict[str, Any], usage: Usage | None = None
    ) -> None:
        if usage is not None:
            self._unbooked.append(usage)
        await self.store.append_event(self.cycle_id, stage, kind, message, usage)

    def _say(self, text: str) -> None:
        if self.on_event is not None:
            self.on_event(text)


def mean_evaluation(evaluations: Sequence[Evaluation]) -> EvaluationSummary:
    """The mean evaluation: mean score, mean P(yes) per criterion, and the criteria whose
    mean fails."""
    if not evaluations:
        return EvaluationSummary(score=0.0)
    names = list(evaluations[0].per_criterion)
    per = {
        name: sum(e.per_criterion.get(name, 0.0) for e in evaluations) / len(evaluations)
        for name in names
    }
    return EvaluationSummary(
        score=sum(e.score for e in evaluations) / len(evaluations),
        per_criterion=per,
        failed_criteria=[name for name, value in per.items() if value < 0.5],
    )


def usage_sum(usages: Sequence[Usage | None]) -> Usage:
    return Usage.total(usages) or Usage()


def _dumped(message: JudgeMessage) -> dict[str, Any]:
    dumped: dict[str, Any] = message.model_dump(mode="json")
    return dumped
