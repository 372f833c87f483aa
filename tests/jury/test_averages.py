"""Average, WeightedAverage and Median: a central value of normalised scores vs a threshold."""

import math

import pytest

from jurist.core import BooleanScore, CategoricalScore, Judgment, NumericScore, Status
from jurist.jury import Average, Ballot, ErrorPolicy, Median, WeightedAverage

Kind = type[Average] | type[WeightedAverage] | type[Median]
STRATEGIES: list[Kind] = [Average, WeightedAverage, Median]


def scored(name: str, value: float, weight: float = 1.0) -> Ballot:
    return Ballot(name, Judgment.ok(score=NumericScore(value)), weight)


def centre_of(result: Judgment) -> float:
    assert isinstance(result.score, NumericScore)
    return result.score.value


@pytest.mark.parametrize("kind", STRATEGIES)
@pytest.mark.parametrize(
    ("threshold", "expected"),
    [(0.5, Status.PASS), (0.49, Status.PASS), (0.51, Status.FAIL)],
    ids=["at", "above", "below"],
)
def test_threshold_at_above_below(kind: Kind, threshold: float, expected: Status) -> None:
    # centre 0.5 for every strategy: mean (0.2+0.5+0.8)/3, median 0.5
    ballots = [scored("a", 0.2), scored("b", 0.5), scored("c", 0.8)]
    result = kind(threshold=threshold).aggregate(ballots)
    assert result.status is expected
    assert centre_of(result) == pytest.approx(0.5)
    assert result.metadata["threshold"] == threshold


def test_float_noise_just_below_the_threshold_still_reaches_it() -> None:
    ballots = [scored("a", 0.1), scored("b", 0.7)]
    assert math.fsum([0.1, 0.7]) / 2 < 0.4  # the noise this guards against
    assert Average(threshold=0.4).aggregate(ballots).status is Status.PASS


def test_average_is_unweighted_and_weighted_average_is_not() -> None:
    ballots = [scored("a", 1.0, weight=3.0), scored("b", 0.0, weight=1.0)]
    assert centre_of(Average().aggregate(ballots)) == pytest.approx(0.5)
    assert centre_of(WeightedAverage().aggregate(ballots)) == pytest.approx(0.75)
    assert WeightedAverage(threshold=0.7).aggregate(ballots).status is Status.PASS
    assert Average(threshold=0.7).aggregate(ballots).status is Status.FAIL


def test_median_resists_an_outlier() -> None:
    ballots = [scored("a", 0.8), scored("b", 0.9), scored("c", 0.0)]
    assert Median(threshold=0.7).aggregate(ballots).status is Status.PASS
    assert Average(threshold=0.7).aggregate(ballots).status is Status.FAIL


def test_median_of_an_even_count_is_the_midpoint() -> None:
    ballots = [scored("a", 0.2), scored("b", 0.4), scored("c", 0.6), scored("d", 1.0)]
    assert centre_of(Median().aggregate(ballots)) == pytest.approx(0.5)


