"""Agreement statistics on synthetic data with known answers."""

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from jurist.calibration import (
    CalibrationVerdict,
    Estimate,
    binary_metrics,
    cohen_kappa,
    correlations,
    krippendorff_alpha,
    latency_summary,
    pairwise_metrics,
)

FAST = {"n_boot": 100, "seed": 0}


def test_a_perfect_linear_relation_correlates_1_with_a_tight_interval():
    human = [1.0, 1.5, 2.0, 3.0, 3.5, 4.0, 4.5, 5.0, 2.5, 1.2]
    judge = [2 * h + 1 for h in human]
    found = correlations(human, judge, **FAST).pooled
    for estimate in (found.pearson, found.spearman, found.kendall):
        assert estimate.value == pytest.approx(1.0)
        assert estimate.low == pytest.approx(1.0)
        assert estimate.high == pytest.approx(1.0)
        assert estimate.n == 10


def test_independent_scores_correlate_near_0_with_an_interval_around_0():
    rng = np.random.default_rng(7)
    human, judge = rng.normal(size=300), rng.normal(size=300)
    found = correlations(list(human), list(judge), **FAST).pooled
    for estimate in (found.pearson, found.spearman, found.kendall):
        assert estimate.value is not None
        assert abs(estimate.value) < 0.15
        assert estimate.low is not None
        assert estimate.high is not None
        assert estimate.low < 0 < estimate.high


def test_a_correlated_sample_has_an_interval_around_its_estimate_that_the_seed_fixes():
    rng = np.random.default_rng(3)
    human = rng.normal(size=80)
    judge = human + rng.normal(size=80)
    first = correlations(list(human), list(judge), **FAST).pooled.pearson
    again = correlations(list(human), list(judge), **FAST).pooled.pearson
    other_seed = correlations(list(human), list(judge), n_boot=100, seed=1).pooled.pearson
    assert first == again
    assert (other_seed.low, other_seed.high) != (first.low, first.high)
    assert first.low is not None
    assert first.high is not None
    assert first.value is not None
    assert 0.4 < first.low < first.value < first.high < 0.9


def test_constant_scores_give_no_value_and_a_reason_never_nan():
    found = correlations([1, 2, 3, 4], [3, 3, 3, 3], groups=["d", "d", "e", "e"], **FAST)
    assert found.pooled.pearson == Estimate(value=None, n=4, reason="the judge scores are constant")
    assert found.pooled.kendall.value is None
    assert found.per_group is not None
    assert found.per_group.groups_used == 0
    assert found.per_group.groups_skipped == 2
    assert found.per_group.spearman.value is None
    text = found.model_dump_json()
    assert "NaN" not in text
    assert json.loads(text)["pooled"]["spearman"]["value"] is None
    both = correlations([2, 2], [5, 5], n_boot=0).pooled.pearson
    assert both.reason == "the human and the judge scores are both constant"


def test_per_group_coefficients_are_averaged_over_usable_groups_by_hand():
    human = [1, 2, 3, 1, 2, 3, 2, 2, 4]
    judge = [1, 3, 2, 3, 2, 1, 1, 5, 4]
    groups = ["g1", "g1", "g1", "g2", "g2", "g2", "flat", "flat", "single"]
    found = correlations(human, judge, groups=groups, **FAST).per_group
    assert found is not None
    # g1: r = rho = 0.5, tau = 1/3; g2: all -1; "flat" (constant human) and "single" skipped.
    assert found.pearson.value == pytest.approx((0.5 - 1) / 2)
    assert found.spearman.value == pytest.approx((0.5 - 1) / 2)
    assert found.kendall.value == pytest.approx((1 / 3 - 1) / 2)
    assert (found.groups_used, found.groups_skipped) == (2, 2)
    assert found.pearson.n == 2
    # Resampling two groups can only average -1 and 0.5 in the proportions 0, 1/2 or 1.
    assert found.pearson.low == pytest.approx(-1.0)
    assert found.pearson.high == pytest.approx(0.5)


