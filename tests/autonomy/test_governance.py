"""Governance: limits, circuit breakers at and around their bounds, breakpoints, stability and
the meta-judge's involvement."""

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from jurist.autonomy._governance import (
    Breaker,
    CycleState,
    Halt,
    Involvement,
    ProposedChange,
    StabilityInputs,
    check_breakers,
    finding_load,
    improves_enough,
    involvement,
    limits_approached,
    meta_reviews,
    needs_approval,
    significance,
    stability_score,
    stability_terms,
    tripped_breakers,
)
from jurist.autonomy._limits import Breakpoint, Limits, LimitsError
from jurist.core import Usage

LIMITS = Limits()


def usage(tokens: int = 0, cost: float | None = 0.0) -> Usage:
    return Usage(input_tokens=tokens, cost_usd=cost, calls=1)


# Limits


def test_the_defaults_are_the_documented_ones():
    assert LIMITS.max_iterations == 5
    assert LIMITS.max_cost_usd == 1.0
    assert LIMITS.max_tokens is None
    assert LIMITS.max_consecutive_failures == 3
    assert LIMITS.max_regression == 0.1
    assert LIMITS.max_adversarial_findings == 5
    assert LIMITS.min_improvement_threshold == 0.05
    assert LIMITS.breakpoint is Breakpoint.SIGNIFICANT_CHANGE
    assert LIMITS.significant_change == 0.2
    assert LIMITS.significant_length_ratio == 1.5


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_iterations", 0),
        ("max_cost_usd", 0.0),
        ("max_cost_usd", float("inf")),
        ("max_tokens", 0),
        ("max_consecutive_failures", 0),
        ("max_regression", 1.5),
        ("max_adversarial_findings", 0),
        ("min_improvement_threshold", -0.1),
        ("breakpoint", "sometimes"),
        ("significant_change", 0.0),
        ("significant_length_ratio", 1.0),
        ("finding_weights", {"high": -1.0}),
        ("surprise", 1),
    ],
)
def test_an_invalid_limit_is_an_error_naming_its_field(field: str, value: object):
    with pytest.raises(ValidationError) as caught:
        Limits(**{field: value})
    assert field in str(caught.value)


def test_finding_weights_are_matched_without_case():
    limits = Limits(finding_weights={"High": 1.0, "Low": 0.0})
    assert finding_load({"HIGH": 2, "low": 7}, limits) == 2.0


# A system-wide configuration of the whole judge system, its limits among other sections.
SPEC_CONFIG = {
    "system": {
        "bootstrap_mode": True,
        "max_concurrent_cycles": 5,
        "default_human_breakpoints": ["significant_change"],
    },
    "judges": {"spawn_timeout_seconds": 30},
    "constraints": {
        "max_cost_per_cycle_usd": 10.0,
        "max_iterations_per_cycle": 50,
        "min_improvement_threshold": 0.05,
    },
    "monitoring": {"log_level": "INFO"},
}


def test_the_spec_master_configuration_maps_onto_limits():
    limits = Limits.from_mapping(SPEC_CONFIG)
    assert limits.max_cost_usd == 10.0
    assert limits.max_iterations == 50
    assert limits.min_improvement_threshold == 0.05
    assert limits.breakpoint is Breakpoint.SIGNIFICANT_CHANGE
    assert limits.max_tokens is None  # not in the configuration: the default


