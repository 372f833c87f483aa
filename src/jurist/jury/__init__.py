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
from jurist.jury._verdict import Verdict

__all__ = [
    "Average",
    "Ballot",
    "Cascade",
    "Consensus",
    "ErrorPolicy",
    "Jury",
    "Majority",
    "Median",
    "MissingReputation",
    "ReputationSource",
    "ReputationWeighted",
    "TiePolicy",
    "Tier",
    "TierPolicy",
    "Verdict",
    "VotingStrategy",
    "WeightedAverage",
]
