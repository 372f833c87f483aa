"""The improvement loop: a prompt is run on cases, judged, diagnosed, rewritten,
challenged and reviewed; the rewrite is kept only if it scores better on cases it was not
rewritten on. Every message, score, cost and decision is stored as the cycle goes, so a
cycle can be listed, replayed, paused at a human breakpoint and resumed after a restart.

One iteration:

1. evaluation: the current prompt answers the rewriting cases; the evaluator scores each
   answer against the criteria;
2. analysis: the analyst says why the weakest answers fall short;
3. rewriting: the rewriter proposes a new prompt within the constraints;
4. verification: the adversarial judge challenges the proposal, the meta judge reviews the
   iteration when its involvement level says so, and the proposal and the current prompt
   answer the held-back cases, where they are scored alike;
5. decision: the proposal is accepted when its held-back score beats the current one by
   more than `min_improvement_threshold`, after a human's approval when the change is
   significant (or the meta judge escalates). Reputations move by the spec's rules; the
   circuit breakers decide whether the cycle goes on.

Budgets are enforced before each model call (`Budgeted`), so a cycle never spends past
its limits: a refused call halts it with the limit named.
"""

import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from jurist.autonomy._budget import Budget, Budgeted
from jurist.autonomy._cases import Case, TargetOutput, run_prompt, split_cases
from jurist.autonomy._governance import (
    Breaker,
    CycleState,
    Halt,
    Involvement,
    Limits,
    ProposedChange,
    StabilityInputs,
    check_breakers,
    improves_enough,
    involvement,
    limits_approached,
    meta_reviews,
    needs_approval,
    significance,
    stability_score,
)
from jurist.autonomy._messages import (
    AnalyzeRequest,
    ChallengeRequest,
    Constraints,
    CriterionSpec,
    EvaluateRequest,
    Evaluation,
    EvaluationSummary,
    JudgeMessage,
    MessageError,
    MessageType,
    ReplyPayload,
    RequestPayload,
    ReviewDecision,
    ReviewRequest,
    RewriteConstraints,
    RewriteRequest,
    Role,
    Severity,
    Stage,
    request_message,
)
from jurist.autonomy._reputation import ReputationBook, ReputationEvent, rewrite_event
from jurist.autonomy._roles import (
    Adversarial,
    Analyst,
    ConstraintViolation,
    Evaluator,
    FailureCause,
    JudgeRole,
    Meta,
    Rewriter,
    RoleFailure,
)
from jurist.core import JuristError, Usage
from jurist.llm import ErrorKind, Model, ModelError, get_model
from jurist.store._autonomy import AutonomyStore, CycleStatus, StoredCycle

ORCHESTRATOR = "orchestrator"
DEFAULT_TECHNIQUES = ("explicit_instruction", "example_driven", "step_by_step")
DEFAULT_HYPOTHESES = ("Ambiguous instructions", "Missing examples", "Conflicting requirements")
# A role on the embedded model writes a few hundred tokens at a few tokens a second.
ROLE_TIMEOUT_S = 300.0
WORST_SHOWN = 3  # answers shown to the analyst
SHOWN_REJECTED = 3  # earlier rejected proposals shown to the rewriter
STEADY = 0.7  # the stability score from which improvement counts as consistent
REWRITE_TEMPERATURE = 0.7  # the rewriter's, once a proposal was rejected


class CycleSpec(BaseModel):
    """What a cycle improves and under which limits; stored as the cycle's spec."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str = Field(min_length=1)
    criteria: list[CriterionSpec] = Field(min_length=1)
    cases: list[Case] = Field(min_length=2)
    model: str | None = None  # the model under test; None: JURIST_MODEL
    judge_model: str | None = None  # the roles' model; None: JURIST_MODEL
    limits: Limits = Field(default_factory=Limits)
    holdout: float = Field(default=0.5, gt=0.0, lt=1.0)
    techniques: list[str] = Field(default_factory=lambda: list(DEFAULT_TECHNIQUES))
    output_tokens: int = Field(default=300, ge=1)


class Pending(BaseModel):
    """An accepted change waiting at a human breakpoint, with what its iteration left to
    book once a human decides."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str
    old_score: float
    new_score: float
    iteration: int
    why: str
    findings: dict[str, int]


