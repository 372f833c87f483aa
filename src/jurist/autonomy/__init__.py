"""The self-improving judge system: five roles that talk in a versioned protocol, an
improvement loop that keeps a rewritten prompt only when it scores better on held-back
cases, governance (limits, circuit breakers, budgets enforced before each call, human
breakpoints, meta-judge involvement), judge variants and tournaments, and reputations.
A cycle's criteria are `jurist.rubrics.Criterion`s (a name, what it asks, a weight).

    spec = CycleSpec(prompt=..., criteria=[Criterion(name=..., description=...)],
                     cases=load_cases("cases.jsonl"), limits=Limits(max_iterations=3))
    async with await AutonomyStore.open() as store:
        outcome = await start_cycle(spec, store)
"""

from jurist.autonomy._cases import Case, load_cases, split_cases
from jurist.autonomy._cycle_models import (
    CycleOutcome,
    CycleSpec,
    LoopState,
    Pending,
    RoleModels,
    outcome_of,
)
from jurist.autonomy._governance import (
    Breaker,
    CycleState,
    Halt,
    Involvement,
    check_breakers,
    involvement,
    meta_reviews,
    needs_approval,
    stability_score,
)
from jurist.autonomy._limits import Breakpoint, Limits, LimitsError
from jurist.autonomy._loop import approve_cycle, resume_cycle, start_cycle
from jurist.autonomy._messages import (
    JudgeMessage,
    MessageError,
    parse_message,
    reply_to,
    request_message,
)
from jurist.autonomy._payloads import (
    Analysis,
    AnalyzeRequest,
    Challenge,
    ChallengeRequest,
    Constraints,
    EvaluateRequest,
    Evaluation,
    MessageKind,
    MessageType,
    Review,
    ReviewRequest,
    Rewrite,
    RewriteRequest,
    Role,
    Stage,
)
from jurist.autonomy._persistence import (
    AutonomyStore,
    CycleStatus,
    StoredCycle,
    StoredCycleEvent,
)
from jurist.autonomy._reputation import (
    Reputation,
    ReputationBook,
    ReputationChange,
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
from jurist.autonomy._tournament import (
    Fitness,
    Standing,
    TournamentResult,
    load_ground_truth,
    run_tournament,
    save_winners,
)
from jurist.autonomy._tournament_records import (
    TOURNAMENT_KIND,
    RecordedTournament,
    record_tournament,
    tournament_event_id,
    tournament_of,
    variant_judge_id,
)
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
    "TOURNAMENT_KIND",
    "Adversarial",
    "Analysis",
    "Analyst",
    "AnalyzeRequest",
    "AutonomyStore",
    "Breaker",
    "Breakpoint",
    "Case",
    "Challenge",
    "ChallengeRequest",
    "ConstraintViolation",
    "Constraints",
    "CycleOutcome",
    "CycleSpec",
    "CycleState",
    "CycleStatus",
    "EvaluateRequest",
    "Evaluation",
    "Evaluator",
    "Fitness",
    "Halt",
    "Involvement",
    "JudgeMessage",
    "JudgeVariant",
    "Limits",
    "LimitsError",
    "LoopState",
    "MessageError",
    "MessageKind",
    "MessageType",
    "Meta",
    "Pending",
    "RecordedTournament",
    "Reputation",
    "ReputationBook",
    "ReputationChange",
    "ReputationEvent",
    "ReputationMetrics",
    "Review",
    "ReviewRequest",
    "Rewrite",
    "RewriteRequest",
    "Rewriter",
    "Role",
    "RoleFailure",
    "RoleModels",
    "Stage",
    "Standing",
    "StoredCycle",
    "StoredCycleEvent",
    "Technique",
    "TournamentResult",
    "VariantError",
    "approve_cycle",
    "check_breakers",
    "generate_variants",
    "involvement",
    "load_cases",
    "load_ground_truth",
    "load_variants",
    "meta_reviews",
    "needs_approval",
    "outcome_of",
    "parse_message",
    "record_tournament",
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
    "tournament_event_id",
    "tournament_of",
    "variant_judge_id",
]