def test_jurist_keys_are_read_at_the_top_and_under_constraints():
    limits = Limits.from_mapping(
        {"max_tokens": 20_000, "constraints": {"max_regression": 0.2}, "breakpoint": "every"}
    )
    assert limits.max_tokens == 20_000
    assert limits.max_regression == 0.2
    assert limits.breakpoint is Breakpoint.EVERY


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([], Breakpoint.NONE),
        (["none"], Breakpoint.NONE),
        ("every", Breakpoint.EVERY),
        (["significant_change", "every"], Breakpoint.EVERY),
        (["none", "significant_change"], Breakpoint.SIGNIFICANT_CHANGE),
    ],
)
def test_the_most_demanding_human_breakpoint_named_wins(names: object, expected: Breakpoint):
    limits = Limits.from_mapping({"system": {"default_human_breakpoints": names}})
    assert limits.breakpoint is expected


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"max_iteration": 3}, "limits: max_iteration: unknown key"),
        ({"constraints": {"max_cost": 1}}, "limits: constraints.max_cost: unknown limit"),
        ({"system": {"breakpoints": []}}, "limits: system.breakpoints: unknown key"),
        ({"constraints": [1]}, "limits: constraints: must be a mapping, not list"),
        (
            {"system": {"default_human_breakpoints": ["every", "sometimes"]}},
            "limits: system.default_human_breakpoints[1]: unknown breakpoint 'sometimes'",
        ),
        (
            {"constraints": {"max_cost_per_cycle_usd": -1}},
            "limits: constraints.max_cost_per_cycle_usd: Input should be greater than 0",
        ),
        (
            {"finding_weights": {"high": "heavy"}},
            "limits: finding_weights.high: Input should be a valid number",
        ),
        (
            {"max_cost_usd": 2, "constraints": {"max_cost_per_cycle_usd": 3}},
            "limits: constraints.max_cost_per_cycle_usd and max_cost_usd both set max_cost_usd",
        ),
    ],
)
def test_a_bad_configuration_names_the_key_it_read(data: dict[str, object], message: str):
    with pytest.raises(LimitsError) as caught:
        Limits.from_mapping(data)
    assert message in str(caught.value)


def test_limits_from_a_yaml_file(tmp_path: Path):
    path = tmp_path / "limits.yaml"
    path.write_text("constraints:\n  max_iterations_per_cycle: 7\nmax_tokens: 5000\n")
    limits = Limits.from_yaml(path)
    assert (limits.max_iterations, limits.max_tokens) == (7, 5000)


