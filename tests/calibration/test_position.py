"""Position bias of pairwise judgments: the measures, the out-of-fold calibration, and the
errors for bad input."""

import math
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jurist.calibration import (
    PositionLabel,
    PositionPair,
    PositionReport,
    _position,
    calibrate_out_of_fold,
    fit_offset,
    out_of_fold_offsets,
    position_report,
)
from jurist.core import Judgment
from jurist.judges import PairwiseOrder, PairwiseReport


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def biased(
    group: str, label: PositionLabel, *, bias: float = 2.0, quality: float = 1.0
) -> PositionPair:
    """A judge with a first-position logit `bias` that also sees the quality: the preferred
    output adds `quality` to the logit of whichever order shows it first."""
    toward_a = quality if label == "A" else -quality
    return PositionPair(
        group, label, p_first_ab=sigmoid(bias + toward_a), p_first_ba=sigmoid(bias - toward_a)
    )


def always_first() -> list[PositionPair]:
    """Four documents, two pairs each (one preferring A, one B), read by a judge whose
    first-position bias (logit 2) outweighs the quality it sees (logit 1): every order
    chooses the first-shown output."""
    return [biased(f"doc{g}", label) for g in range(4) for label in ("A", "B")]


def test_calibration_turns_a_first_position_judge_consistent() -> None:
    pairs = always_first()
    report = position_report(pairs, n_boot=0)

    # Each pair's two logits are 2 + q and 2 - q, so every fold's mean logit is exactly 2,
    # and taking it off leaves +q or -q: the preferred output wins in both orders.
    assert report.offsets == pytest.approx(dict.fromkeys(["doc0", "doc1", "doc2", "doc3"], 2.0))
    assert report.before.first_position_rate.value == 1.0
    assert report.before.position_consistency.value == 0.0
    assert report.before.accuracy_a_first.value == 0.5
    assert report.after.first_position_rate.value == 0.5
    assert report.after.position_consistency.value == 1.0
    assert report.after.accuracy_a_first.value == 1.0
    assert report.before.position_bias.value == pytest.approx((sigmoid(3) + sigmoid(1)) / 2)
    assert report.after.position_bias.value == pytest.approx(0.5)
    assert report.change.position_consistency.value == 1.0
    assert report.change.first_position_rate.value == -0.5


def test_calibrated_readings_are_the_shifted_logits() -> None:
    pairs = always_first()
    calibrated = calibrate_out_of_fold(pairs)
    for before, after in zip(pairs, calibrated, strict=True):
        toward_a = 1.0 if before.label == "A" else -1.0
        assert after.group == before.group
        assert after.label == before.label
        assert after.p_first_ab == pytest.approx(sigmoid(toward_a))
        assert after.p_first_ba == pytest.approx(sigmoid(-toward_a))


def test_the_measures_on_hand_counted_readings() -> None:
    pairs = [
        # Both orders choose the first shown: inconsistent; A first picks A (right).
        PositionPair("d1", "A", p_first_ab=0.9, p_first_ba=0.7),
        # Consistent on B: A first picks B, B first picks B; averaged P(A) = 0.25 (right).
        PositionPair("d1", "B", p_first_ab=0.2, p_first_ba=0.7),
        # Consistent on A, but the human prefers B: wrong both ways.
        PositionPair("d2", "B", p_first_ab=0.6, p_first_ba=0.4),
        # Exactly 0.5 picks the first shown, as PairwiseJudge reads it; averaged P(A) is
        # exactly 0.5, a tie, which counts as wrong.
        PositionPair("d2", "A", p_first_ab=0.5, p_first_ba=0.5),
    ]
    before = position_report(pairs, n_boot=0).before
    assert before.position_bias.value == pytest.approx((0.9 + 0.7 + 0.2 + 0.7 + 0.6 + 0.4 + 1) / 8)
    assert before.position_bias.n == 8
    # First-shown choices: 0.9, 0.7 | 0.7 | 0.6 | 0.5, 0.5 -> 6 of 8.
    assert before.first_position_rate.value == 6 / 8
    assert before.position_consistency.value == 2 / 4
    assert before.position_consistency.n == 4
    # A first: picks A, B, A, A against A, B, B, A.
    assert before.accuracy_a_first.value == 3 / 4
    # Averaged P(A): 0.6 (A), 0.25 (B), 0.6 (A), 0.5 (tie) against A, B, B, A.
    assert before.accuracy_both_orders.value == 2 / 4


