"""A cycle's iterations: evaluation, analysis, rewriting, verification and decision (see
`jurist.autonomy._loop`), with the circuit breakers, the human breakpoint, the meta judge's
involvement and the reputations each step moves."""

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from jurist.autonomy._cycle_calls import CycleCalls, mean_evaluation, usage_sum
from jurist.autonomy._cycle_models import (
    CycleOutcome,
    IterationRecord,
    LoopState,
    Pending,
    cycle_outcome,
)
from jurist.autonomy._governance import (
    Breaker,
    Halt,
    Involvement,
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
    MessageError,
)
from jurist.autonomy._payloads import (
    AnalyzeRequest,
    ChallengeRequest,
    FindingSeverity,
    MessageType,
    ReviewDecision,
    ReviewRequest,
    RewriteConstraints,
    RewriteRequest,
    Role,
    Stage,
)
from jurist.autonomy._persistence import CycleStatus
from jurist.autonomy._reputation import ReputationEvent, rewrite_event
from jurist.autonomy._roles import (
    ConstraintViolation,
    RoleFailure,
)
from jurist.core import Cause, JuristError
from jurist.llm import ErrorKind, ModelError

DEFAULT_HYPOTHESES = ("Ambiguous instructions", "Missing examples", "Conflicting requirements")
WORST_SHOWN = 3  # answers shown to the analyst
SHOWN_REJECTED = 3  # earlier rejected proposals shown to the rewriter
STEADY = 0.7  # the stability score from which improvement counts as consistent
REWRITE_TEMPERATURE = 0.7  # the rewriter's, once a proposal was rejected


class _Halted(JuristError):
    """The meta judge stopped the cycle; `state` is where it stood after the iteration."""

    def __init__(self, reason: str, state: LoopState) -> None:
        super().__init__(reason)
        self.reason = reason
        self.state = state


class Cycle(CycleCalls):
    """One cycle at work, iteration after iteration, until it ends or pauses."""

    # -- running ---------------------------------------------------------------------------

    async def run(self, state: LoopState) -> CycleOutcome:
        self._unbooked = []
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
        return cycle_outcome(
            self.cycle_id, self.name, self.spec, state, status=status, reason=reason
        )

    def _ending(self, state: LoopState, halt: Halt) -> tuple[CycleStatus, str]:
        if halt.breaker is Breaker.ITERATIONS:
            kept = state.prompt != self.spec.prompt
            return (CycleStatus.ACCEPTED if kept else CycleStatus.REJECTED), halt.reason
        return CycleStatus.HALTED, halt.reason

    def _failure(self, exc: ModelError | RoleFailure) -> tuple[CycleStatus, str]:
        budget = (isinstance(exc, ModelError) and exc.kind is ErrorKind.BUDGET) or (
            isinstance(exc, RoleFailure) and exc.cause is Cause.BUDGET
        )
        if budget:
            return CycleStatus.HALTED, f"budget: {exc}"
        return CycleStatus.FAILED, f"{type(exc).__name__}: {exc}"

    def _unbooked_tokens(self) -> int:
        return sum(usage.total_tokens for usage in self._unbooked)

    def _book(self, state: LoopState) -> LoopState:
        """`state` with every usage recorded since the last booking added to the cycle's
        spending (each call's usage is booked once, whatever stage it was spent in)."""
        spent = usage_sum(self._unbooked)
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
            if isinstance(exc, RoleFailure) and exc.cause is Cause.BUDGET:
                raise
            if isinstance(exc, ConstraintViolation):
                self._reputation(Role.REWRITER, ReputationEvent.CONSTITUTIONAL_VIOLATION, str(exc))
            # A message a role refused is an input it could not take.
            cause = exc.cause if isinstance(exc, RoleFailure) else Cause.BAD_INPUT
            await self._record(
                "decision",
                "iteration_failed",
                {"iteration": number, "cause": cause.value, "detail": str(exc)},
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
    ) -> tuple[str, list[FindingSeverity], ReviewDecision | None]:
        """Stages 1-4 up to the candidate's held-out run: the proposal, the severities of
        the adversarial findings, and the meta judge's decision if it reviewed."""
        outputs = await self._answers(state.prompt, self.train, "current")
        evaluations = await self._evaluate_all(state.prompt, outputs)
        summary = mean_evaluation(evaluations)
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
        triggered = any(s is FindingSeverity.HIGH for s in severities)
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
        """How closely the meta judge watches: high, medium or low, where "consistent
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
        findings: Sequence[FindingSeverity],
        review: ReviewDecision | None,
    ) -> None:
        event = rewrite_event(old, new)
        if event is not None:
            self._reputation(Role.REWRITER, event, f"held-out {old:.3f} -> {new:.3f}")
        if not accepted and any(s is FindingSeverity.HIGH for s in findings):
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


def _agreement(
    accepted: bool, findings: Sequence[FindingSeverity], review: ReviewDecision | None
) -> float | None:
    """How far the judges' signals agreed with what the held-back cases decided: the meta
    judge (continue when accepted), the adversarial judge (a serious finding when rejected).
    None when neither spoke."""
    votes: list[bool] = []
    if review is not None:
        votes.append((review is ReviewDecision.CONTINUE) == accepted)
    if findings:
        votes.append(any(s is FindingSeverity.HIGH for s in findings) != accepted)
    return sum(votes) / len(votes) if votes else None
