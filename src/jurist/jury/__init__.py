"""Juries: several judges vote and a strategy aggregates; cascades run juries in tiers.

Strategies (Majority, Consensus, Average, WeightedAverage, Median, ReputationWeighted) see
Ballots and share one set of rules: ABSTAIN never counts as a failure, weight-0 ballots do
not vote, errors are handled by an ErrorPolicy (fail-safe by default), and with no vote
left the result is ABSTAIN.
"""

from jurist.jury._averaging import Average, Median, WeightedAverage
from jurist.jury._ballot import Ballot, VotingStrategy
from jurist.jury._cascade import Cascade, Tier
from jurist.jury._counting import Consensus, Majority
from jurist.jury._jury import Jury
from jurist.jury._policies import ErrorPolicy, TiePolicy, TierPolicy
from jurist.jury._reputation import MissingReputation, ReputationSource, ReputationWeighted
from jurist.jury._spec import (
    MAX_CRITERIA,
    JudgeSpec,
    JudgeSpecError,
    SpecProblem,
    judge_from_spec,
    judge_spec_schema,
    load_judge_spec,
    parse_judge_spec,
)
from jurist.jury._verdict import Verdict

__all__ = [
    "MAX_CRITERIA",
    "Average",
    "Ballot",
    "Cascade",
    "Consensus",
    "ErrorPolicy",
    "JudgeSpec",
    "JudgeSpecError",
    "Jury",
    "Majority",
    "Median",
    "MissingReputation",
    "ReputationSource",
    "ReputationWeighted",
    "SpecProblem",
    "TiePolicy",
    "Tier",
    "TierPolicy",
    "Verdict",
    "VotingStrategy",
    "WeightedAverage",
    "judge_from_spec",
    "judge_spec_schema",
    "load_judge_spec",
    "parse_judge_spec",
]