def test_an_empty_yaml_file_is_the_defaults(tmp_path: Path):
    path = tmp_path / "limits.yaml"
    path.write_text("")
    assert Limits.from_yaml(path) == LIMITS


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_iterations: [1\n", "not valid YAML at line"),
        ("- 1\n- 2\n", "limits must be a mapping, not list"),
        ("max_iterations: 0\n", "max_iterations: Input should be greater than or equal to 1"),
    ],
)
def test_a_bad_yaml_file_is_an_error_naming_the_file(tmp_path: Path, text: str, message: str):
    path = tmp_path / "limits.yaml"
    path.write_text(text)
    with pytest.raises(LimitsError) as caught:
        Limits.from_yaml(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_a_missing_yaml_file_is_an_error_naming_it(tmp_path: Path):
    with pytest.raises(LimitsError, match=re.escape("missing.yaml: cannot be read")):
        Limits.from_yaml(tmp_path / "missing.yaml")


# Circuit breakers


def only(state: CycleState, limits: Limits = LIMITS) -> Halt | None:
    return check_breakers(state, limits)


def test_a_fresh_cycle_trips_nothing():
    assert tripped_breakers(CycleState(), LIMITS) == []


@pytest.mark.parametrize(("iterations", "halts"), [(4, False), (5, True), (6, True)])
def test_the_iterations_breaker(iterations: int, halts: bool):
    halt = only(CycleState(iteration=iterations))
    assert (halt is not None) == halts
    if halt is not None:
        assert halt.breaker is Breaker.ITERATIONS
        assert halt.reason == f"{iterations} iterations reached the cycle's limit of 5"
        assert halt.iteration == iterations


@pytest.mark.parametrize(("cost", "halts"), [(0.99, False), (0.999999, False), (1.0, True)])
def test_the_cost_breaker_at_its_bound(cost: float, halts: bool):
    state = CycleState().with_usage(usage(cost=cost))
    halt = only(state)
    assert (halt is not None and halt.breaker is Breaker.COST) == halts


def test_the_cost_breaker_says_what_was_spent_against_what_limit():
    state = CycleState().with_usage(usage(cost=0.60)).with_usage(usage(cost=0.42))
    halt = only(state)
    assert halt == Halt(
        breaker=Breaker.COST,
        reason="cost 1.02 USD reached the cycle's limit of 1.00 USD",
        iteration=0,
    )


def test_costs_summing_to_the_limit_with_float_noise_reach_it():
    state = CycleState()
    for _ in range(10):
        state = state.with_usage(usage(cost=0.1))  # sums to 0.9999999999999999
    assert only(state) is not None


def test_a_small_cost_limit_is_shown_with_the_decimals_it_needs():
    state = CycleState().with_usage(usage(cost=0.0051))
    halt = only(state, Limits(max_cost_usd=0.005))
    assert halt is not None
    assert halt.reason == "cost 0.0051 USD reached the cycle's limit of 0.0050 USD"


def test_an_unknown_cost_is_bounded_by_its_known_part_and_says_so():
    state = CycleState().with_usage(usage(cost=None)).with_usage(usage(cost=1.5))
    assert not state.cost_known
    assert state.spent.cost_usd is None
    assert state.cost_usd == 1.5
    halt = only(state)
    assert halt is not None
    assert "(at least: some calls had no known price)" in halt.reason


def test_a_usage_of_no_calls_leaves_the_cost_known():
    state = CycleState().with_usage(Usage())  # a deterministic judge's usage: cost None
    assert state.cost_known
    assert state == CycleState()


def test_no_cost_limit_is_no_cost_breaker():
    state = CycleState().with_usage(usage(cost=1000.0))
    assert only(state, Limits(max_cost_usd=None)) is None


@pytest.mark.parametrize(("tokens", "halts"), [(999, False), (1000, True), (1001, True)])
def test_the_tokens_breaker(tokens: int, halts: bool):
    state = CycleState().with_usage(usage(tokens=tokens))
    halt = only(state, Limits(max_tokens=1000))
    assert (halt is not None) == halts
    if halt is not None:
        assert halt.breaker is Breaker.TOKENS
        assert halt.reason == f"{tokens:,} tokens reached the cycle's limit of 1,000 tokens"


def test_no_token_limit_is_no_tokens_breaker():
    assert only(CycleState().with_usage(usage(tokens=10**9))) is None


@pytest.mark.parametrize(("failures", "halts"), [(2, False), (3, True)])
def test_the_consecutive_failures_breaker(failures: int, halts: bool):
    state = CycleState()
    for _ in range(failures):
        state = state.after_iteration(failed=True)
    halt = only(state, Limits(max_iterations=10))
    assert (halt is not None) == halts
    if halt is not None:
        assert halt.breaker is Breaker.CONSECUTIVE_FAILURES
        assert halt.reason == "3 consecutive failed iterations reached the limit of 3"


def test_a_success_resets_the_run_of_failures():
    state = CycleState().after_iteration(failed=True).after_iteration(failed=True)
    state = state.after_iteration(failed=False).after_iteration(failed=True)
    assert state.consecutive_failures == 1
    assert state.iteration == 4
    assert only(state) is None


@pytest.mark.parametrize(
    ("scores", "halts"),
    [
        ((0.8, 0.7), False),  # exactly 0.1 below (0.10000000000000009 in floats)
        ((0.8, 0.69), True),
        ((0.5, 0.8, 0.75), False),
        ((0.5, 0.9, 0.6, 0.85), False),  # recovered to within the bound of the best
        ((0.5, 0.9, 0.85, 0.79), True),  # the best, not the previous score, is the bar
    ],
)
def test_the_regression_breaker(scores: tuple[float, ...], halts: bool):
    state = CycleState()
    for score in scores:
        state = state.after_iteration(failed=False, held_out_score=score)
    halt = only(state, Limits(max_iterations=10))
    assert (halt is not None) == halts
    if halt is not None:
        assert halt.breaker is Breaker.REGRESSION
        assert "below the best so far (0." in halt.reason
        assert "more than the allowed 0.100" in halt.reason


def test_an_iteration_without_a_new_score_keeps_the_last_one():
    state = CycleState().after_iteration(failed=False, held_out_score=0.7)
    state = state.after_iteration(failed=True)
    assert (state.best_score, state.last_score) == (0.7, 0.7)


def test_a_score_outside_zero_to_one_is_an_error():
    with pytest.raises(
        ValueError, match=re.escape("held_out_score must be between 0 and 1, got 1.2")
    ):
        CycleState().after_iteration(failed=False, held_out_score=1.2)


@pytest.mark.parametrize(
    ("findings", "halts"),
    [
        ({"high": 4}, False),
        ({"high": 5}, True),
        ({"medium": 9}, False),
        ({"medium": 10}, True),
        ({"high": 4, "medium": 1}, False),
        ({"high": 4, "medium": 2}, True),
        ({"low": 49}, False),
        ({"low": 50}, True),
    ],
)
def test_the_adversarial_breaker_weighs_findings_by_severity(findings: dict[str, int], halts: bool):
    state = CycleState().with_findings(findings)
    halt = only(state)
    assert (halt is not None) == halts
    if halt is not None:
        assert halt.breaker is Breaker.ADVERSARIAL


def test_the_adversarial_breaker_says_what_it_counted():
    state = CycleState().after_iteration(failed=False, findings={"high": 3})
    state = state.after_iteration(failed=False, findings={"high": 1, "medium": 2})
    halt = only(state)
    assert halt is not None
    assert halt.reason == (
        "adversarial findings (4 high, 2 medium) weigh 5 high-severity findings, "
        "reaching the cycle's limit of 5"
    )


def test_an_unknown_severity_is_an_error_naming_it():
    state = CycleState().with_findings({"catastrophic": 1})
    with pytest.raises(ValueError, match="severity 'catastrophic' has no weight"):
        check_breakers(state, LIMITS)


def test_negative_findings_are_an_error():
    with pytest.raises(ValueError, match=r"findings\['high'\] must be >= 0"):
        CycleState().with_findings({"high": -1})


def test_all_tripped_breakers_are_listed_money_first():
    state = CycleState(iteration=5, consecutive_failures=3).with_usage(usage(2000, 1.5))
    state = state.with_findings({"high": 5})
    state = state.model_copy(update={"best_score": 0.9, "last_score": 0.5})
    halts = tripped_breakers(state, Limits(max_tokens=1000))
    assert [h.breaker for h in halts] == [
        Breaker.COST,
        Breaker.TOKENS,
        Breaker.REGRESSION,
        Breaker.ADVERSARIAL,
        Breaker.CONSECUTIVE_FAILURES,
        Breaker.ITERATIONS,
    ]
    assert check_breakers(state, Limits(max_tokens=1000)) == halts[0]


def test_trips_are_kept_as_history():
    halt = Halt(breaker=Breaker.COST, reason="spent", iteration=2)
    state = CycleState().with_trip(halt).with_trip(halt)
    assert state.trips == (halt, halt)


def test_limits_are_approached_at_eighty_percent():
    limits = Limits(max_iterations=10, max_tokens=1000)
    assert limits_approached(CycleState(iteration=7), limits) == ()
    assert limits_approached(CycleState(iteration=8), limits) == (Breaker.ITERATIONS,)
    state = CycleState().with_usage(usage(tokens=800, cost=0.8))
    assert set(limits_approached(state, limits)) == {Breaker.COST, Breaker.TOKENS}
    regressed = CycleState(best_score=0.9, last_score=0.82)
    assert limits_approached(regressed, limits) == (Breaker.REGRESSION,)


def test_an_improvement_counts_from_the_threshold():
    assert improves_enough(LIMITS, 0.5, 0.55)
    assert not improves_enough(LIMITS, 0.5, 0.549)


def test_a_cycle_state_round_trips_through_json():
    state = CycleState().after_iteration(
        failed=False, held_out_score=0.6, usage=usage(10, 0.01), findings={"low": 2}
    )
    state = state.with_trip(Halt(breaker=Breaker.TOKENS, reason="r", iteration=1))
    assert CycleState.model_validate_json(state.model_dump_json()) == state


# Breakpoints

PROMPT = "x" * 100


def change(old: float, new: float, old_prompt: str = PROMPT, new_prompt: str = PROMPT):
    return ProposedChange(
        old_score=old, new_score=new, old_prompt=old_prompt, new_prompt=new_prompt
    )


@pytest.mark.parametrize(
    ("proposed", "significant"),
    [
        (change(0.5, 0.7), False),  # exactly 0.2 (0.19999999999999996 in floats)
        (change(0.5, 0.71), True),
        (change(0.7, 0.45), True),  # a fall counts as much as a rise
        (change(0.5, 0.6, new_prompt="x" * 150), False),  # exactly 1.5 times
        (change(0.5, 0.6, new_prompt="x" * 151), True),
        (change(0.5, 0.6, new_prompt="x" * 67), False),
        (change(0.5, 0.6, new_prompt="x" * 66), True),  # shrinking beyond 1.5 times
        (change(0.5, 0.6, old_prompt="", new_prompt="x"), True),
        (change(0.5, 0.6, old_prompt="", new_prompt=""), False),
    ],
)
def test_a_significant_change(proposed: ProposedChange, significant: bool):
    assert (significance(LIMITS, proposed) is not None) == significant
    assert needs_approval(LIMITS, proposed) == significant


def test_significance_says_why():
    assert significance(LIMITS, change(0.7, 0.45)) == (
        "held-out score fell 0.250 (0.700 -> 0.450), more than 0.200"
    )
    assert significance(LIMITS, change(0.5, 0.5, new_prompt="x" * 200)) == (
        "prompt length changed from 100 to 200 characters, beyond 1.5x"
    )


def test_every_and_none_breakpoints_ignore_significance():
    small, large = change(0.5, 0.55), change(0.1, 0.9)
    every, never = Limits(breakpoint=Breakpoint.EVERY), Limits(breakpoint=Breakpoint.NONE)
    assert needs_approval(every, small)
    assert needs_approval(every, large)
    assert not needs_approval(never, small)
    assert not needs_approval(never, large)


# Stability


def test_a_steady_system_is_fully_stable():
    inputs = StabilityInputs(
        agreement=(0.8, 0.8, 0.8),
        improvements=(0.05, 0.05, 0.05),
        breaker_trips=(0, 0, 0),
        reputations={"a": (0.9, 0.9, 0.9), "b": (0.7, 0.7, 0.7)},
        costs=(0.2, 0.2, 0.2),
    )
    assert stability_score(inputs) == 1.0


def test_an_erratic_system_has_no_stability():
    inputs = StabilityInputs(
        agreement=(0.0, 1.0, 0.0, 1.0),
        improvements=(-1.0, 1.0, -1.0, 1.0),
        breaker_trips=(1, 2, 1, 1),
        reputations={"a": (0.0, 1.0, 0.0, 1.0)},
        costs=(0.0, 2.0, 0.0, 2.0),  # spread as large as the mean
    )
    assert stability_terms(inputs) == {
        "agreement_variation": 1.0,
        "improvement_inconsistency": 1.0,
        "breaker_frequency": 1.0,
        "reputation_variation": 1.0,
        "cost_unpredictability": 1.0,
    }
    assert stability_score(inputs) == 0.0


def test_each_term_is_normalised_as_documented():
    inputs = StabilityInputs(
        agreement=(0.6, 0.8),  # spread 0.1, over 0.5
        improvements=(0.0, 0.2),  # spread 0.1, over 1
        breaker_trips=(0, 3, 0, 0),  # one iteration in four tripped
        reputations={"a": (0.5, 0.7), "b": (0.8, 0.8), "new": (0.5,)},  # 0.2 and 0, mean 0.1
        costs=(1.0, 3.0),  # spread 1 over mean 2
    )
    terms = stability_terms(inputs)
    assert terms["agreement_variation"] == pytest.approx(0.2)
    assert terms["improvement_inconsistency"] == pytest.approx(0.1)
    assert terms["breaker_frequency"] == 0.25
    assert terms["reputation_variation"] == pytest.approx(0.1)
    assert terms["cost_unpredictability"] == pytest.approx(0.5)
    assert stability_score(inputs) == pytest.approx(1 - (0.2 + 0.1 + 0.25 + 0.1 + 0.5) / 5)


def test_series_too_short_to_tell_are_left_out():
    inputs = StabilityInputs(agreement=(0.9,), breaker_trips=(0, 1, 0, 0), costs=(0.0, 0.0))
    terms = stability_terms(inputs)
    assert terms["agreement_variation"] is None
    assert terms["cost_unpredictability"] == 0.0  # free calls are perfectly predictable
    assert stability_score(inputs) == pytest.approx(1 - (0.25 + 0.0) / 2)


def test_no_evidence_is_no_stability():
    assert stability_score(StabilityInputs()) == 0.0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("agreement", (0.5, 1.2)),
        ("improvements", (-1.5,)),
        ("breaker_trips", (-1,)),
        ("reputations", {"a": (2.0,)}),
        ("costs", (-0.1,)),
    ],
)
def test_stability_inputs_out_of_range_are_errors_naming_the_series(field: str, value: object):
    with pytest.raises(ValidationError) as caught:
        StabilityInputs(**{field: value})
    assert field in str(caught.value)


