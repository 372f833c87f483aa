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
   significant (or the meta judge escalates). Reputations move by fixed rules; the
   circuit breakers decide whether the cycle goes on.

Budgets are enforced before each model call (`Budgeted`), so a cycle never spends past
its limits: a refused call halts it with the limit named.
"""

from typing import Any

from jurist.autonomy._cycle_models import (
    CycleOutcome,
    CycleSpec,
    EventSink,
    LoopState,
    RoleModels,
)
from jurist.autonomy._iteration import Cycle
from jurist.autonomy._persistence import AutonomyStore, CycleStatus, StoredCycle


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
    return await Cycle(cycle_id, name, spec, store, models=models, on_event=on_event).run(state)


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
    return await Cycle(stored.id, stored.name, spec, store, models=models, on_event=on_event).run(
        state
    )


async def approve_cycle(
    store: AutonomyStore, cycle: str, *, approve: bool, note: str = "", by: str | None = None
) -> StoredCycle:
    """Record a human's decision on a paused cycle's change; the cycle is then ready to
    resume (`resume_cycle`). Only a paused cycle takes a decision. `by` names who decided
    (an API key's id), kept in the decision's event when given."""
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
    message: dict[str, Any] = {"decision": decision, "note": note, "iteration": pending.iteration}
    if by is not None:
        message["by"] = by
    await store.append_event(stored.id, "decision", "human", message)
    found = await store.get_cycle(stored.id)
    assert found is not None
    return found


async def _stored(store: AutonomyStore, cycle: str) -> StoredCycle:
    stored = await store.get_cycle(cycle)
    if stored is None:
        raise LookupError(f"no cycle with id or name {cycle!r}")
    return stored
