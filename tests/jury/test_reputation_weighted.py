"""ReputationWeighted: votes weighed by the judges' reputations, read at every verdict."""

from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fakes import Fixed, Raising
from jurist.core import Context, Judgment, NumericScore, Status
from jurist.jury import (
    Ballot,
    ErrorPolicy,
    Jury,
    MissingReputation,
    ReputationSource,
    ReputationWeighted,
    WeightedAverage,
)

CTX = Context("say hello", "hello")
SPEC_EXAMPLE = {"a": 0.9, "b": 0.7, "c": 0.5}


def scored(name: str, value: float, weight: float = 1.0) -> Ballot:
    return Ballot(name, Judgment.ok(score=NumericScore(value)), weight)


def centre_of(result: Judgment) -> float:
    assert isinstance(result.score, NumericScore)
    return result.score.value


class Live:
    """A reputation source whose weights change under the strategy's feet."""

    def __init__(self, weights: Mapping[str, float]) -> None:
        self.current = dict(weights)
        self.reads = 0

    def weights(self) -> Mapping[str, float]:
        self.reads += 1
        return self.current


def test_the_specs_worked_example() -> None:
    ballots = [scored("a", 0.8), scored("b", 0.6), scored("c", 0.4)]
    result = ReputationWeighted(SPEC_EXAMPLE).aggregate(ballots)
    assert centre_of(result) == pytest.approx(1.34 / 2.1)
    assert centre_of(result) == pytest.approx(0.638095238)
    assert result.status is Status.PASS
    assert result.metadata["reputations"] == SPEC_EXAMPLE
    assert result.metadata["strategy"] == "reputation_weighted"


@pytest.mark.parametrize(("threshold", "expected"), [(0.6, Status.PASS), (0.65, Status.FAIL)])
async def test_the_specs_worked_example_in_a_jury_of_three(
    threshold: float, expected: Status
) -> None:
    judges = [
        Fixed("a", Judgment.ok(score=NumericScore(0.8))),
        Fixed("b", Judgment.ok(score=NumericScore(0.6))),
        Fixed("c", Judgment.fail(score=NumericScore(0.4))),
    ]
    verdict = await Jury(judges, ReputationWeighted(SPEC_EXAMPLE, threshold)).vote(CTX)
    assert centre_of(verdict.aggregated) == pytest.approx(1.34 / 2.1)
    assert verdict.aggregated.status is expected
    assert [j.status for j in verdict.individual] == [Status.PASS, Status.PASS, Status.FAIL]


async def test_reputations_are_read_at_every_verdict() -> None:
    source = Live({"a": 1.0, "b": 0.0})
    assert isinstance(source, ReputationSource)
    jury = Jury(
        [Fixed("a", Judgment.ok(score=NumericScore(1.0))), Fixed("b", Judgment.fail())],
        ReputationWeighted(source),
    )
    assert (await jury.judge(CTX)).status is Status.PASS
    source.current = {"a": 0.2, "b": 0.8}
    second = await jury.judge(CTX)
    assert second.status is Status.FAIL
    assert centre_of(second) == pytest.approx(0.2)
    assert source.reads == 2


def test_a_mapping_is_read_live_too() -> None:
    reputations = {"a": 0.9, "b": 0.1}
    strategy = ReputationWeighted(reputations)
    ballots = [scored("a", 1.0), scored("b", 0.0)]
    assert centre_of(strategy.aggregate(ballots)) == pytest.approx(0.9)
    reputations["a"] = 0.1
    assert centre_of(strategy.aggregate(ballots)) == pytest.approx(0.5)


def test_a_missing_judge_gets_the_default() -> None:
    ballots = [scored("a", 1.0), scored("stranger", 0.0)]
    result = ReputationWeighted({"a": 0.5}).aggregate(ballots)
    assert centre_of(result) == pytest.approx(0.5)
    assert result.metadata["reputations"] == {"a": 0.5, "stranger": 0.5}
    result = ReputationWeighted({"a": 0.5}, default=0.25).aggregate(ballots)
    assert centre_of(result) == pytest.approx(0.5 / 0.75)


async def test_a_missing_judge_can_be_an_error_that_names_it() -> None:
    strategy = ReputationWeighted({"a": 0.5}, missing=MissingReputation.RAISE)
    with pytest.raises(LookupError, match="'stranger'"):
        strategy.aggregate([scored("a", 1.0), scored("stranger", 0.0)])
    jury = Jury([Fixed("a", Judgment.ok()), Fixed("stranger", Judgment.ok())], strategy)
    verdict = await jury.vote(CTX)
    assert verdict.aggregated.status is Status.ERROR
    assert "'stranger'" in verdict.aggregated.reasoning
    assert len(verdict.individual) == 2  # the judgments are kept


def test_the_jurys_own_weights_multiply_the_reputations() -> None:
    ballots = [scored("a", 1.0, weight=2.0), scored("b", 0.0, weight=1.0)]
    result = ReputationWeighted({"a": 0.5, "b": 0.5}).aggregate(ballots)
    assert centre_of(result) == pytest.approx(2 / 3)


def test_a_judge_of_reputation_zero_does_not_vote_not_even_its_error() -> None:
    ballots = [scored("a", 0.9), Ballot("broken", Judgment.error("down"))]
    result = ReputationWeighted({"a": 0.8, "broken": 0.0}).aggregate(ballots)
    assert centre_of(result) == pytest.approx(0.9)
    assert result.metadata["ignored"] == 1
    assert result.status is Status.PASS


