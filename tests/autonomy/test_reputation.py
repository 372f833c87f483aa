"""Reputations: metrics as running means, the update rules, bounds, history, seeding, and
the book a reputation-weighted jury reads."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from fakes import Fixed
from jurist.autonomy._reputation import (
    SCORE_WEIGHTS,
    UPDATE_RULES,
    Reputation,
    ReputationBook,
    ReputationChange,
    ReputationEvent,
    ReputationMetrics,
    reputation_score,
    rewrite_event,
)
from jurist.core import Context, Judgment, NumericScore, Status, Usage
from jurist.jury import Jury, ReputationWeighted

AT = datetime(2026, 11, 22, 17, 0, tzinfo=UTC)
E = ReputationEvent


# --- the update rules -----------------------------------------------------------------


def test_the_update_rules_are_the_specs_steps() -> None:
    assert dict(UPDATE_RULES) == {
        E.SUCCESSFUL_IMPROVEMENT: 0.01,
        E.FALSE_IMPROVEMENT: -0.03,
        E.CONSENSUS_ALIGNMENT: 0.005,
        E.ADVERSARIAL_DETECTION: 0.02,
        E.CONSTITUTIONAL_VIOLATION: -0.05,
    }
    assert E.SEED not in UPDATE_RULES
    assert [e.value for e in E] == [
        "successful_improvement",
        "false_improvement",
        "consensus_alignment",
        "adversarial_detection",
        "constitutional_violation",
        "seed",
    ]


@pytest.mark.parametrize("event", list(UPDATE_RULES))
def test_apply_moves_the_score_by_the_rule_and_records_the_change(event: E) -> None:
    before = Reputation(judge_id="evaluator")
    after = before.apply(event, cycle_id="c1", note="why", at=AT)
    step = UPDATE_RULES[event]
    assert after.score == pytest.approx(0.5 + step)
    assert after.history == (
        ReputationChange(
            event=event, delta=step, before=0.5, after=after.score, at=AT, cycle_id="c1", note="why"
        ),
    )
    # a new value: the old one is unchanged
    assert before.score == 0.5
    assert before.history == ()


def test_apply_takes_the_wire_name_and_refuses_unknown_events_and_seed() -> None:
    reputation = Reputation(judge_id="j")
    assert reputation.apply("consensus_alignment").score == 0.505
    with pytest.raises(ValueError, match="'promotion' is not one of"):
        reputation.apply("promotion")
    with pytest.raises(ValueError, match="seed"):
        reputation.apply(E.SEED)


def test_the_score_is_clamped_to_one_and_the_recorded_delta_is_the_applied_one() -> None:
    high = Reputation(judge_id="j", score=0.995).apply(E.SUCCESSFUL_IMPROVEMENT)
    assert high.score == 1.0
    assert high.history[-1].delta == pytest.approx(0.005)
    again = high.apply(E.ADVERSARIAL_DETECTION)
    assert again.score == 1.0
    assert again.history[-1].delta == 0.0


def test_the_score_is_clamped_to_zero() -> None:
    low = Reputation(judge_id="j", score=0.02).apply(E.CONSTITUTIONAL_VIOLATION)
    assert low.score == 0.0
    assert low.history[-1].delta == pytest.approx(-0.02)
    assert low.apply(E.FALSE_IMPROVEMENT).score == 0.0


def test_many_small_steps_do_not_pile_up_float_noise() -> None:
    reputation = Reputation(judge_id="j")
    for _ in range(10):
        reputation = reputation.apply(E.CONSENSUS_ALIGNMENT)
    assert reputation.score == 0.55  # exactly, not 0.5500000000000002
    assert [c.delta for c in reputation.history] == [0.005] * 10


@given(st.lists(st.sampled_from(list(UPDATE_RULES)), max_size=60))
def test_any_sequence_of_events_stays_in_bounds_and_the_history_chains(events: list[E]) -> None:
    reputation = Reputation(judge_id="j", score=0.5)
    for event in events:
        reputation = reputation.apply(event, at=AT)
    assert 0.0 <= reputation.score <= 1.0
    assert len(reputation.history) == len(events)
    previous = 0.5
    for change in reputation.history:
        assert change.before == previous
        assert change.after == pytest.approx(change.before + change.delta, abs=1e-9)
        previous = change.after
    assert previous == reputation.score


def test_a_change_whose_numbers_do_not_add_up_is_refused() -> None:
    with pytest.raises(ValidationError, match="after"):
        ReputationChange(event=E.SEED, delta=0.1, before=0.5, after=0.7, at=AT)
    with pytest.raises(ValidationError, match="timezone"):
        ReputationChange(event=E.SEED, delta=0.0, before=0.5, after=0.5, at=datetime(2026, 1, 1))


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"judge_id": ""}, "judge_id"),
        ({"judge_id": "   "}, "judge_id"),
        ({"judge_id": "x" * 201}, "judge_id"),
        ({"judge_id": "j", "score": 1.01}, "score"),
        ({"judge_id": "j", "score": -0.01}, "score"),
        ({"judge_id": "j", "score": float("nan")}, "score"),
    ],
)
def test_a_bad_reputation_names_its_field(fields: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        Reputation(**fields)  # type: ignore[arg-type]


def test_a_reputation_round_trips_through_json() -> None:
    metrics = ReputationMetrics().observe_accuracy(True).observe_rewrite(0.3, 0.1)
    reputation = (
        Reputation(judge_id="j", metrics=metrics)
        .apply(E.FALSE_IMPROVEMENT, cycle_id="c", note="lost 0.2", at=AT)
        .apply(E.CONSENSUS_ALIGNMENT, at=AT.astimezone(timezone(timedelta(hours=2))))
    )
    assert Reputation.model_validate_json(reputation.model_dump_json()) == reputation


# --- metrics --------------------------------------------------------------------------


def test_rates_are_none_until_measured_then_running_means() -> None:
    metrics = ReputationMetrics()
    assert metrics.accuracy_rate is None
    assert metrics.false_positive_rate is None
    metrics = metrics.observe_accuracy(True).observe_accuracy(False).observe_accuracy(True)
    assert metrics.accuracy_rate == pytest.approx(2 / 3)
    assert metrics.accuracy_checks == 3
    metrics = metrics.observe_consistency(0.5).observe_consistency(1.0)
    assert metrics.consistency_score == pytest.approx(0.75)
    metrics = metrics.observe_agreement(False).observe_challenge(True)
    assert (metrics.agreement_rate, metrics.challenge_resistance) == (0.0, 1.0)


def test_evaluations_average_cost_and_time_over_those_that_know_them() -> None:
    metrics = (
        ReputationMetrics()
        .observe_evaluation(Usage(cost_usd=0.02, latency_ms=4000))
        .observe_evaluation(Usage(cost_usd=0.04))  # latency unknown
        .observe_evaluation()  # nothing known
    )
    assert metrics.total_evaluations == 3
    assert metrics.average_cost_per_eval == pytest.approx(0.03)
    assert metrics.costed_evaluations == 2
    assert metrics.average_time_seconds == pytest.approx(4.0)
    assert metrics.timed_evaluations == 1


def test_rewrites_count_improvements_false_ones_and_the_mean_change() -> None:
    metrics = (
        ReputationMetrics()
        .observe_rewrite(0.3, 0.5)  # +0.2: an improvement
        .observe_rewrite(0.5, 0.55)  # +0.05: too small to count, not false either
        .observe_rewrite(0.6, 0.4)  # -0.2: false
        .observe_rewrite(0.2, 0.35)  # +0.15: an improvement
    )
    assert (metrics.rewrites, metrics.prompts_improved, metrics.false_improvements) == (4, 2, 1)
    assert metrics.average_improvement == pytest.approx((0.2 + 0.05 - 0.2 + 0.15) / 4)
    assert metrics.false_positive_rate == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("before", "after", "event"),
    [
        (0.3, 0.41, E.SUCCESSFUL_IMPROVEMENT),
        (0.3, 0.4, None),  # exactly the margin is not more than it
        (0.3, 0.3, None),
        (0.3, 0.29, E.FALSE_IMPROVEMENT),
        (0.0, 1.0, E.SUCCESSFUL_IMPROVEMENT),
    ],
)
def test_rewrite_event_reads_the_margin_on_the_score_scale(
    before: float, after: float, event: E | None
) -> None:
    assert rewrite_event(before, after) is event


def test_rewrite_event_takes_another_margin_and_refuses_bad_scores() -> None:
    assert rewrite_event(0.3, 0.36, margin=0.05) is E.SUCCESSFUL_IMPROVEMENT
    with pytest.raises(ValueError, match="after"):
        rewrite_event(0.3, 1.2)
    with pytest.raises(ValueError, match="before"):
        rewrite_event(True, 0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="margin"):
        rewrite_event(0.3, 0.5, margin=-0.1)


@pytest.mark.parametrize("value", [1.5, -0.1, float("nan"), "yes"])
def test_an_observation_outside_zero_one_names_itself(value: object) -> None:
    with pytest.raises(ValueError, match="correct"):
        ReputationMetrics().observe_accuracy(value)  # type: ignore[arg-type]


observations = st.lists(
    st.one_of(
        st.tuples(st.just("accuracy"), st.booleans()),
        st.tuples(st.just("consistency"), st.floats(0.0, 1.0)),
        st.tuples(st.just("agreement"), st.booleans()),
        st.tuples(st.just("challenge"), st.booleans()),
        st.tuples(st.just("rewrite"), st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0))),
        st.tuples(
            st.just("evaluation"),
            st.builds(
                Usage,
                cost_usd=st.none() | st.floats(0.0, 1.0),
                latency_ms=st.none() | st.floats(0.0, 1e5),
            ),
        ),
    ),
    max_size=30,
)


def _observe(metrics: ReputationMetrics, items: list[tuple[str, object]]) -> ReputationMetrics:
    for kind, value in items:
        if kind == "rewrite":
            assert isinstance(value, tuple)
            metrics = metrics.observe_rewrite(*value)
        elif kind == "evaluation":
            assert isinstance(value, Usage)
            metrics = metrics.observe_evaluation(value)
        else:
            metrics = getattr(metrics, f"observe_{kind}")(value)
    return metrics


@given(observations, st.integers(0, 30))
def test_merging_equals_observing_everything_in_one_place(
    items: list[tuple[str, object]], cut: int
) -> None:
    whole = _observe(ReputationMetrics(), items)
    merged = _observe(ReputationMetrics(), items[:cut]).merge(
        _observe(ReputationMetrics(), items[cut:])
    )
    for name, value in whole.model_dump().items():
        other = merged.model_dump()[name]
        if isinstance(value, float):
            assert other == pytest.approx(value, rel=1e-9, abs=1e-9), name
        else:
            assert other == value, name


def test_metrics_round_trip_through_their_dump_derived_rate_and_all() -> None:
    metrics = ReputationMetrics().observe_rewrite(0.5, 0.2).observe_accuracy(0.8)
    dumped = metrics.model_dump(mode="json")
    assert dumped["false_positive_rate"] == 1.0  # there for readers
    assert ReputationMetrics.model_validate(dumped) == metrics


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"accuracy_rate": 0.5}, "accuracy_rate must be None exactly when accuracy_checks is 0"),
        ({"accuracy_checks": 2}, "accuracy_rate must be None exactly when accuracy_checks"),
        ({"rewrites": 1, "prompts_improved": 1, "false_improvements": 1,
          "average_improvement": 0.0}, "cannot exceed rewrites"),
        ({"costed_evaluations": 1, "average_cost_per_eval": 0.1}, "cannot exceed total"),
        ({"agreement_rate": 1.2, "agreement_checks": 1}, "agreement_rate"),
        ({"total_evaluations": -1}, "total_evaluations"),
        ({"unknown": 1}, "unknown"),
    ],
)  # fmt: skip
def test_inconsistent_metrics_are_refused_naming_the_field(
    fields: dict[str, object], problem: str
) -> None:
    with pytest.raises(ValidationError, match=problem):
        ReputationMetrics(**fields)  # type: ignore[arg-type]


# --- reputation_score -----------------------------------------------------------------


def test_the_score_is_the_weighted_mean_of_every_known_metric() -> None:
    metrics = ReputationMetrics(
        accuracy_rate=0.9,
        accuracy_checks=10,
        consistency_score=0.8,
        consistency_checks=5,
        agreement_rate=0.7,
        agreement_checks=5,
        challenge_resistance=0.6,
        challenges=5,
        rewrites=10,
        false_improvements=2,
        average_improvement=0.1,
    )
    expected = 0.4 * 0.9 + 0.2 * 0.8 + 0.15 * 0.7 + 0.15 * 0.6 + 0.1 * (1 - 0.2)
    assert sum(SCORE_WEIGHTS.values()) == pytest.approx(1.0)
    assert reputation_score(metrics) == pytest.approx(expected)


def test_unknown_metrics_are_left_out_and_the_weights_renormalised() -> None:
    metrics = ReputationMetrics().observe_accuracy(1.0).observe_agreement(0.0)
    # accuracy 0.4 and agreement 0.15 only: 0.4 / 0.55
    assert reputation_score(metrics) == pytest.approx(0.4 / 0.55)
    assert reputation_score(ReputationMetrics().observe_evaluation(Usage(cost_usd=1.0))) is None


def test_the_score_takes_other_weights_and_refuses_bad_ones() -> None:
    metrics = ReputationMetrics().observe_accuracy(1.0).observe_agreement(0.0)
    assert reputation_score(metrics, {"agreement_rate": 1.0}) == 0.0
    with pytest.raises(ValueError, match="speed"):
        reputation_score(metrics, {"speed": 1.0})
    with pytest.raises(ValueError, match="accuracy_rate"):
        reputation_score(metrics, {"accuracy_rate": -1.0})


def test_seeding_sets_the_score_from_metrics_and_records_it() -> None:
    metrics = ReputationMetrics().observe_accuracy(0.9)
    seeded = Reputation(judge_id="j").seed(metrics, cycle_id="tournament-1", note="won", at=AT)
    assert seeded.score == pytest.approx(0.9)
    assert seeded.metrics == metrics
    (change,) = seeded.history
    assert (change.event, change.before, change.after) == (E.SEED, 0.5, seeded.score)
    assert change.delta == pytest.approx(0.4)
    assert change.cycle_id == "tournament-1"
    # events move it from there
    assert seeded.apply(E.FALSE_IMPROVEMENT).score == pytest.approx(0.87)


def test_seeding_with_nothing_known_keeps_the_score() -> None:
    seeded = Reputation(judge_id="j", score=0.6).seed(ReputationMetrics())
    assert seeded.score == 0.6
    assert seeded.history[-1].delta == 0.0


def test_observations_change_metrics_but_never_the_score() -> None:
    reputation = Reputation(judge_id="j", score=0.6)
    observed = reputation.observed(reputation.metrics.observe_accuracy(0.0))
    assert observed.score == 0.6
    assert observed.metrics.accuracy_rate == 0.0
    assert observed.history == ()


# --- the book -------------------------------------------------------------------------


def test_an_unknown_judge_gets_the_initial_score_without_joining_the_book() -> None:
    book = ReputationBook(initial=0.4)
    assert book.get("new").score == 0.4
    assert "new" not in book
    assert len(book) == 0
    with pytest.raises(ValueError, match="initial"):
        ReputationBook(initial=1.5)


def test_the_book_applies_seeds_and_weighs() -> None:
    book = ReputationBook()
    book.apply("a", E.ADVERSARIAL_DETECTION)
    book.seed("b", ReputationMetrics().observe_accuracy(0.9))
    weights = book.weights()
    assert dict(weights) == {"a": pytest.approx(0.52), "b": pytest.approx(0.9)}
    book.apply("a", E.CONSTITUTIONAL_VIOLATION)
    assert weights["a"] == pytest.approx(0.52)  # a snapshot
    assert book.weights()["a"] == pytest.approx(0.47)
    assert [r.judge_id for r in book] == ["a", "b"]


def test_the_book_knows_which_changes_are_unsaved() -> None:
    loaded = Reputation(judge_id="a").apply(E.CONSENSUS_ALIGNMENT)
    book = ReputationBook([loaded])
    assert book.unsaved("a") == ()  # what the book starts with counts as saved
    book.apply("a", E.FALSE_IMPROVEMENT)
    book.apply("a", E.CONSENSUS_ALIGNMENT)
    assert [c.event for c in book.unsaved("a")] == [E.FALSE_IMPROVEMENT, E.CONSENSUS_ALIGNMENT]
    book.mark_saved("a")
    assert book.unsaved("a") == ()
    book.apply("new", E.SUCCESSFUL_IMPROVEMENT)
    assert len(book.unsaved("new")) == 1
    book.put(Reputation(judge_id="new", score=0.7), saved=True)
    assert book.unsaved("new") == ()


def test_a_book_refuses_a_judge_twice() -> None:
    with pytest.raises(ValueError, match="'a' appears twice"):
        ReputationBook([Reputation(judge_id="a"), Reputation(judge_id="a")])


async def test_a_jury_weighs_votes_by_the_books_reputations_as_they_change() -> None:
    book = ReputationBook()
    book.put(Reputation(judge_id="strict", score=0.9))
    book.put(Reputation(judge_id="lenient", score=0.1))
    jury = Jury(
        [
            Fixed("strict", Judgment.fail(score=NumericScore(0.2))),
            Fixed("lenient", Judgment.ok(score=NumericScore(1.0))),
        ],
        ReputationWeighted(book),
    )
    ctx = Context("q", "a")
    first = await jury.judge(ctx)
    assert first.status is Status.FAIL  # (0.9*0.2 + 0.1*1.0) / 1.0 = 0.28
    for _ in range(10):
        book.apply("strict", E.CONSTITUTIONAL_VIOLATION)  # down to 0.4
        book.apply("lenient", E.ADVERSARIAL_DETECTION)  # up to 0.3
    second = await jury.judge(ctx)
    assert second.metadata["reputations"] == {
        "strict": pytest.approx(0.4),
        "lenient": pytest.approx(0.3),
    }
    assert isinstance(second.score, NumericScore)
    assert second.score.value == pytest.approx((0.4 * 0.2 + 0.3 * 1.0) / 0.7)
    assert second.status is Status.PASS
