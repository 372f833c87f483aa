"""What a cycle stores: its spec, the state it goes on from after a restart (with the
change waiting at a human breakpoint and the record of each iteration), and the outcome it
reports wherever it stands."""

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from jurist.autonomy._cases import Case
from jurist.autonomy._governance import CycleState
from jurist.autonomy._limits import Limits
from jurist.autonomy._persistence import CycleStatus, StoredCycle
from jurist.core import Usage
from jurist.rubrics import Criterion

DEFAULT_TECHNIQUES = ("explicit_instruction", "example_driven", "step_by_step")


class CycleSpec(BaseModel):
    """What a cycle improves and under which limits; stored as the cycle's spec."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str = Field(min_length=1)
    criteria: list[Criterion] = Field(min_length=1)
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


def outcome_of(stored: StoredCycle) -> CycleOutcome:
    """A stored cycle's outcome, wherever it stands."""
    spec = CycleSpec.model_validate(stored.spec)
    state = LoopState.model_validate(stored.state or {"prompt": spec.prompt})
    reason = stored.halted_reason or state.reason
    return cycle_outcome(stored.id, stored.name, spec, state, status=stored.status, reason=reason)


def cycle_outcome(
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