def test_the_held_out_group_never_shapes_its_own_offset() -> None:
    pairs = [*always_first(), biased("doc4", "A", bias=-3.0), biased("doc4", "B", bias=5.0)]
    offsets = out_of_fold_offsets(pairs)
    for group, offset in offsets.items():
        assert offset == fit_offset([p for p in pairs if p.group != group])

    # Whatever the held-out group's readings are, its offset stays; every other one moves.
    changed = [
        PositionPair("doc4", p.label, p_first_ab=0.999, p_first_ba=0.001)
        if p.group == "doc4"
        else p
        for p in pairs
    ]
    moved = out_of_fold_offsets(changed)
    assert moved["doc4"] == offsets["doc4"]
    assert all(moved[g] != offsets[g] for g in offsets if g != "doc4")


def test_each_fit_sees_only_the_other_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[set[str]] = []
    fit = _position.fit_offset

    def spying(pairs: Sequence[PositionPair], *, epsilon: float) -> float:
        seen.append({p.group for p in pairs})
        return fit(pairs, epsilon=epsilon)

    monkeypatch.setattr(_position, "fit_offset", spying)
    pairs = always_first()
    offsets = position_report(pairs, n_boot=0).offsets
    assert seen == [{g for g in offsets if g != held_out} for held_out in offsets]


def test_a_saturated_reading_is_clipped_for_the_fit_and_kept_by_the_shift() -> None:
    pairs = [PositionPair("d1", "A", 1.0, 1.0), PositionPair("d2", "B", 0.0, 0.5)]
    assert fit_offset(pairs[:1], epsilon=1e-4) == pytest.approx(math.log(0.9999 / 0.0001))
    assert pairs[0].shifted(5.0) == pairs[0]
    assert pairs[1].shifted(-1.0).p_first_ab == 0.0
    assert pairs[1].shifted(-1.0).p_first_ba == pytest.approx(sigmoid(1.0))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["g1", "g2", "g3"]),
            st.sampled_from(["A", "B"]),
            st.floats(0.001, 0.999),
            st.floats(0.001, 0.999),
        ),
        min_size=2,
        max_size=12,
    ).filter(lambda rows: len({row[0] for row in rows}) >= 2)
)
def test_a_constant_shift_never_changes_the_averaged_choice(
    rows: list[tuple[str, str, float, float]],
) -> None:
    pairs = [
        PositionPair(group, "A" if label == "A" else "B", ab, ba) for group, label, ab, ba in rows
    ]
    report = position_report(pairs, n_boot=0)
    assert report.after.accuracy_both_orders.value == report.before.accuracy_both_orders.value


def test_intervals_resample_groups_and_the_change_is_paired() -> None:
    labels: tuple[PositionLabel, ...] = ("A", "B", "A")
    pairs = [
        biased(f"doc{g}", label, bias=1.0 + g / 4, quality=0.5 + k / 3)
        for g in range(6)
        for k, label in enumerate(labels)
    ]
    report = position_report(pairs, n_boot=200, seed=3)
    for stats in (report.before, report.after, report.change):
        for estimate in (stats.position_bias, stats.position_consistency):
            assert estimate.interval is not None
            assert estimate.value is not None
            low, high = estimate.interval
            assert low <= estimate.value <= high
    before, after = report.before.position_bias.value, report.after.position_bias.value
    assert before is not None
    assert after is not None
    assert report.change.position_bias.value == pytest.approx(after - before)
    assert report.groups == 6
    assert report.pairs == 18
    assert report.prefer_a == 12
    assert position_report(pairs, n_boot=200, seed=3) == report


def test_the_report_renders_and_round_trips() -> None:
    report = position_report(always_first(), n_boot=50)
    text = report.to_markdown(title="Position")
    assert text.startswith("## Position\n")
    assert "8 pairs in 4 groups; humans prefer A in 4." in text
    assert "| position consistency: both orders choose the same output | 0.00" in text
    assert "b ranged from +2.00 to +2.00" in text
    assert PositionReport.model_validate_json(report.model_dump_json()) == report


def test_from_orders_reads_pairwise_judge_records() -> None:
    orders = [
        {"shown_first": "B", "p_a": 0.3, "choice": "B"},
        {"shown_first": "A", "p_a": 0.9, "choice": "A"},
    ]
    pair = PositionPair.from_orders("doc", "A", orders)
    assert pair.p_first_ab == 0.9
    assert pair.p_first_ba == pytest.approx(0.7)