class IterationRecord(BaseModel):
    """What one iteration left for the stability score: its change of held-out score,
    whether a breaker tripped, how far the judges' signals agreed with the outcome, and
    what it cost (in tokens: the embedded model is free)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    iteration: int
    improvement: float = 0.0
    accepted: bool = False
    tripped: int = 0
    agreement: float | None = None
    tokens: int = 0


class LoopState(BaseModel):
    """Everything a cycle needs to go on after a restart; stored as the cycle's state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str
    baseline_score: float | None = None  # held-out score of the initial prompt
    score: float | None = None  # held-out score of the current prompt
    governance: CycleState = Field(default_factory=CycleState)
    successes: int = 0
    rejected: list[str] = Field(default_factory=list)  # proposals the held-back cases refused
    history: list[IterationRecord] = Field(default_factory=list)
    pending: Pending | None = None
    seconds: float = 0.0
    reason: str | None = None  # why the cycle ended or waits


class CycleOutcome(BaseModel):
    """Where a cycle ended (or paused): its decision, scores, cost and time."""

    model_config = ConfigDict(frozen=True)

    cycle_id: str
    name: str | None
    status: CycleStatus
    reason: str | None
    iterations: int
    initial_prompt: str
    prompt: str
    baseline_score: float | None
    score: float | None
    usage: Usage
    seconds: float
    pending: dict[str, Any] | None


class RoleModels(BaseModel):
    """The models a cycle uses, given directly (tests) instead of by spec."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    target: Any  # Model
    judge: Any  # Model


EventSink = Callable[[str], None]


class _Halted(JuristError):
    """The meta judge stopped the cycle; `state` is where it stood after the iteration."""

    def __init__(self, reason: str, state: "LoopState") -> None:
        super().__init__(reason)
        self.reason = reason
        self.state = state


async def start_cycle(
    spec: CycleSpec,
    store: AutonomyStore,
    *,
    name: str | None = None,
    models: RoleModels | None = None,
    on_event: EventSink | None = None,
) -> CycleOutcome:
    """Create a cycle for `spec` and run it until it ends or pauses."""
    cycle_id = await store.create_cycle(spec.model_dump(mode="json"), name=name)
    state = LoopState(prompt=spec.prompt)
    await store.update_cycle(cycle_id, CycleStatus.RUNNING, state.model_dump(mode="json"))
    return await _Cycle(cycle_id, name, spec, store, models=models, on_event=on_event).run(state)


async def resume_cycle(
    store: AutonomyStore,
    cycle: str,
    *,
    models: RoleModels | None = None,
    on_event: EventSink | None = None,
) -> CycleOutcome:
    """Go on with a stored cycle (by id or name) from where it stopped. A cycle paused at a
    breakpoint goes on only once a human has decided (`approve_cycle`)."""
    stored = await _stored(store, cycle)
    if stored.status is not CycleStatus.RUNNING:
        if stored.status is CycleStatus.PAUSED:
            raise ValueError(
                f"cycle {cycle!r} waits for approval: approve or reject its change first"
            )
        raise ValueError(f"cycle {cycle!r} has ended ({stored.status.value}); nothing to resume")
    spec = CycleSpec.model_validate(stored.spec)
    state = LoopState.model_validate(stored.state or {"prompt": spec.prompt})
    return await _Cycle(stored.id, stored.name, spec, store, models=models, on_event=on_event).run(
        state
    )


async def approve_cycle(
    store: AutonomyStore, cycle: str, *, approve: bool, note: str = ""
) -> StoredCycle:
    """Record a human's decision on a paused cycle's change; the cycle is then ready to
    resume (`resume_cycle`). Only a paused cycle takes a decision."""
    stored = await _stored(store, cycle)
    if stored.status is not CycleStatus.PAUSED or stored.state is None:
        raise ValueError(
            f"cycle {cycle!r} is {stored.status.value}, not paused: there is nothing to approve"
        )
    state = LoopState.model_validate(stored.state)
    pending = state.pending
    if pending is None:  # a paused cycle always has one; a hand-edited store may not
        raise ValueError(f"cycle {cycle!r} is paused with no change waiting")
    decision = "approved" if approve else "rejected"
    governance = state.governance.after_iteration(
        failed=not approve,
        held_out_score=pending.new_score if approve else pending.old_score,
        findings=pending.findings,
    )
    update: dict[str, Any] = {"governance": governance, "pending": None}
    if approve:
        update |= {"prompt": pending.prompt, "score": pending.new_score}
        update["successes"] = state.successes + 1
    else:
        update |= {"score": pending.old_score, "rejected": [*state.rejected, pending.prompt]}
    state = state.model_copy(update=update)
    # Only if it is still paused: of two decisions taken at once, one wins.
    await store.update_cycle(
        stored.id, CycleStatus.RUNNING, state.model_dump(mode="json"), expected=CycleStatus.PAUSED
    )
    await store.append_event(
        stored.id,
        "decision",
        "human",
        {"decision": decision, "note": note, "iteration": pending.iteration},
    )
    found = await store.get_cycle(stored.id)
    assert found is not None
    return found


def outcome_of(stored: StoredCycle) -> CycleOutcome:
    """A stored cycle's outcome, wherever it stands."""
    spec = CycleSpec.model_validate(stored.spec)
    state = LoopState.model_validate(stored.state or {"prompt": spec.prompt})
    reason = stored.halted_reason or state.reason
    return _outcome(stored.id, stored.name, spec, state, status=stored.status, reason=reason)


