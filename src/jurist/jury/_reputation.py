"""ReputationWeighted: a weighted average whose weights are the judges' reputations, read
when the votes are counted."""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from jurist.core import Judgment
from jurist.jury._averaging import WeightedAverage
from jurist.jury._ballot import Ballot
from jurist.jury._policies import ErrorPolicy


@runtime_checkable
class ReputationSource(Protocol):
    """Anything that can say what each judge's reputation is now (a ReputationBook)."""

    def weights(self) -> Mapping[str, float]: ...


class MissingReputation(StrEnum):
    """What a judge with no reputation counts as.

    - USE_DEFAULT: the strategy's `default` reputation (0.5 unless set).
    - RAISE: an error (a jury turns it into an ERROR verdict naming the judge), for juries
      where every member must have earned its weight.
    """

    USE_DEFAULT = "use_default"
    RAISE = "raise"


@dataclass(frozen=True, init=False)
class ReputationWeighted(WeightedAverage):
    """PASS when the reputation-weighted mean of the votes' values reaches `threshold`.

    `reputations` is a mapping of judge name to reputation in [0, 1], or an object with a
    `weights()` method returning one (a `ReputationBook`). It is read at every aggregation,
    never copied, so reputations that change between verdicts count at once. A judge it
    does not name counts with `default` (0.5), or is an error when `missing` is RAISE.

    A vote counts with its ballot's weight times its judge's reputation, so a jury's own
    weights (1.0 by default) still apply, and a judge of reputation 0 is heard but does
    not vote, like a weight-0 ballot (its ERROR does not count either). Everything else
    is WeightedAverage's: values, the error policy, ABSTAIN with no vote left, the
    threshold and its float tolerance. The metadata adds `reputations`, each judge's
    reputation as used.

    With reputations 0.9, 0.7, 0.5 and scores 0.8, 0.6, 0.4 the centre is
    (0.9*0.8 + 0.7*0.6 + 0.5*0.4) / (0.9 + 0.7 + 0.5) = 1.34 / 2.1 = 0.638...
    """

    # Read live, so neither compared nor hashed.
    reputations: Mapping[str, float] | ReputationSource = field(
        kw_only=True, hash=False, compare=False
    )
    default: float = 0.5
    missing: MissingReputation = MissingReputation.USE_DEFAULT

    def __init__(
        self,
        reputations: Mapping[str, float] | ReputationSource,
        threshold: float = 0.5,
        *,
        errors: ErrorPolicy = ErrorPolicy.TREAT_AS_FAIL,
        category_map: Mapping[str, float] | None = None,
        default: float = 0.5,
        missing: MissingReputation | str = MissingReputation.USE_DEFAULT,
    ) -> None:
        # Written out so that the reputations come first: ReputationWeighted(book).
        if not isinstance(reputations, Mapping) and not callable(
            getattr(reputations, "weights", None)
        ):
            raise TypeError(
                "reputations must be a mapping of judge name to reputation or an object "
                f"with weights(), got {type(reputations).__name__}"
            )
        try:
            policy = MissingReputation(missing)
        except ValueError:
            known = [m.value for m in MissingReputation]
            raise ValueError(f"missing must be one of {known}, got {missing!r}") from None
        for name, value in (
            ("reputations", reputations),
            ("threshold", threshold),
            ("errors", errors),
            ("category_map", category_map),
            ("default", _reputation("default", default)),
            ("missing", policy),
        ):
            object.__setattr__(self, name, value)
        self.__post_init__()

    @property
    def name(self) -> str:
        return "reputation_weighted"

    def aggregate(self, ballots: Sequence[Ballot]) -> Judgment:
        current = self._current()
        used = {b.name: self._reputation_of(b.name, current) for b in ballots}
        reweighted = [Ballot(b.name, b.judgment, b.weight * used[b.name]) for b in ballots]
        result = super().aggregate(reweighted)
        metadata: dict[str, Any] = {**result.metadata, "reputations": used}
        return result.evolve(metadata=metadata)

    def _current(self) -> Mapping[str, float]:
        source = self.reputations
        weights = getattr(source, "weights", None)
        current: object = weights() if callable(weights) else source
        if not isinstance(current, Mapping):
            raise TypeError(
                f"reputations.weights() must return a mapping, got {type(current).__name__}"
            )
        return current

    def _reputation_of(self, judge: str, current: Mapping[str, float]) -> float:
        if judge in current:
            return _reputation(f"reputation of judge {judge!r}", current[judge])
        if self.missing is MissingReputation.RAISE:
            known = sorted(current)
            raise LookupError(
                f"no reputation for judge {judge!r}; reputations are known for {known}"
            )
        return self.default


def _reputation(what: str, value: object) -> float:
    # bool is an int, but a True/False reputation is surely a mistake, not 1.0/0.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} must be a number in [0, 1], got {type(value).__name__}")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{what} must lie in [0, 1], got {value}")
    return float(value)