def test_everyone_at_reputation_zero_abstains() -> None:
    result = ReputationWeighted({"a": 0.0}).aggregate([scored("a", 1.0)])
    assert result.status is Status.ABSTAIN


def test_an_abstention_is_not_a_failing_vote() -> None:
    ballots = [scored("a", 0.9), Ballot("b", Judgment.abstain("unsure"))]
    result = ReputationWeighted({"a": 0.5, "b": 1.0}, threshold=0.8).aggregate(ballots)
    assert result.status is Status.PASS
    assert centre_of(result) == pytest.approx(0.9)


@pytest.mark.parametrize(
    ("policy", "status", "centre"),
    [
        (ErrorPolicy.TREAT_AS_FAIL, Status.FAIL, 0.75 * 1.0 / 1.0),
        (ErrorPolicy.TREAT_AS_ABSTAIN, Status.PASS, 1.0),
        (ErrorPolicy.IGNORE, Status.PASS, 1.0),
        (ErrorPolicy.PROPAGATE, Status.ERROR, None),
    ],
)
async def test_errors_follow_the_error_policy(
    policy: ErrorPolicy, status: Status, centre: float | None
) -> None:
    jury = Jury(
        [Fixed("good", Judgment.ok(score=NumericScore(1.0))), Raising("broken")],
        ReputationWeighted({"good": 0.75, "broken": 0.25}, threshold=0.8, errors=policy),
    )
    result = await jury.judge(CTX)
    assert result.status is status
    if centre is not None:
        assert centre_of(result) == pytest.approx(centre)


def test_with_equal_reputations_it_is_the_weighted_average() -> None:
    ballots = [scored("a", 0.3, 2.0), scored("b", 0.9, 1.0), Ballot("c", Judgment.fail(), 0.5)]
    ours = ReputationWeighted({"a": 0.6, "b": 0.6, "c": 0.6}).aggregate(ballots)
    theirs = WeightedAverage().aggregate(ballots)
    assert centre_of(ours) == pytest.approx(centre_of(theirs))
    assert ours.status is theirs.status


@pytest.mark.parametrize("value", [1.5, -0.1, float("nan"), float("inf"), True, "0.5"])
def test_a_bad_reputation_is_an_error_naming_the_judge(value: object) -> None:
    strategy = ReputationWeighted({"a": value})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="reputation of judge 'a'"):
        strategy.aggregate([scored("a", 1.0)])


def test_construction_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match="reputations must be a mapping"):
        ReputationWeighted([0.5, 0.5])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="default"):
        ReputationWeighted({}, default=1.5)
    with pytest.raises(ValueError, match="missing must be one of"):
        ReputationWeighted({}, missing="ignore")
    with pytest.raises(ValueError, match="threshold"):
        ReputationWeighted({}, threshold=2.0)
    with pytest.raises(ValueError, match="category_map"):
        ReputationWeighted({}, category_map={"good": 3.0})


def test_a_weights_method_that_returns_no_mapping_is_an_error() -> None:
    class Broken:
        def weights(self) -> list[float]:
            return [0.5]

    with pytest.raises(TypeError, match=r"weights\(\) must return a mapping"):
        ReputationWeighted(Broken()).aggregate([scored("a", 1.0)])  # type: ignore[arg-type]


def test_it_is_hashable_and_equal_by_its_settings() -> None:
    a = ReputationWeighted({"x": 0.1}, 0.7, missing="raise")
    b = ReputationWeighted({"y": 0.9}, 0.7, missing=MissingReputation.RAISE)
    assert a == b  # the reputations are read live, not part of the settings
    assert hash(a) == hash(b)
    assert a != ReputationWeighted({"x": 0.1}, 0.6)


names = st.sampled_from(["a", "b", "c", "d", "e"])
reputation_maps = st.dictionaries(names, st.floats(0.01, 1.0), min_size=5, max_size=5)
judgments = st.one_of(
    st.builds(lambda v: Judgment.ok(score=NumericScore(v)), st.floats(0.0, 1.0)),
    st.builds(lambda v: Judgment.fail(score=NumericScore(v)), st.floats(0.0, 1.0)),
    st.just(Judgment.abstain("unsure")),
    st.just(Judgment.error("broke")),
)


@given(
    st.lists(judgments, min_size=1, max_size=5),
    reputation_maps,
    st.floats(0.01, 1.0),
    st.randoms(use_true_random=False),
    st.sampled_from(ErrorPolicy),
)
def test_order_and_scaling_every_reputation_change_nothing(
    drawn: list[Judgment],
    reputations: dict[str, float],
    factor: float,
    random: object,
    policy: ErrorPolicy,
) -> None:
    ballots = [Ballot(name, j) for name, j in zip("abcde", drawn, strict=False)]
    base = ReputationWeighted(reputations, errors=policy).aggregate(ballots)
    shuffled = list(ballots)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    scaled = {name: value * factor for name, value in reputations.items()}
    for other in (
        ReputationWeighted(reputations, errors=policy).aggregate(shuffled),
        ReputationWeighted(scaled, errors=policy).aggregate(ballots),
    ):
        assert other.status is base.status
        if base.score is None:
            assert other.score is None
        else:
            assert centre_of(other) == pytest.approx(centre_of(base), abs=1e-9)
