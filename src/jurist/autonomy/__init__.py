"""The self-improving judge system: five roles that talk in a versioned protocol, an
improvement loop that keeps a rewritten prompt only when it scores better on held-back
cases, governance (limits, circuit breakers, budgets enforced before each call, human
breakpoints, meta-judge involvement), judge variants and tournaments, and reputations.

    spec = CycleSpec(prompt=..., criteria=[CriterionSpec(name=..., description=...)],
                     cases=load_cases("cases.jsonl"), limits=Limits(max_iterations=3))
    async with await AutonomyStore.open() as store:
        outcome = await start_cycle(spec, store)
"""

from jurist.autonomy._budget import Budget, Budgeted
from jurist.autonomy._cases import Case, CasesError, load_cases, split_cases
from jurist.autonomy._governance import (
    Breaker,
    Breakpoint,
    CycleState,
    Halt,
    Involvement,
    Limits,
    LimitsError,
    check_breakers,
    involvement,
    meta_reviews,
    needs_approval,
    stability_score,
)
from jurist.autonomy._loop import (
    CycleOutcome,
    CycleSpec,
    RoleModels,
    approve_cycle,
    outcome_of,
    resume_cycle,
    start_cycle,
)
from jurist.autonomy._messages import (
    Constraints,
    CriterionSpec,
    JudgeMessage,
    MessageError,
    MessageKind,
    MessageType,
    Role,
    Stage,
    parse_message,
    reply_to,
    request_message,
)
from jurist.autonomy._reputation import (
    Reputation,
    ReputationBook,
    ReputationEvent,
    ReputationMetrics,
    reputation_score,
)
from jurist.autonomy._roles import (
    Adversarial,
    Analyst,
    ConstraintViolation,
    Evaluator,
    Meta,
    Rewriter,
    RoleFailure,
)
from jurist.autonomy._tournament import Fitness, TournamentResult, run_tournament, save_winners
from jurist.autonomy._variants import (
    JudgeVariant,
    Technique,
    VariantError,
    generate_variants,
    load_variants,
    save_variants,
    seed_variants,
)

__all__ = [
    "Adversarial",
    "Analyst",
    "Breaker",
    "Breakpoint",
    "Budget",
    "Budgeted",
    "Case",
    "CasesError",
    "ConstraintViolation",
    "Constraints",
    "CriterionSpec",
    "CycleOutcome",
    "CycleSpec",
    "CycleState",
    "Evaluator",
    "Fitness",
    "Halt",
    "Involvement",
    "JudgeMessage",
    "JudgeVariant",
    "Limits",
    "LimitsError",
    "MessageError",
    "MessageKind",
    "MessageType",
    "Meta",
    "Reputation",
    "ReputationBook",
    "ReputationEvent",
    "ReputationMetrics",
    "Rewriter",
    "Role",
    "RoleFailure",
    "RoleModels",
    "Stage",
    "Technique",
    "TournamentResult",
    "VariantError",
    "approve_cycle",
    "check_breakers",
    "generate_variants",
    "involvement",
    "load_cases",
    "load_variants",
    "meta_reviews",
    "needs_approval",
    "outcome_of",
    "parse_message",
    "reply_to",
    "reputation_score",
    "request_message",
    "resume_cycle",
    "run_tournament",
    "save_variants",
    "save_winners",
    "seed_variants",
    "split_cases",
    "stability_score",
    "start_cycle",
]
