"""Each ErrorPolicy, with errors present, in every strategy."""

from collections.abc import Callable

import pytest

from jurist.core import Judgment, Status
from jurist.jury import (
    Average,
    Ballot,
    Consensus,
    ErrorPolicy,
    Majority,
    Median,
    VotingStrategy,
    WeightedAverage,
)

Factory = Callable[[ErrorPolicy], VotingStrategy]
FACTORIES: list[Factory] = [
    lambda errors: Majority(errors=errors),
    lambda errors: Consensus(errors=errors),
    lambda errors: Average(errors=errors),
    lambda errors: WeightedAverage(errors=errors),
    lambda errors: Median(errors=errors),
]
IDS = ["majority", "consensus", "average", "weighted_average", "median"]


def broken(name: str) -> Ballot:
    return Ballot(
        name, Judgment.error(f"judge {name!r} raised TimeoutError: slow", TimeoutError("slow"))
    )


# One pass against two errors: only counting the errors as failures can make it FAIL.
MIXED = [Ballot("ok", Judgment.ok()), broken("x"), broken("y")]
ONLY_ERRORS = [broken("x"), broken("y")]


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_default_policy_is_treat_as_fail(make: Factory) -> None:
    assert Majority().errors is ErrorPolicy.TREAT_AS_FAIL
    assert make(ErrorPolicy.TREAT_AS_FAIL).aggregate(MIXED).status is Status.FAIL


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_treat_as_fail_counts_errors_as_failing_votes(make: Factory) -> None:
    result = make(ErrorPolicy.TREAT_AS_FAIL).aggregate(MIXED)
    assert result.status is Status.FAIL
    assert result.metadata["error"] == 2
    assert result.metadata["fail"] == 2.0


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_treat_as_fail_with_only_errors_fails(make: Factory) -> None:
    assert make(ErrorPolicy.TREAT_AS_FAIL).aggregate(ONLY_ERRORS).status is Status.FAIL


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_treat_as_abstain_counts_errors_as_abstentions(make: Factory) -> None:
    result = make(ErrorPolicy.TREAT_AS_ABSTAIN).aggregate(MIXED)
    assert result.status is Status.PASS
    assert result.metadata["abstain"] == 2


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_treat_as_abstain_with_only_errors_abstains(make: Factory) -> None:
    result = make(ErrorPolicy.TREAT_AS_ABSTAIN).aggregate(ONLY_ERRORS)
    assert result.status is Status.ABSTAIN


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_ignore_leaves_errors_out(make: Factory) -> None:
    result = make(ErrorPolicy.IGNORE).aggregate(MIXED)
    assert result.status is Status.PASS
    assert (result.metadata["ignored"], result.metadata["abstain"]) == (2, 0)


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_ignore_with_only_errors_is_an_error(make: Factory) -> None:
    result = make(ErrorPolicy.IGNORE).aggregate(ONLY_ERRORS)
    assert result.status is Status.ERROR
    assert "x (judge 'x' raised TimeoutError: slow)" in result.reasoning


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_ignore_with_errors_and_abstentions_abstains(make: Factory) -> None:
    result = make(ErrorPolicy.IGNORE).aggregate([*ONLY_ERRORS, Ballot("a", Judgment.abstain())])
    assert result.status is Status.ABSTAIN


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_propagate_names_the_errored_judges_and_causes(make: Factory) -> None:
    result = make(ErrorPolicy.PROPAGATE).aggregate(MIXED)
    assert result.status is Status.ERROR
    assert "x (judge 'x' raised TimeoutError: slow)" in result.reasoning
    assert "y (judge 'y' raised TimeoutError: slow)" in result.reasoning
    assert "ok" not in result.reasoning
    causes = result.metadata["errors"]
    assert set(causes) == {"x", "y"}
    assert causes["x"]["error"] == {"type": "TimeoutError", "message": "slow"}


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
def test_propagate_without_errors_decides_normally(make: Factory) -> None:
    result = make(ErrorPolicy.PROPAGATE).aggregate([Ballot("ok", Judgment.ok())])
    assert result.status is Status.PASS


@pytest.mark.parametrize("make", FACTORIES, ids=IDS)
@pytest.mark.parametrize("policy", list(ErrorPolicy))
def test_a_zero_weight_error_does_not_vote(make: Factory, policy: ErrorPolicy) -> None:
    ballots = [Ballot("ok", Judgment.ok()), Ballot("shadow", Judgment.error("down"), 0.0)]
    assert make(policy).aggregate(ballots).status is Status.PASS


def test_policy_values_are_stable_wire_names() -> None:
    assert [p.value for p in ErrorPolicy] == [
        "treat_as_fail",
        "treat_as_abstain",
        "ignore",
        "propagate",
    ]