@pytest.mark.parametrize(
    ("orders", "message"),
    [
        ([{"shown_first": "A", "p_a": 0.9}], r"orders: expected one order with A shown first"),
        (
            [{"shown_first": "A", "p_a": 0.9}, {"shown_first": "B", "p_a": None}],
            r"orders\[1\]\.p_a: missing",
        ),
        (
            [{"shown_first": "A", "p_a": 0.9}, {"shown_first": "A", "p_a": 0.1}],
            r"orders\[1\]\.shown_first: a second order with A",
        ),
        ([{"shown_first": "first", "p_a": 0.9}], r"orders\[0\]\.shown_first: 'first'"),
        ([{"shown_first": "A", "p_a": 1.5}], r"orders\[0\]\.p_a: 1\.5 is not a probability"),
        (["A first"], r"orders\[0\]: 'A first' is not a mapping"),
    ],
)
def test_bad_orders_name_the_field(orders: list[Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PositionPair.from_orders("doc", "A", orders)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("", "A", 0.5, 0.5), r"group: '' is not a non-empty string"),
        (("d", "tie", 0.5, 0.5), r"label: 'tie' is not A or B"),
        (("d", "A", 1.2, 0.5), r"p_first_ab: 1\.2 is not a probability in \[0, 1\]"),
        (("d", "A", 0.5, math.nan), r"p_first_ba: nan is not a probability"),
        (("d", "A", True, 0.5), r"p_first_ab: True is not a probability"),
    ],
)
def test_bad_pairs_name_the_field(arguments: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PositionPair(*arguments)


def test_from_p_a_names_its_own_fields() -> None:
    with pytest.raises(ValueError, match=r"p_a_ba: -0\.1 is not a probability"):
        PositionPair.from_p_a("d", "A", p_a_ab=0.5, p_a_ba=-0.1)


def test_one_group_cannot_be_calibrated_out_of_fold() -> None:
    pairs = [PositionPair("only", "A", 0.9, 0.8), PositionPair("only", "B", 0.7, 0.6)]
    with pytest.raises(ValueError, match=r"pairs: leave-one-group-out needs at least 2 groups, "):
        position_report(pairs)
    with pytest.raises(ValueError, match=r"got no pairs"):
        out_of_fold_offsets([])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"epsilon": 0.0}, r"epsilon: 0\.0 is not between 0 and 0\.5"),
        ({"epsilon": 0.5}, r"epsilon: 0\.5 is not between 0 and 0\.5"),
        ({"n_boot": -1}, r"n_boot: -1 is not a whole number"),
        ({"confidence": 1.0}, r"confidence: 1\.0 is not between 0 and 1"),
    ],
)
def test_bad_options_name_the_option(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        position_report(always_first(), **options)


def test_no_pairs_to_fit_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"pairs: none to fit an offset on"):
        fit_offset([])


def pairwise_judgment(p_a: dict[str, float | None]) -> Judgment:
    orders = tuple(
        PairwiseOrder(
            shown_first=shown,
            choice="A",
            stated="1",
            probabilities=None,
            p_a=value,
            reason="",
            prompt_sha256="0" * 64,
        )
        for shown, value in p_a.items()
    )
    report = PairwiseReport(
        both_orders=len(orders) == 2,
        tie_margin=0.1,
        rubric=None,
        method="logprobs",
        p_a=None,
        position_consistent=None,
        orders=orders,
    )
    return Judgment.ok("A is better", metadata=report.to_metadata())


def test_from_judgment_reads_a_pairwise_report() -> None:
    pair = PositionPair.from_judgment("doc", "A", pairwise_judgment({"B": 0.3, "A": 0.9}))
    assert pair.p_first_ab == 0.9
    assert pair.p_first_ba == pytest.approx(0.7)


def test_from_judgment_refuses_a_judgment_without_both_readings() -> None:
    with pytest.raises(ValueError, match=r"holds no pairwise comparison"):
        PositionPair.from_judgment("doc", "A", Judgment.error("the model failed"))
    with pytest.raises(ValueError, match=r"orders\[1\]\.p_a: missing"):
        PositionPair.from_judgment("doc", "A", pairwise_judgment({"A": 0.9, "B": None}))
