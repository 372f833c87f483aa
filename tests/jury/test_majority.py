"""Majority: weighted PASS vs FAIL, ties by policy, abstentions and zero weights left out."""

from typing import Any

import pytest

from jurist.core import BooleanScore, Check, Judgment, Status, Usage
from jurist.jury import Ballot, Majority, TiePolicy


def ballot(name: str, status: Status, weight: float = 1.0, **fields: Any) -> Ballot:
    return Ballot(name, Judgment(status, **fields), weight)


P, F, A = Status.PASS, Status.FAIL, Status.ABSTAIN


@pytest.mark.parametrize("tie", list(TiePolicy))
@pytest.mark.parametrize(
    ("statuses", "expected"),
    [([P, P, F], Status.PASS), ([P, F, F], Status.FAIL), ([P, P, P], Status.PASS)],
)
def test_no_tie_ignores_the_tie_policy(
    tie: TiePolicy, statuses: list[Status], expected: Status
) -> None:
    ballots = [ballot(f"j{i}", s) for i, s in enumerate(statuses)]
    result = Majority(tie=tie).aggregate(ballots)
    assert result.status is expected
    assert result.score == BooleanScore(expected is Status.PASS)
    winning = max(statuses.count(P), statuses.count(F))
    assert result.confidence == pytest.approx(winning / len(statuses))


@pytest.mark.parametrize(
    ("tie", "expected"),
    [(TiePolicy.PASS, Status.PASS), (TiePolicy.FAIL, Status.FAIL), (TiePolicy.ABSTAIN, A)],
)
def test_tie_is_settled_by_the_tie_policy(tie: TiePolicy, expected: Status) -> None:
    result = Majority(tie=tie).aggregate([ballot("a", P), ballot("b", F)])
    assert result.status is expected
    assert "tie" in result.reasoning
    if expected is A:
        assert result.confidence is None
        assert result.score is None
    else:
        assert result.confidence == pytest.approx(0.5)


def test_default_tie_policy_is_fail() -> None:
    assert Majority().aggregate([ballot("a", P), ballot("b", F)]).status is Status.FAIL


def test_weights_decide_and_set_confidence() -> None:
    ballots = [ballot("a", P), ballot("b", P), ballot("c", F, weight=3.0)]
    result = Majority().aggregate(ballots)
    assert result.status is Status.FAIL
    assert result.confidence == pytest.approx(0.6)
    assert result.metadata["pass"] == 2.0
    assert result.metadata["fail"] == 3.0


def test_float_noise_in_weights_is_still_a_tie() -> None:
    # 0.1 + 0.2 != 0.3 in floats; the user meant a tie
    ballots = [ballot("a", P, 0.1), ballot("b", P, 0.2), ballot("c", F, 0.3)]
    assert Majority(tie=TiePolicy.ABSTAIN).aggregate(ballots).status is Status.ABSTAIN
    assert Majority(tie=TiePolicy.PASS).aggregate(ballots).status is Status.PASS


def test_abstentions_are_not_failing_votes() -> None:
    ballots = [ballot("a", P), *(ballot(f"x{i}", A) for i in range(5))]
    result = Majority().aggregate(ballots)
    assert result.status is Status.PASS
    assert result.confidence == 1.0
    assert result.metadata["abstain"] == 5


@pytest.mark.parametrize("ballots", [[], [ballot("a", A), ballot("b", A)]])
def test_no_votes_abstains(ballots: list[Ballot]) -> None:
    result = Majority(tie=TiePolicy.PASS).aggregate(ballots)
    assert result.status is Status.ABSTAIN
    assert result.confidence is None


def test_zero_weight_ballots_do_not_vote() -> None:
    ballots = [ballot("a", P), ballot("b", F, 0.0), ballot("c", F, 0.0)]
    result = Majority().aggregate(ballots)
    assert result.status is Status.PASS
    assert result.metadata["ignored"] == 2
    # still reported among the checks
    assert [c.name for c in result.checks] == ["a", "b", "c"]


def test_only_zero_weights_abstains() -> None:
    result = Majority().aggregate([ballot("a", P, 0.0), ballot("b", F, 0.0)])
    assert result.status is Status.ABSTAIN


def test_result_carries_tallies_checks_and_usage() -> None:
    ballots = [
        ballot("a", P, reasoning="fine", usage=Usage(10, 5, cost_usd=0.01)),
        ballot("b", F, usage=Usage(1, 1, cost_usd=0.02)),
        ballot("c", A),
    ]
    result = Majority(tie=TiePolicy.PASS).aggregate(ballots)
    assert result.checks == (
        Check("a", True, "pass: fine"),
        Check("b", False, "fail"),
        Check("c", False, "abstain"),
    )
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (11, 6)
    assert result.usage.cost_usd == pytest.approx(0.03)
    assert result.metadata["strategy"] == "majority"
    assert result.metadata["tie"] == "pass"
    assert (result.metadata["abstain"], result.metadata["error"]) == (1, 0)


def test_ballot_rejects_bad_weights() -> None:
    for weight in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="'a'"):
            Ballot("a", Judgment.ok(), weight)
