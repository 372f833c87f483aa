"""Properties every strategy must have, checked on generated ballots.

Order and weight scale never matter, abstentions never count against a verdict, and each
error policy means what it says.
"""

from collections.abc import Sequence
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jurist.core import (
    BooleanScore,
    CategoricalScore,
    Judgment,
    NumericScore,
    Status,
)
from jurist.jury import (
    Average,
    Ballot,
    Consensus,
    ErrorPolicy,
    Majority,
    Median,
    TiePolicy,
    VotingStrategy,
    WeightedAverage,
)

CATEGORIES = ("good", "ok", "bad")
CATEGORY_MAP = {"good": 1.0, "ok": 0.5, "bad": 0.0}

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
scores = st.one_of(
    st.none(),
    st.builds(BooleanScore, st.booleans()),
    st.builds(NumericScore, unit),
    st.builds(CategoricalScore, st.sampled_from(CATEGORIES), st.just(CATEGORIES)),
)
judgments = st.one_of(
    st.builds(lambda s: Judgment.ok(score=s), scores),
    st.builds(lambda s: Judgment.fail(score=s), scores),
    st.just(Judgment.abstain("unsure")),
    st.just(Judgment.error("broke", RuntimeError("down"))),
)
# Bounded so that scaling cannot underflow or overflow a float.
weights = st.one_of(st.just(0.0), st.floats(min_value=0.01, max_value=100.0))
positive_weights = st.floats(min_value=0.01, max_value=100.0)
factors = st.floats(min_value=0.01, max_value=100.0)
error_policies = st.sampled_from(ErrorPolicy)


def voting(errors: st.SearchStrategy[ErrorPolicy]) -> st.SearchStrategy[VotingStrategy]:
    return st.one_of(
        st.builds(Majority, tie=st.sampled_from(TiePolicy), errors=errors),
        st.builds(Consensus, errors=errors),
        st.builds(Average, threshold=unit, errors=errors, category_map=st.just(CATEGORY_MAP)),
        st.builds(
            WeightedAverage, threshold=unit, errors=errors, category_map=st.just(CATEGORY_MAP)
        ),
        st.builds(Median, threshold=unit, errors=errors, category_map=st.just(CATEGORY_MAP)),
    )


@st.composite
def ballot_lists(
    draw: st.DrawFn,
    judgment: st.SearchStrategy[Judgment] = judgments,
    weight: st.SearchStrategy[float] = weights,
    max_size: int = 8,
) -> list[Ballot]:
    drawn = draw(st.lists(st.tuples(judgment, weight), max_size=max_size))
    return [Ballot(f"j{i}", j, w) for i, (j, w) in enumerate(drawn)]


def outcome(result: Judgment) -> tuple[Status, object, float | None]:
    return result.status, result.score, result.confidence


def assert_same_up_to_rounding(a: Judgment, b: Judgment) -> None:
    assert a.status is b.status
    assert type(a.score) is type(b.score)
    if isinstance(a.score, NumericScore):
        assert isinstance(b.score, NumericScore)
        assert a.score.value == pytest.approx(b.score.value, rel=1e-9, abs=1e-12)
    else:
        assert a.score == b.score
    if a.confidence is None:
        assert b.confidence is None
    else:
        assert b.confidence == pytest.approx(a.confidence, rel=1e-9)


def replaced(ballots: Sequence[Ballot], by: Judgment) -> list[Ballot]:
    return [
        Ballot(b.name, by, b.weight) if b.judgment.status is Status.ERROR else b for b in ballots
    ]


@settings(max_examples=200)
@given(voting(error_policies), ballot_lists(), st.randoms(use_true_random=False))
def test_order_of_ballots_does_not_matter(
    strategy: VotingStrategy, ballots: list[Ballot], rng: Random
) -> None:
    shuffled = list(ballots)
    rng.shuffle(shuffled)
    assert outcome(strategy.aggregate(shuffled)) == outcome(strategy.aggregate(ballots))


@settings(max_examples=200)
@given(voting(error_policies), ballot_lists(), factors)
def test_scaling_all_weights_does_not_matter(
    strategy: VotingStrategy, ballots: list[Ballot], factor: float
) -> None:
    scaled = [Ballot(b.name, b.judgment, b.weight * factor) for b in ballots]
    assert_same_up_to_rounding(strategy.aggregate(scaled), strategy.aggregate(ballots))