def test_missing_judge_scores_are_left_out_and_counted():
    human = [1.0, 2.0, 3.0, 4.0, 5.0]
    judge = [1.0, None, 3.0, float("nan"), 5.0]
    found = correlations(human, judge, **FAST)
    assert (found.n, found.missing) == (3, 2)
    assert found.pooled.pearson.value == pytest.approx(1.0)


def test_without_resamples_there_is_no_interval_and_inputs_are_checked():
    estimate = correlations([1, 2, 3], [1, 3, 2], n_boot=0).pooled.pearson
    assert estimate.value == pytest.approx(0.5)
    assert estimate.interval is None
    with pytest.raises(ValueError, match="human has 3, judge has 2"):
        correlations([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"confidence: 1\.5 is not between 0 and 1"):
        correlations([1, 2, 3], [1, 2, 3], confidence=1.5)
    with pytest.raises(ValueError, match=r"judge\[1\]: 'x' is not a finite number"):
        correlations([1, 2], [1, "x"])  # type: ignore[list-item]


def test_estimates_format_with_sign_and_interval():
    assert Estimate(value=0.354, low=0.15, high=0.532, n=9).format() == "+0.35 [+0.15, +0.53]"
    assert Estimate(value=0.9, n=9).format(signed=False) == "0.90"
    assert Estimate(value=None, n=2, reason="too few").format() == "n/a (too few)"
    a, b, c = (Estimate(value=v, low=v - 0.1, high=v + 0.1, n=5) for v in (0.5, 0.6, 0.9))
    assert a.overlaps(b) is True
    assert a.overlaps(c) is False
    assert a.overlaps(Estimate(value=0.5, n=5)) is None


def test_a_perfect_ranker_has_auc_1_and_the_counts_add_up():
    labels = [True, True, True, False, False, False, False, True]
    probabilities = [0.9, 0.8, 0.7, 0.1, 0.2, 0.3, 0.6, 0.65]
    predictions = [p > 0.5 for p in probabilities]  # 0.6 is a false positive
    found = binary_metrics(labels, predictions, probabilities, **FAST)
    assert found.auc.value == pytest.approx(1.0)
    assert found.accuracy.value == pytest.approx(7 / 8)
    assert found.balanced_accuracy.value == pytest.approx((4 / 4 + 3 / 4) / 2)
    assert found.f1.value == pytest.approx(2 * 4 / (2 * 4 + 1))
    counts = found.counts
    assert (counts.true_positive, counts.false_positive) == (4, 1)
    assert (counts.true_negative, counts.false_negative) == (3, 0)
    assert found.accuracy.low is not None
    assert found.accuracy.low <= 7 / 8 <= found.accuracy.high


def test_binary_metrics_explain_what_is_undefined_and_skip_missing_answers():
    found = binary_metrics([True, True, True], [True, None, False], n_boot=0)
    assert (found.n, found.missing) == (2, 1)
    assert found.accuracy.value == pytest.approx(0.5)
    assert found.balanced_accuracy.value is None
    assert found.balanced_accuracy.reason == "needs both true and false labels"
    assert found.auc.reason == "no probabilities were given"
    assert "NaN" not in found.model_dump_json()


def test_pairwise_accuracy_excludes_tie_labels_agreement_counts_them():
    labels = ["A", "B", "tie", "A", "tie", "B"]
    ab = ["A", "A", "tie", "tie", "A", None]
    # Swapped order: "B" there names output_a.
    ba = ["B", "A", "tie", "tie", "B", "A"]
    found = pairwise_metrics(labels, ab, ba, **FAST)
    assert (found.n, found.missing) == (5, 1)
    assert found.accuracy.value == pytest.approx(1 / 3)  # items 0, 1, 3 have A/B labels
    assert found.accuracy.n == 3
    assert found.agreement.value == pytest.approx(2 / 5)  # items 0 and 2
    assert found.position_consistency is not None
    # item 0 names output_a twice, 1 flips, 2 and 3 tie twice, 4 names output_a twice.
    assert found.position_consistency.value == pytest.approx(4 / 5)
    assert found.confusion == [[1, 0, 1], [1, 0, 0], [1, 0, 1]]
    assert pairwise_metrics(labels, ab, n_boot=0).position_consistency is None
    with pytest.raises(ValueError, match=r"choices_ab\[1\]: 'C' is not A, B or tie"):
        pairwise_metrics(["A", "B"], ["A", "C"])


def test_kappa_of_identical_raters_is_1_and_continuous_scores_are_rounded_half_up():
    assert cohen_kappa([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], **FAST).value == pytest.approx(1.0)
    rounded = cohen_kappa([1.2, 2.5, 3.49, 4.6], [1, 3, 3, 5], "quadratic", n_boot=0)
    assert rounded.value == pytest.approx(1.0)
    labels = cohen_kappa(["A", "B", "tie", "A"], ["A", "B", "tie", "A"], n_boot=0)
    assert labels.value == pytest.approx(1.0)


def test_weighted_kappa_measures_distance_on_the_integer_scale():
    a, b = [1, 2, 5, 5], [2, 2, 5, 1]
    expected = cohen_kappa_score(a, b, weights="linear", labels=[1, 2, 3, 4, 5])
    assert cohen_kappa(a, b, "linear", n_boot=0).value == pytest.approx(expected)
    assert expected != pytest.approx(cohen_kappa_score(a, b, weights="linear"))


def test_kappa_of_one_shared_rating_has_no_value():
    found = cohen_kappa([3, 3, 3], [3, 3, 3], **FAST)
    assert found.value is None
    assert found.reason == "both raters gave one and the same rating to every item"
    with pytest.raises(ValueError, match="weighted kappa needs numeric ratings"):
        cohen_kappa(["A"], ["B"], "linear")


def test_alpha_of_identical_raters_is_1_and_missing_ratings_are_allowed():
    ratings = [1.0, 2.0, 3.0, 4.0, 5.0, 2.0]
    for level in ("interval", "ordinal", "nominal"):
        found = krippendorff_alpha([ratings, ratings], level, **FAST)  # type: ignore[arg-type]
        assert found.value == pytest.approx(1.0)
    partial = krippendorff_alpha([[1, 2, 3, None], [1, 2, 3, 4]], n_boot=0)
    assert partial.value == pytest.approx(1.0)
    assert partial.n == 3
    labels = krippendorff_alpha([["A", "B", "tie"], ["A", "B", "tie"]], "nominal", n_boot=0)
    assert labels.value == pytest.approx(1.0)


def test_alpha_explains_degenerate_data_and_checks_its_inputs():
    assert krippendorff_alpha([[2, 2], [2, 2]], n_boot=0).reason == "every rating is the same value"
    with pytest.raises(ValueError, match="alpha needs 2"):
        krippendorff_alpha([[1, 2, 3]])
    with pytest.raises(ValueError, match="labels \\(strings\\) need level 'nominal'"):
        krippendorff_alpha([["A", "B"], ["A", "B"]], "interval")


def test_alpha_of_unrelated_raters_is_near_0():
    rng = np.random.default_rng(11)
    first, second = (list(rng.integers(1, 6, size=300).astype(float)) for _ in range(2))
    found = krippendorff_alpha([first, second], n_boot=0)
    assert found.value is not None
    assert abs(found.value) < 0.2


def test_latency_p95_and_the_qv04_verdict():
    found = latency_summary([float(s) for s in range(1, 101)])
    assert found.p95 == pytest.approx(95.05)
    assert found.p50 == pytest.approx(50.5)
    assert (found.n, found.max, found.mean) == (100, 100.0, pytest.approx(50.5))
    assert found.verdict is CalibrationVerdict.FAIL
    fast = latency_summary([1.0] * 19 + [100.0])
    assert fast.p95 == pytest.approx(1 + 0.05 * 99)
    assert fast.verdict is CalibrationVerdict.PASS
    assert (
        latency_summary([30.0] * 3).verdict is CalibrationVerdict.FAIL
    )  # the bar is strictly below 30 s
    with pytest.raises(ValueError, match=r"seconds\[1\]: -1.0 is not a finite time"):
        latency_summary([1.0, -1.0])
    with pytest.raises(ValueError, match="no timings"):
        latency_summary([])