async def _stored(store: AutonomyStore, cycle: str) -> StoredCycle:
    stored = await store.get_cycle(cycle)
    if stored is None:
        raise LookupError(f"no cycle with id or name {cycle!r}")
    return stored


def _outcome(
    cycle_id: str,
    name: str | None,
    spec: CycleSpec,
    state: LoopState,
    *,
    status: CycleStatus,
    reason: str | None,
) -> CycleOutcome:
    pending = state.pending
    return CycleOutcome(
        cycle_id=cycle_id,
        name=name,
        status=status,
        reason=reason,
        iterations=state.governance.iteration,
        initial_prompt=spec.prompt,
        prompt=state.prompt,
        baseline_score=state.baseline_score,
        score=state.score,
        usage=state.governance.spent,
        seconds=state.seconds,
        pending=None
        if pending is None
        else pending.model_dump(
            mode="json", include={"prompt", "old_score", "new_score", "iteration", "why"}
        ),
    )


class _Cycle:
    """One cycle at work: its roles, its budget and its store."""

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

    # -- running ---------------------------------------------------------------------------

    async def run(self, state: LoopState) -> CycleOutcome:
        self._unbooked: list[Usage] = []
        self._build(state)
        await self._load_reputations()
        started = time.perf_counter()
        status, reason = CycleStatus.RUNNING, None
        try:
            if state.baseline_score is None:
                baseline = await self._held_out_score(state.prompt, "baseline")
                state = self._book(state)
                state = state.model_copy(update={"baseline_score": baseline, "score": baseline})
                await self._save(state)
            while True:
                halt = check_breakers(state.governance, self.limits)
                if halt is not None:
                    status, reason = self._ending(state, halt)
                    await self._record("decision", "breaker", halt.model_dump(mode="json"))
                    break
                state = self._book(await self._iteration(state))
                await self._save(state)
                if state.pending is not None:
                    status, reason = CycleStatus.PAUSED, state.pending.why
                    break
        except _Halted as halted:
            state = halted.state
            status, reason = CycleStatus.HALTED, halted.reason
            await self._record("decision", "halt", {"reason": reason})
        except (ModelError, RoleFailure) as exc:
            status, reason = self._failure(exc)
            await self._record("decision", "halt", {"reason": reason})
        finally:
            await self._save_reputations()
        state = self._book(state)
        seconds = state.seconds + time.perf_counter() - started
        state = state.model_copy(update={"seconds": seconds, "reason": reason})
        await self.store.update_cycle(
            self.cycle_id,
            status,
            state.model_dump(mode="json"),
            halted_reason=reason
            if status is CycleStatus.HALTED or status is CycleStatus.FAILED
            else None,
        )
        self._say(f"cycle {status.value}" + (f": {reason}" if reason else ""))
        return _outcome(self.cycle_id, self.name, self.spec, state, status=status, reason=reason)

    def _ending(self, state: LoopState, halt: Halt) -> tuple[CycleStatus, str]:
        if halt.breaker is Breaker.ITERATIONS:
            kept = state.prompt != self.spec.prompt
            return (CycleStatus.ACCEPTED if kept else CycleStatus.REJECTED), halt.reason
        return CycleStatus.HALTED, halt.reason

    def _failure(self, exc: ModelError | RoleFailure) -> tuple[CycleStatus, str]:
        budget = (isinstance(exc, ModelError) and exc.kind is ErrorKind.BUDGET) or (
            isinstance(exc, RoleFailure) and exc.cause is FailureCause.BUDGET
        )
        if budget:
            return CycleStatus.HALTED, f"budget: {exc}"
        return CycleStatus.FAILED, f"{type(exc).__name__}: {exc}"

    def _unbooked_tokens(self) -> int:
        return sum(usage.total_tokens for usage in self._unbooked)

    def _book(self, state: LoopState) -> LoopState:
        """`state` with every usage recorded since the last booking added to the cycle's
        spending (each call's usage is booked once, whatever stage it was spent in)."""
        spent = _sum(self._unbooked)
        self._unbooked.clear()
        return state.model_copy(update={"governance": state.governance.with_usage(spent)})

    async def _save(self, state: LoopState) -> None:
        await self.store.update_cycle(
            self.cycle_id, CycleStatus.RUNNING, state.model_dump(mode="json")
        )

    async def _iteration(self, state: LoopState) -> LoopState:
        number = state.governance.iteration + 1
        self._say(f"iteration {number}: evaluating the prompt on {len(self.train)} cases")
        try:
            proposal, findings, review = await self._propose(state, number)
            new = await self._held_out_score(proposal, "candidate")
            # The current prompt is scored again under the same conditions: a fair
            # comparison when the models are not deterministic, and the regression
            # breaker's evidence when the score of the prompt in effect drifts down. With
            # a deterministic model and the response cache on, this costs nothing.
            old = await self._held_out_score(state.prompt, "current")
        except (RoleFailure, MessageError) as exc:
            if isinstance(exc, RoleFailure) and exc.cause is FailureCause.BUDGET:
                raise
            if isinstance(exc, ConstraintViolation):
                self._reputation(Role.REWRITER, ReputationEvent.CONSTITUTIONAL_VIOLATION, str(exc))
            await self._record(
                "decision", "iteration_failed", {"iteration": number, "cause": str(exc)}
            )
            self._say(f"iteration {number} failed: {exc}")
            failed = IterationRecord(iteration=number, tokens=self._unbooked_tokens())
            return state.model_copy(
                update={
                    "governance": state.governance.after_iteration(failed=True),
                    "history": [*state.history, failed],
                }
            )
        accepted = improves_enough(self.limits, old, new)
        self._book_reputations(old, new, accepted, findings, review)
        counts = dict(Counter(f.value for f in findings))
        record = IterationRecord(
            iteration=number,
            improvement=new - old,
            accepted=accepted,
            agreement=_agreement(accepted, findings, review),
            tokens=self._unbooked_tokens(),
        )
        history = [*state.history, record]
        verdict = {
            "iteration": number,
            "old_score": old,
            "new_score": new,
            "accepted": accepted,
            "threshold": self.limits.min_improvement_threshold,
            "findings": counts,
            "review": None if review is None else review.value,
            "stability": self._stability(state.model_copy(update={"history": history})),
        }
        await self._record("decision", "verdict", verdict)
        self._say(
            f"iteration {number}: held-out score {old:.3f} -> {new:.3f}: "
            + ("accepted" if accepted else "rejected")
        )
        if accepted:
            change = ProposedChange(
                old_score=old, new_score=new, old_prompt=state.prompt, new_prompt=proposal
            )
            why = significance(self.limits, change) if needs_approval(self.limits, change) else None
            if review is ReviewDecision.ESCALATE:
                why = "the meta judge escalated the change to a human"
            if why is not None:
                pending = Pending(
                    prompt=proposal,
                    old_score=old,
                    new_score=new,
                    iteration=number,
                    why=why,
                    findings=counts,
                )
                await self._record("decision", "breakpoint", pending.model_dump(mode="json"))
                self._say(f"iteration {number}: waiting for approval ({why})")
                return state.model_copy(update={"pending": pending, "history": history})
        governance = state.governance.after_iteration(
            failed=not accepted,
            held_out_score=new if accepted else old,
            findings=counts,
        )
        update: dict[str, Any] = {"governance": governance, "history": history}
        if accepted:
            update |= {"prompt": proposal, "score": new, "successes": state.successes + 1}
        else:
            update |= {"score": old, "rejected": [*state.rejected, proposal]}
        after = state.model_copy(update=update)
        if review is ReviewDecision.HALT:
            # The meta judge stops the cycle; a change the held-back cases accepted stays.
            raise _Halted(f"the meta judge halted the cycle at iteration {number}", after)
        return after

    async def _propose(
        self, state: LoopState, number: int
    ) -> tuple[str, list[Severity], ReviewDecision | None]:
        """Stages 1-4 up to the candidate's held-out run: the proposal, the severities of
        the adversarial findings, and the meta judge's decision if it reviewed."""
        outputs = await self._answers(state.prompt, self.train, "current")
        evaluations = await self._evaluate_all(state.prompt, outputs)
        summary = _summary(evaluations)
        worst = sorted(zip(evaluations, outputs, strict=True), key=lambda pair: pair[0].score)
        analysis = await self._ask(
            Role.ANALYST,
            Stage.ANALYSIS,
            MessageType.ANALYZE,
            AnalyzeRequest(
                prompt=state.prompt,
                responses=[o.output or "(no answer)" for _, o in worst[:WORST_SHOWN]],
                evaluation=summary,
                hypothesis_space=list(DEFAULT_HYPOTHESES),
                criteria=list(self.spec.criteria),
            ),
        )
        # A deterministic rewriter shown its rejected proposal tends to write it again: once
        # something was rejected, it samples (seeded, so a rerun is the same).
        self.roles[Role.REWRITER].temperature = REWRITE_TEMPERATURE if state.rejected else None
        rewrite = await self._ask(
            Role.REWRITER,
            Stage.REWRITING,
            MessageType.REWRITE,
            RewriteRequest(
                current_prompt=state.prompt,
                analysis=analysis,
                constraints=RewriteConstraints(
                    max_length_change=self.limits.significant_length_ratio
                ),
                techniques_to_try=list(self.spec.techniques),
                rejected=state.rejected[-SHOWN_REJECTED:],
                criteria=list(self.spec.criteria),
            ),
        )
        proposal = rewrite.improved_prompt
        challenge = await self._ask(
            Role.ADVERSARIAL,
            Stage.VERIFICATION,
            MessageType.CHALLENGE,
            ChallengeRequest(
                prompt=proposal,
                criteria=list(self.spec.criteria),
                cases=[case.input for case in self.train],
            ),
        )
        severities = [finding.severity for finding in challenge.findings]
        review = None
        level = self._involvement(state, number)
        triggered = any(s is Severity.HIGH for s in severities)
        if meta_reviews(level, number, triggered=triggered):
            reviewed = await self._ask(
                Role.META,
                Stage.VERIFICATION,
                MessageType.REVIEW,
                ReviewRequest(
                    iteration=number,
                    scores=[s for s in (state.baseline_score, state.score) if s is not None],
                    proposal=proposal,
                    findings=len(challenge.findings),
                    cost_usd=state.governance.cost_usd,
                    stages={
                        "train_score": summary.score,
                        "failed_criteria": list(summary.failed_criteria),
                        "root_cause": analysis.root_cause,
                        "techniques_used": list(rewrite.techniques_used),
                        "involvement": level.value,
                    },
                ),
            )
            review = reviewed.decision
        return proposal, severities, review

    def _stability(self, state: LoopState) -> float:
        history = state.history
        reputations = {
            role.sender_id: tuple(
                [self.book.get(role.sender_id).score]
                if not self.book.get(role.sender_id).history
                else [c.after for c in self.book.get(role.sender_id).history]
            )
            for role in self.roles.values()
        }
        return stability_score(
            StabilityInputs(
                agreement=tuple(r.agreement for r in history if r.agreement is not None),
                improvements=tuple(max(-1.0, min(1.0, r.improvement)) for r in history),
                breaker_trips=tuple(r.tripped for r in history),
                reputations=reputations,
                costs=tuple(float(r.tokens) for r in history),
            )
        )

    def _involvement(self, state: LoopState, number: int) -> Involvement:
        """How closely the meta judge watches: the spec's levels, where "consistent
        improvement" means a stability score of at least STEADY."""
        governance = state.governance
        return involvement(
            number,
            [self.book.get(role.sender_id).score for role in self.roles.values()],
            breaker_recently_tripped=bool(governance.trips),
            successful_iterations=state.successes,
            improvement_consistent=self._stability(state) >= STEADY,
            approaching_limit=bool(limits_approached(governance, self.limits)),
        )

    def _book_reputations(
        self,
        old: float,
        new: float,
        accepted: bool,
        findings: Sequence[Severity],
        review: ReviewDecision | None,
    ) -> None:
        event = rewrite_event(old, new)
        if event is not None:
            self._reputation(Role.REWRITER, event, f"held-out {old:.3f} -> {new:.3f}")
        if not accepted and any(s is Severity.HIGH for s in findings):
            # It warned of a serious weakness in a proposal the held-back cases then rejected.
            self._reputation(
                Role.ADVERSARIAL,
                ReputationEvent.ADVERSARIAL_DETECTION,
                "warned of a rejected proposal",
            )
        if review is not None:
            agreed = (review is ReviewDecision.CONTINUE) == accepted
            if agreed:
                self._reputation(
                    Role.META, ReputationEvent.CONSENSUS_ALIGNMENT, f"review {review.value}"
                )

    # -- stages ----------------------------------------------------------------------------

    async def _held_out_score(self, prompt: str, which: str) -> float:
        self._say(f"scoring the {which} prompt on {len(self.held)} held-back cases")
        outputs = await self._answers(prompt, self.held, which)
        evaluations = await self._evaluate_all(prompt, outputs)
        return _summary(evaluations).score

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
            _sum([o.usage for o in outputs]),
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


def _summary(evaluations: Sequence[Evaluation]) -> EvaluationSummary:
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


def _agreement(
    accepted: bool, findings: Sequence[Severity], review: ReviewDecision | None
) -> float | None:
    """How far the judges' signals agreed with what the held-back cases decided: the meta
    judge (continue when accepted), the adversarial judge (a serious finding when rejected).
    None when neither spoke."""
    votes: list[bool] = []
    if review is not None:
        votes.append((review is ReviewDecision.CONTINUE) == accepted)
    if findings:
        votes.append(any(s is Severity.HIGH for s in findings) != accepted)
    return sum(votes) / len(votes) if votes else None


def _sum(usages: Sequence[Usage | None]) -> Usage:
    return Usage.total(usages) or Usage()


def _dumped(message: JudgeMessage) -> dict[str, Any]:
    dumped: dict[str, Any] = message.model_dump(mode="json")
    return dumped
