"""Alignment: a map from a judge's signals (expected score, per-criterion scores,
confidences) to the human score, fitted on a calibration set and judged out of fold only.

    alignment = fit_alignment(signals, human, method="linear", groups=doc_ids)
    alignment.validation.correlations.pooled.pearson   # out-of-fold, never in-sample
    alignment.save("coherence.alignment.json")
    Alignment.load("coherence.alignment.json").apply({"expected": 3.7, "confidence": 0.8})
"""

import json
import math
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, model_validator

from jurist.calibration._estimates import (
    Correlations,
)
from jurist.calibration._stats import (
    correlations,
)

try:
    import numpy as np
    from sklearn.isotonic import IsotonicRegression
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import GroupKFold, KFold, cross_val_predict
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "jurist.calibration needs the 'calibration' extra: pip install 'jurist[calibration]'"
    ) from exc

Method = Literal["isotonic", "linear"]


class AlignmentValidation(BaseModel):
    """Cross-validation of the alignment: each prediction comes from a model that never saw
    the item (nor, with groups, its document)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    folds: int
    grouped: bool
    seed: int
    out_of_fold: list[float]
    correlations: Correlations


class Alignment(BaseModel):
    """A fitted map from named signals to the human score.

    linear: `intercept` + sum of `coefficients[name] * signal`, fitted by least squares.
    isotonic: a non-decreasing step-and-slope function of the single signal in `signals`,
    given by its knots (`x_thresholds`, `y_thresholds`); inputs beyond the knots are
    clipped to the end values, as sklearn's `out_of_bounds="clip"` does.
    The model is fitted on all the data; `validation` says how well it does out of fold.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Method
    signals: list[str]
    intercept: float | None = None
    coefficients: dict[str, float] | None = None
    x_thresholds: list[float] | None = None
    y_thresholds: list[float] | None = None
    validation: AlignmentValidation | None = None

    @model_validator(mode="after")
    def _parameters_match_method(self) -> "Alignment":
        if not self.signals:
            raise ValueError("signals: an alignment needs at least one signal")
        if self.method == "linear":
            if self.intercept is None or self.coefficients is None:
                raise ValueError("a linear alignment needs intercept and coefficients")
            if set(self.coefficients) != set(self.signals):
                raise ValueError("coefficients: must name exactly the signals")
            if self.x_thresholds is not None or self.y_thresholds is not None:
                raise ValueError("a linear alignment has no x_thresholds or y_thresholds")
        else:
            if len(self.signals) != 1:
                raise ValueError(f"signals: isotonic uses one signal, got {self.signals}")
            if not self.x_thresholds or self.y_thresholds is None:
                raise ValueError("an isotonic alignment needs x_thresholds and y_thresholds")
            if len(self.x_thresholds) != len(self.y_thresholds):
                raise ValueError("x_thresholds and y_thresholds must have one length")
            if self.intercept is not None or self.coefficients is not None:
                raise ValueError("an isotonic alignment has no intercept or coefficients")
        return self

    def apply(self, signals: Mapping[str, float]) -> float:
        """The aligned score for one item's signals (extra signals are ignored)."""
        row = _row(signals, self.signals, "signals")
        if self.intercept is not None and self.coefficients is not None:
            coefficients = self.coefficients
            return self.intercept + sum(
                coefficients[name] * value for name, value in zip(self.signals, row, strict=True)
            )
        if self.x_thresholds is None or self.y_thresholds is None:  # the validator forbids it
            raise ValueError(f"a {self.method} alignment without its parameters")
        # np.interp clamps beyond the end knots: sklearn's out_of_bounds="clip".
        return float(np.interp(row[0], self.x_thresholds, self.y_thresholds))

    def to_dict(self) -> dict[str, object]:
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Self:
        return cls.model_validate(data)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Self:
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))