fractions = st.floats(0, 1)


@given(
    agreement=st.lists(fractions, max_size=8),
    improvements=st.lists(st.floats(-1, 1), max_size=8),
    trips=st.lists(st.integers(0, 5), max_size=8),
    reputations=st.dictionaries(st.text(max_size=3), st.lists(fractions, max_size=8), max_size=3),
    costs=st.lists(st.floats(0, 1e6), max_size=8),
)
def test_the_score_and_every_term_stay_between_zero_and_one(
    agreement, improvements, trips, reputations, costs
):
    inputs = StabilityInputs(
        agreement=tuple(agreement),
        improvements=tuple(improvements),
        breaker_trips=tuple(trips),
        reputations={judge: tuple(series) for judge, series in reputations.items()},
        costs=tuple(costs),
    )
    for term in stability_terms(inputs).values():
        assert term is None or 0.0 <= term <= 1.0
    assert 0.0 <= stability_score(inputs) <= 1.0


# The meta-judge's involvement

STEADY = {
    "breaker_recently_tripped": False,
    "successful_iterations": 0,
    "improvement_consistent": False,
    "approaching_limit": False,
}
SEASONED = {**STEADY, "successful_iterations": 20, "improvement_consistent": True}


@pytest.mark.parametrize(
    ("iteration", "reputations", "conditions", "expected"),
    [
        (1, [0.9], STEADY, Involvement.HIGH),
        (5, [0.99], SEASONED, Involvement.HIGH),  # a cycle's first five iterations
        (6, [0.9], STEADY, Involvement.MEDIUM),
        (20, [0.71, 0.9], STEADY, Involvement.MEDIUM),
        (6, [0.7, 0.9], STEADY, Involvement.HIGH),  # medium needs all above 0.7
        (6, [0.65], STEADY, Involvement.HIGH),
        (6, [0.59, 0.99], SEASONED, Involvement.HIGH),  # any below 0.6
        (6, [], STEADY, Involvement.HIGH),  # nothing known of the judges
        (6, [0.9], {**STEADY, "breaker_recently_tripped": True}, Involvement.HIGH),
        (6, [0.9], {**STEADY, "approaching_limit": True}, Involvement.HIGH),
        (6, [0.86, 0.9], SEASONED, Involvement.LOW),
        (30, [0.86], SEASONED, Involvement.LOW),
        (6, [0.85, 0.9], SEASONED, Involvement.MEDIUM),  # low needs all above 0.85
        (6, [0.9], {**SEASONED, "successful_iterations": 19}, Involvement.MEDIUM),
        (6, [0.9], {**SEASONED, "improvement_consistent": False}, Involvement.MEDIUM),
        (6, [0.9], {**SEASONED, "breaker_recently_tripped": True}, Involvement.HIGH),
        (6, [0.9], {**SEASONED, "approaching_limit": True}, Involvement.HIGH),
        (25, [0.8], STEADY, Involvement.MEDIUM),  # a long cycle that has not earned low
    ],
)
def test_involvement(
    iteration: int, reputations: list[float], conditions: dict[str, bool], expected: Involvement
):
    assert involvement(iteration, reputations, **conditions) is expected


def test_involvement_counts_iterations_from_one():
    with pytest.raises(ValueError, match="iteration counts from 1, got 0"):
        involvement(0, [0.9], **STEADY)


@pytest.mark.parametrize(
    ("level", "reviewed"),
    [
        (Involvement.HIGH, [1, 2, 3, 4, 5, 6, 7, 8, 9]),
        (Involvement.MEDIUM, [3, 6, 9]),
        (Involvement.LOW, []),
    ],
)
def test_how_often_the_meta_judge_reviews(level: Involvement, reviewed: list[int]):
    assert [i for i in range(1, 10) if meta_reviews(level, i)] == reviewed


@pytest.mark.parametrize("level", list(Involvement))
def test_a_trigger_always_brings_a_review(level: Involvement):
    assert meta_reviews(level, 7, triggered=True)


def test_a_budget_from_limits():
    budget = Limits(max_tokens=500).budget()
    assert (budget.max_cost_usd, budget.max_tokens) == (1.0, 500)