@settings(max_examples=200)
@given(
    voting(error_policies),
    ballot_lists(),
    st.lists(weights, min_size=1, max_size=4),
)
def test_abstentions_never_change_a_decided_verdict(
    strategy: VotingStrategy, ballots: list[Ballot], abstainers: list[float]
) -> None:
    before = strategy.aggregate(ballots)
    extra = [Ballot(f"a{i}", Judgment.abstain(), w) for i, w in enumerate(abstainers)]
    after = strategy.aggregate([*ballots, *extra])
    if before.status in (Status.PASS, Status.FAIL):
        assert outcome(after) == outcome(before)
    assert not (before.passed and after.status is Status.FAIL)


@settings(max_examples=150)
@given(voting(st.just(ErrorPolicy.TREAT_AS_FAIL)), ballot_lists())
def test_treat_as_fail_is_the_same_as_fail_votes(
    strategy: VotingStrategy, ballots: list[Ballot]
) -> None:
    expected = strategy.aggregate(replaced(ballots, Judgment.fail()))
    assert outcome(strategy.aggregate(ballots)) == outcome(expected)


@settings(max_examples=150)
@given(voting(st.just(ErrorPolicy.TREAT_AS_ABSTAIN)), ballot_lists())
def test_treat_as_abstain_is_the_same_as_abstaining(
    strategy: VotingStrategy, ballots: list[Ballot]
) -> None:
    expected = strategy.aggregate(replaced(ballots, Judgment.abstain()))
    assert outcome(strategy.aggregate(ballots)) == outcome(expected)


@settings(max_examples=150)
@given(voting(st.just(ErrorPolicy.IGNORE)), ballot_lists())
def test_ignore_is_the_same_as_leaving_errors_out(
    strategy: VotingStrategy, ballots: list[Ballot]
) -> None:
    result = strategy.aggregate(ballots)
    voting_errors = [b for b in ballots if b.judgment.status is Status.ERROR and b.weight > 0]
    voting_others = [b for b in ballots if b.judgment.status is not Status.ERROR and b.weight > 0]
    if voting_errors and not voting_others:
        assert result.status is Status.ERROR
    else:
        rest = [b for b in ballots if b.judgment.status is not Status.ERROR]
        assert outcome(result) == outcome(strategy.aggregate(rest))


@settings(max_examples=150)
@given(voting(st.just(ErrorPolicy.PROPAGATE)), ballot_lists())
def test_propagate_errors_whenever_an_error_votes(
    strategy: VotingStrategy, ballots: list[Ballot]
) -> None:
    result = strategy.aggregate(ballots)
    voting_errors = [b for b in ballots if b.judgment.status is Status.ERROR and b.weight > 0]
    if voting_errors:
        assert result.status is Status.ERROR
        assert set(result.metadata["errors"]) == {b.name for b in voting_errors}
    else:
        assert result.status is not Status.ERROR


@settings(max_examples=150)
@given(voting(st.just(ErrorPolicy.TREAT_AS_FAIL)), ballot_lists(weight=positive_weights))
def test_an_error_never_helps_a_verdict_pass_under_the_default_policy(
    strategy: VotingStrategy, ballots: list[Ballot]
) -> None:
    # Replacing an error by a PASS can only help; counting it as FAIL never beats that.
    with_errors = strategy.aggregate(ballots)
    if with_errors.passed:
        assert strategy.aggregate(replaced(ballots, Judgment.ok())).passed


@settings(max_examples=100)
@given(
    ballot_lists(judgment=st.sampled_from([Judgment.ok(), Judgment.fail()]), weight=st.just(1.0))
)
def test_equal_weights_make_majority_a_plain_count(ballots: list[Ballot]) -> None:
    passes = sum(b.judgment.passed for b in ballots)
    fails = len(ballots) - passes
    result = Majority(tie=TiePolicy.ABSTAIN).aggregate(ballots)
    expected = Status.PASS if passes > fails else Status.FAIL if fails > passes else Status.ABSTAIN
    assert result.status is expected