@pytest.mark.parametrize("kind", STRATEGIES)
def test_votes_without_scores_count_one_for_pass_zero_for_fail(kind: Kind) -> None:
    ballots = [
        Ballot("a", Judgment.ok()),
        Ballot("b", Judgment.ok()),
        Ballot("c", Judgment.fail()),
        Ballot("d", Judgment.ok(score=BooleanScore(False))),  # the score wins over the status
    ]
    result = kind().aggregate(ballots)
    assert result.metadata["values"] == {"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.0}
    assert result.status is Status.PASS


def test_numeric_scores_are_normalised_to_their_range() -> None:
    ballots = [Ballot("a", Judgment.ok(score=NumericScore(4, 1, 5)))]
    assert centre_of(Average().aggregate(ballots)) == pytest.approx(0.75)


@pytest.mark.parametrize("kind", STRATEGIES)
def test_abstentions_and_zero_weights_are_left_out(kind: Kind) -> None:
    ballots = [
        scored("a", 0.9),
        Ballot("b", Judgment.abstain()),
        scored("c", 0.0, weight=0.0),
    ]
    result = kind(threshold=0.8).aggregate(ballots)
    assert result.status is Status.PASS
    assert centre_of(result) == pytest.approx(0.9)


@pytest.mark.parametrize("kind", STRATEGIES)
def test_an_error_counts_zero_by_default(kind: Kind) -> None:
    ballots = [scored("a", 1.0), scored("b", 1.0), Ballot("c", Judgment.error("down"))]
    result = kind(threshold=0.9).aggregate(ballots)
    assert result.metadata["values"]["c"] == 0.0
    assert centre_of(result) == pytest.approx(1.0 if kind is Median else 2 / 3)


CATEGORIES = ("good", "ok", "bad")
CATEGORY_MAP = {"good": 1.0, "ok": 0.6, "bad": 0.0}


def graded(name: str, grade: str) -> Ballot:
    return Ballot(name, Judgment.ok(score=CategoricalScore(grade, CATEGORIES)))


@pytest.mark.parametrize("kind", STRATEGIES)
def test_category_map_normalises_categorical_scores(kind: Kind) -> None:
    ballots = [graded("a", "ok"), graded("b", "ok"), graded("c", "good")]
    result = kind(threshold=0.7, category_map=CATEGORY_MAP).aggregate(ballots)
    expected = 0.6 if kind is Median else (0.6 + 0.6 + 1.0) / 3
    assert centre_of(result) == pytest.approx(expected)
    assert result.status is (Status.FAIL if kind is Median else Status.PASS)


@pytest.mark.parametrize("kind", STRATEGIES)
def test_categorical_score_without_map_raises(kind: Kind) -> None:
    with pytest.raises(ValueError, match="category_map"):
        kind().aggregate([graded("a", "ok")])


def test_category_missing_from_the_map_raises() -> None:
    with pytest.raises(ValueError, match="'bad'"):
        Average(category_map={"good": 1.0}).aggregate([graded("a", "bad")])


@pytest.mark.parametrize("kind", STRATEGIES)
@pytest.mark.parametrize("threshold", [-0.01, 1.01, float("nan"), float("inf"), "0.5", True])
def test_threshold_outside_zero_one_is_rejected(kind: Kind, threshold: object) -> None:
    with pytest.raises(ValueError, match="threshold"):
        kind(threshold=threshold)  # type: ignore[arg-type]


@pytest.mark.parametrize("threshold", [0.0, 1.0])
def test_threshold_bounds_are_allowed(threshold: float) -> None:
    ballots = [scored("a", 0.0)]
    expected = Status.PASS if threshold == 0.0 else Status.FAIL
    assert Average(threshold=threshold).aggregate(ballots).status is expected


def test_category_map_values_outside_zero_one_are_rejected() -> None:
    with pytest.raises(ValueError, match="'good'"):
        Average(category_map={"good": 2.0})


def test_category_map_is_frozen() -> None:
    source = {"good": 1.0}
    strategy = Average(category_map=source)
    source["good"] = 0.0
    assert strategy.category_map == {"good": 1.0}


@pytest.mark.parametrize("kind", STRATEGIES)
def test_names_are_stable(kind: Kind) -> None:
    names = {Average: "average", WeightedAverage: "weighted_average", Median: "median"}
    result = kind().aggregate([scored("a", 1.0)])
    assert kind().name == names[kind] == result.metadata["strategy"]


@pytest.mark.parametrize("kind", STRATEGIES)
def test_no_votes_abstains(kind: Kind) -> None:
    result = kind(errors=ErrorPolicy.TREAT_AS_ABSTAIN).aggregate(
        [Ballot("a", Judgment.error("down"))]
    )
    assert result.status is Status.ABSTAIN
    assert result.score is None
