"""Strategies that count PASS and FAIL votes: Majority and Consensus."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from jurist.core import BooleanScore, Judgment, Status
from jurist.jury._ballot import Ballot
from jurist.jury._policies import ErrorPolicy, TiePolicy
from jurist.jury._tally import describe, tally

# Weights such as 0.1 + 0.2 against 0.3 are meant as a tie; float noise must not decide.
_TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Majority:
    """PASS when the passing votes outweigh the failing ones, FAIL when they are outweighed.

    Equal weights make this a plain majority. A tie (equal weight, up to float noise) is
    settled by `tie`. Confidence is the winning weight over the weight of all PASS and FAIL
    votes; an ABSTAIN result has none. The score is a BooleanScore of the outcome.
    """

    tie: TiePolicy = TiePolicy.FAIL
    errors: ErrorPolicy = ErrorPolicy.TREAT_AS_FAIL

    @property
    def name(self) -> str:
        return "majority"

    def aggregate(self, ballots: Sequence[Ballot]) -> Judgment:
        counted = tally(self.name, ballots, self.errors)
        settled = counted.settled()
        if settled is not None:
            return settled
        passing, failing = counted.pass_weight, counted.fail_weight
        total = passing + failing
        if math.isclose(passing, failing, rel_tol=_TIE_TOLERANCE):
            if self.tie is TiePolicy.ABSTAIN:
                return counted.result(Status.ABSTAIN, f"tie, abstaining ({counted.summary()})")
            status = Status.PASS if self.tie is TiePolicy.PASS else Status.FAIL
            reasoning = f"tie, settled as {status.value} ({counted.summary()})"
            winning = passing
        else:
            status = Status.PASS if passing > failing else Status.FAIL
            reasoning = f"majority {status.value}ed ({counted.summary()})"
            winning = max(passing, failing)
        return counted.result(
            status,
            reasoning,
            score=BooleanScore(status is Status.PASS),
            confidence=min(1.0, winning / total),
            extra={"tie": self.tie.value},
        )


@dataclass(frozen=True)
class Consensus:
    """PASS only if every vote passes, FAIL if every vote fails; any dissent is a FAIL.

    A dissenting result names who passed and who failed. The score is a BooleanScore of
    the outcome.
    """

    errors: ErrorPolicy = ErrorPolicy.TREAT_AS_FAIL

    @property
    def name(self) -> str:
        return "consensus"

    def aggregate(self, ballots: Sequence[Ballot]) -> Judgment:
        counted = tally(self.name, ballots, self.errors)
        settled = counted.settled()
        if settled is not None:
            return settled
        passed = [v.ballot for v in counted.votes if v.passed]
        failed = [v.ballot for v in counted.votes if not v.passed]
        if not failed:
            return counted.result(
                Status.PASS, f"all {len(passed)} passed", score=BooleanScore(True)
            )
        if not passed:
            return counted.result(
                Status.FAIL, f"all {len(failed)} failed", score=BooleanScore(False)
            )
        return counted.result(
            Status.FAIL,
            f"no consensus: passed: {describe(passed)}; failed: {describe(failed)}",
            score=BooleanScore(False),
            extra={"passed": [b.name for b in passed], "failed": [b.name for b in failed]},
        )
