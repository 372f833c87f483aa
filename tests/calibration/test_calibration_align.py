"""Alignment: out-of-fold validation, the refit on all data, and its JSON form."""

import json

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from jurist.calibration import Alignment, correlations, fit_alignment

FAST = {"n_boot": 30, "seed": 0}


def _monotone(n: int = 120, noise: float = 0.15) -> tuple[list[dict[str, float]], list[float]]:
    rng = np.random.default_rng(5)
    expected = rng.uniform(1, 5, size=n)
    human = 1 + 4 / (1 + np.exp(-2 * (expected - 3))) + rng.normal(scale=noise, size=n)
    signals = [
        {"expected": float(e), "confidence": float(c)}
        for e, c in zip(expected, rng.random(n), strict=True)
    ]
    return signals, [float(h) for h in human]


def test_isotonic_out_of_fold_correlation_is_high_on_a_noisy_monotone_relation():
    signals, human = _monotone()
    alignment = fit_alignment(signals, human, method="isotonic", **FAST)
    assert alignment.signals == ["expected"]  # the first signal of the first item
    assert alignment.validation is not None
    assert len(alignment.validation.out_of_fold) == len(human)
    pearson = alignment.validation.correlations.pooled.pearson
    assert pearson.value is not None
    assert pearson.value > 0.9


def test_on_pure_noise_out_of_fold_correlation_is_near_0_though_in_sample_is_not():
    rng = np.random.default_rng(9)
    signals = [{"score": float(v)} for v in rng.normal(size=150)]
    human = [float(v) for v in rng.normal(size=150)]
    alignment = fit_alignment(signals, human, method="isotonic", **FAST)
    assert alignment.validation is not None
    out_of_fold = alignment.validation.correlations.pooled.pearson.value
    assert out_of_fold is not None
    assert abs(out_of_fold) < 0.25
    in_sample = [alignment.apply(s) for s in signals]
    overfit = correlations(human, in_sample, n_boot=0).pooled.pearson.value
    assert overfit is not None
    assert overfit > out_of_fold + 0.2


def test_linear_recovers_an_exact_relation_and_applies_it():
    rng = np.random.default_rng(2)
    signals = [{"a": float(a), "b": float(b)} for a, b in rng.uniform(0, 1, size=(40, 2))]
    human = [2 * s["a"] - s["b"] + 1 for s in signals]
    alignment = fit_alignment(signals, human, method="linear", folds=4, **FAST)
    assert alignment.intercept == pytest.approx(1.0)
    assert alignment.coefficients == pytest.approx({"a": 2.0, "b": -1.0})
    assert alignment.apply({"a": 0.5, "b": 0.25, "unused": 9.0}) == pytest.approx(1.75)
    assert alignment.validation is not None
    assert alignment.validation.correlations.pooled.pearson.value == pytest.approx(1.0)


def test_groups_split_by_document_and_give_per_document_correlations():
    signals, human = _monotone(n=60)
    groups = [f"doc{i // 4}" for i in range(60)]
    alignment = fit_alignment(signals, human, method="linear", groups=groups, **FAST)
    assert alignment.validation is not None
    assert alignment.validation.grouped
    per_group = alignment.validation.correlations.per_group
    assert per_group is not None
    assert per_group.groups_used + per_group.groups_skipped == 15
    with pytest.raises(ValueError, match="5 folds need 5\\+ distinct groups, got 3"):
        fit_alignment(signals, human, groups=[f"d{i % 3}" for i in range(60)])


def test_isotonic_apply_matches_sklearn_inside_and_beyond_the_data():
    signals, human = _monotone(n=50)
    alignment = fit_alignment(signals, human, method="isotonic", signal="confidence", **FAST)
    assert alignment.signals == ["confidence"]
    x = np.array([s["confidence"] for s in signals])
    reference = IsotonicRegression(out_of_bounds="clip").fit(x, human)
    for value in (-1.0, 0.1, 0.37, 0.5, 0.93, 2.0):
        assert alignment.apply({"confidence": value}) == pytest.approx(
            float(reference.predict([value])[0])
        )


def test_alignments_round_trip_through_dicts_and_files(tmp_path):
    signals, human = _monotone(n=40)
    for method in ("isotonic", "linear"):
        alignment = fit_alignment(signals, human, method=method, **FAST)  # type: ignore[arg-type]
        data = alignment.to_dict()
        json.dumps(data, allow_nan=False)  # plain JSON: numbers, not pickles
        assert Alignment.from_dict(data) == alignment
        path = alignment.save(tmp_path / f"{method}.json")
        loaded = Alignment.load(path)
        assert loaded == alignment
        assert loaded.apply(signals[0]) == alignment.apply(signals[0])


def test_bad_inputs_name_the_problem():
    signals, human = _monotone(n=20)
    with pytest.raises(ValueError, match=r"signals\[3\]: missing signal\(s\) confidence"):
        fit_alignment([*signals[:3], {"expected": 1.0}, *signals[4:]], human, method="linear")
    with pytest.raises(ValueError, match=r"human\[0\]: nan is not a finite number"):
        fit_alignment(signals, [float("nan"), *human[1:]])
    with pytest.raises(ValueError, match="signal: 'nope' is not among the signals"):
        fit_alignment(signals, human, signal="nope")
    with pytest.raises(ValueError, match="folds: 1 is not a whole number >= 2"):
        fit_alignment(signals, human, folds=1)
    alignment = fit_alignment(signals, human, **FAST)
    with pytest.raises(ValueError, match="signals: missing signal\\(s\\) expected"):
        alignment.apply({"confidence": 0.5})
    with pytest.raises(ValueError, match="isotonic alignment needs x_thresholds"):
        Alignment(method="isotonic", signals=["x"])
