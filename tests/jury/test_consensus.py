"""Consensus: unanimous votes decide, any dissent fails and is named."""

import pytest

from jurist.core import BooleanScore, Judgment, Status
from jurist.jury import Ballot, Consensus, ErrorPolicy


def test_unanimous_pass() -> None:
    result = Consensus().aggregate([Ballot("a", Judgment.ok()), Ballot("b", Judgment.ok())])
    assert result.status is Status.PASS
    assert result.score == BooleanScore(True)


def test_unanimous_fail() -> None:
    result = Consensus().aggregate([Ballot("a", Judgment.fail()), Ballot("b", Judgment.fail())])
    assert result.status is Status.FAIL
    assert "failed" not in result.metadata
    assert "no consensus" not in result.reasoning


def test_dissent_fails_and_names_both_sides() -> None:
    result = Consensus().aggregate(
        [
            Ballot("alice", Judgment.ok()),
            Ballot("bob", Judgment.fail("too long")),
            Ballot("carol", Judgment.ok()),
        ]
    )
    assert result.status is Status.FAIL
    assert "passed: alice, carol" in result.reasoning
    assert "failed: bob (too long)" in result.reasoning
    assert result.metadata["passed"] == ("alice", "carol")
    assert result.metadata["failed"] == ("bob",)


def test_abstentions_and_zero_weights_do_not_break_consensus() -> None:
    result = Consensus().aggregate(
        [
            Ballot("a", Judgment.ok()),
            Ballot("b", Judgment.abstain("unsure")),
            Ballot("c", Judgment.fail(), weight=0.0),
        ]
    )
    assert result.status is Status.PASS


def test_an_error_dissents_by_default() -> None:
    ballots = [Ballot("a", Judgment.ok()), Ballot("b", Judgment.error("down"))]
    result = Consensus().aggregate(ballots)
    assert result.status is Status.FAIL
    assert "failed: b (down)" in result.reasoning
    assert Consensus(errors=ErrorPolicy.IGNORE).aggregate(ballots).status is Status.PASS


@pytest.mark.parametrize("ballots", [[], [Ballot("a", Judgment.abstain())]])
def test_no_votes_abstains(ballots: list[Ballot]) -> None:
    assert Consensus().aggregate(ballots).status is Status.ABSTAIN