def fit_alignment(
    signals: Sequence[Mapping[str, float]],
    human: Sequence[float],
    *,
    method: Method = "isotonic",
    signal: str | None = None,
    folds: int = 5,
    groups: Sequence[Hashable] | None = None,
    seed: int = 0,
    n_boot: int = 1000,
    confidence: float = 0.95,
) -> Alignment:
    """Fit a map from judge `signals` (one mapping per item) to `human` scores.

    linear: least squares (sklearn LinearRegression) on every signal of the first item.
    isotonic: sklearn IsotonicRegression (non-decreasing) on ONE signal: `signal`, or the
    first one of the first item; the other signals are ignored.

    Validation: `folds`-fold cross-validation, by GroupKFold on `groups` (document ids, so
    no document is in both the fitting and the scored part) or else shuffled KFold with
    `seed`. Only out-of-fold predictions are scored (Pearson, Spearman, Kendall with the
    bootstrap of `correlations`), never in-sample ones. The returned model is then fitted on
    all the data.
    """
    if method not in ("isotonic", "linear"):
        raise ValueError(f"method: {method!r} is not 'isotonic' or 'linear'")
    if len(signals) != len(human):
        raise ValueError(f"signals has {len(signals)} items but human has {len(human)}")
    if groups is not None and len(groups) != len(human):
        raise ValueError(f"groups has {len(groups)} items but human has {len(human)}")
    if len(signals) == 0:
        raise ValueError("signals: no items to fit")
    names = _signal_names(signals[0], method, signal)
    x = np.array([_row(row, names, f"signals[{i}]") for i, row in enumerate(signals)])
    y = np.array([_finite(value, f"human[{i}]") for i, value in enumerate(human)])
    splitter = _splitter(folds, len(y), groups, seed)

    out_of_fold = cross_val_predict(_estimator(method), x, y, groups=groups, cv=splitter)
    validation = AlignmentValidation(
        folds=folds,
        grouped=groups is not None,
        seed=seed,
        out_of_fold=[float(v) for v in out_of_fold],
        correlations=correlations(
            list(y),
            [float(v) for v in out_of_fold],
            groups=groups,
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        ),
    )
    fitted = _estimator(method).fit(x, y)
    if method == "linear":
        return Alignment(
            method=method,
            signals=names,
            intercept=float(fitted.intercept_),
            coefficients={n: float(c) for n, c in zip(names, fitted.coef_, strict=True)},
            validation=validation,
        )
    return Alignment(
        method=method,
        signals=names,
        x_thresholds=[float(v) for v in fitted.X_thresholds_],
        y_thresholds=[float(v) for v in fitted.y_thresholds_],
        validation=validation,
    )


def _estimator(method: Method) -> LinearRegression | IsotonicRegression:
    if method == "linear":
        return LinearRegression()
    return IsotonicRegression(increasing=True, out_of_bounds="clip")


def _splitter(
    folds: int, n: int, groups: Sequence[Hashable] | None, seed: int
) -> GroupKFold | KFold:
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise ValueError(f"folds: {folds!r} is not a whole number >= 2")
    if groups is None:
        if n < folds:
            raise ValueError(f"folds: {folds} folds need {folds}+ items, got {n}")
        return KFold(n_splits=folds, shuffle=True, random_state=seed)
    distinct = len(set(groups))
    if distinct < folds:
        raise ValueError(f"folds: {folds} folds need {folds}+ distinct groups, got {distinct}")
    return GroupKFold(n_splits=folds)


def _signal_names(first: Mapping[str, float], method: Method, signal: str | None) -> list[str]:
    if not first:
        raise ValueError("signals[0]: no signals")
    if method == "linear":
        if signal is not None:
            raise ValueError("signal: a linear alignment uses every signal; leave it None")
        return list(first)
    if signal is None:
        return [next(iter(first))]
    if signal not in first:
        raise ValueError(f"signal: {signal!r} is not among the signals: {', '.join(first)}")
    return [signal]


def _row(values: Mapping[str, float], names: Sequence[str], where: str) -> list[float]:
    missing = [name for name in names if name not in values]
    if missing:
        raise ValueError(f"{where}: missing signal(s) {', '.join(missing)}")
    return [_finite(values[name], f"{where}.{name}") for name in names]


def _finite(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{where}: {value!r} is not a finite number")
    return float(value)
