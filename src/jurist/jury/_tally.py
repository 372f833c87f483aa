"""What every strategy does before and after it decides: sort ballots into votes, build results.

Weight-0 ballots are set aside first, errors are handled by the ErrorPolicy next, and only
then do strategies count. That order is what makes the policies mean the same thing in
every strategy.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jurist.core import Check, Judgment, Score, Status, Usage, normalize
from jurist.jury._ballot import Ballot
from jurist.jury._policies import ErrorPolicy


@dataclass(frozen=True)
class Vote:
    """An eligible PASS or FAIL vote. `from_error` marks an ERROR counted as FAIL."""

    ballot: Ballot
    passed: bool
    from_error: bool = False

    @property
    def name(self) -> str:
        return self.ballot.name

    @property
    def weight(self) -> float:
        return self.ballot.weight

    def value(self, category_map: Mapping[str, float] | None) -> float:
        """The vote on a 0..1 scale: its normalised score, else 1.0 for PASS, 0.0 for FAIL."""
        # A broken judge's score (if any) measured nothing; as a failing vote it is worth 0.
        if self.from_error:
            return 0.0
        score = self.ballot.judgment.score
        if score is not None:
            return normalize(score, category_map)
        return 1.0 if self.passed else 0.0


@dataclass(frozen=True)
class Tally:
    """Ballots sorted by what they count as, under one strategy and error policy."""

    strategy: str
    policy: ErrorPolicy
    ballots: tuple[Ballot, ...]
    votes: tuple[Vote, ...]
    abstained: tuple[Ballot, ...]
    errored: tuple[Ballot, ...]
    ignored: tuple[Ballot, ...]

    @property
    def pass_weight(self) -> float:
        return math.fsum(v.weight for v in self.votes if v.passed)

    @property
    def fail_weight(self) -> float:
        return math.fsum(v.weight for v in self.votes if not v.passed)

    def settled(self) -> Judgment | None:
        """The result if the error policy or a lack of votes decides it, else None."""
        if self.errored and self.policy is ErrorPolicy.PROPAGATE:
            return self.error(f"errored: {describe(self.errored)}")
        nothing_else = not self.votes and not self.abstained
        if self.errored and self.policy is ErrorPolicy.IGNORE and nothing_else:
            return self.error(f"nothing but errors to count: {describe(self.errored)}")
        if not self.votes:
            return self.result(Status.ABSTAIN, f"no votes to count ({self.summary()})")
        return None

    def summary(self) -> str:
        parts = [f"pass {self.pass_weight:g}", f"fail {self.fail_weight:g}"]
        if self.abstained:
            parts.append(f"{len(self.abstained)} abstained")
        if self.errored:
            parts.append(f"{len(self.errored)} errored ({self.policy.value})")
        if self.ignored:
            parts.append(f"{len(self.ignored)} ignored")
        return ", ".join(parts)

    def metadata(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "pass": self.pass_weight,
            "fail": self.fail_weight,
            "abstain": len(self.abstained),
            "error": len(self.errored),
            "ignored": len(self.ignored),
            "error_policy": self.policy.value,
        }

    def result(
        self,
        status: Status,
        reasoning: str,
        *,
        score: Score | None = None,
        confidence: float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Judgment:
        return Judgment(
            status,
            score,
            reasoning,
            tuple(ballot_check(b) for b in self.ballots),
            confidence,
            Usage.total(b.judgment.usage for b in self.ballots),
            {**self.metadata(), **(extra or {})},
        )

    def error(self, reasoning: str) -> Judgment:
        causes = {
            b.name: {
                "reasoning": b.judgment.reasoning,
                "error": dict(b.judgment.error_info) if b.judgment.error_info else None,
            }
            for b in self.errored
        }
        return Judgment.error(
            reasoning,
            checks=(ballot_check(b) for b in self.ballots),
            usage=Usage.total(b.judgment.usage for b in self.ballots),
            metadata={**self.metadata(), "errors": causes},
        )


def tally(strategy: str, ballots: Sequence[Ballot], policy: ErrorPolicy) -> Tally:
    """Sort `ballots` into votes, abstentions, errors and ignored ballots."""
    votes: list[Vote] = []
    abstained: list[Ballot] = []
    errored: list[Ballot] = []
    ignored: list[Ballot] = []
    for ballot in ballots:
        status = ballot.judgment.status
        if ballot.weight == 0:
            ignored.append(ballot)
        elif status in (Status.PASS, Status.FAIL):
            votes.append(Vote(ballot, status is Status.PASS))
        elif status is Status.ABSTAIN:
            abstained.append(ballot)
        else:
            errored.append(ballot)
            if policy is ErrorPolicy.TREAT_AS_FAIL:
                votes.append(Vote(ballot, passed=False, from_error=True))
            elif policy is ErrorPolicy.TREAT_AS_ABSTAIN:
                abstained.append(ballot)
            elif policy is ErrorPolicy.IGNORE:
                ignored.append(ballot)
    return Tally(
        strategy,
        policy,
        tuple(ballots),
        tuple(votes),
        tuple(abstained),
        tuple(errored),
        tuple(ignored),
    )


def ballot_check(ballot: Ballot) -> Check:
    return Check.of(ballot.name, ballot.judgment)


def describe(ballots: Sequence[Ballot]) -> str:
    """`a (why), b` - names with their reasoning, for messages."""
    return ", ".join(
        f"{b.name} ({b.judgment.reasoning})" if b.judgment.reasoning else b.name for b in ballots
    )
