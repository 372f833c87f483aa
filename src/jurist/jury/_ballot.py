"""Ballots, and the protocol of the strategies that count them."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from jurist.core import Judgment


def check_weight(name: str, weight: object) -> float:
    """`weight` as a float, or a ValueError naming the judge it belongs to."""
    # bool is an int, but a True/False weight is surely a mistake, not 1.0/0.0
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        raise ValueError(f"weight of judge {name!r} must be a number, got {type(weight).__name__}")
    if not math.isfinite(weight) or weight < 0:
        raise ValueError(f"weight of judge {name!r} must be a finite number >= 0, got {weight}")
    return float(weight)


@dataclass(frozen=True)
class Ballot:
    """One judge's judgment as a strategy sees it: who, what, and how much it counts.

    A weight of 0 means the judgment is recorded but does not vote at all (a shadow judge):
    not even its ERROR affects the result.
    """

    name: str
    judgment: Judgment
    weight: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "weight", check_weight(self.name, self.weight))


@runtime_checkable
class VotingStrategy(Protocol):
    """Turns ballots into one judgment.

    Every strategy follows the same rules: ABSTAIN is never a failing vote, a ballot of
    weight 0 does not vote, errors are handled by the strategy's ErrorPolicy before
    counting, and with no vote left the result is ABSTAIN. Neither the order of the ballots
    nor scaling all weights by the same positive factor changes the result.
    """

    @property
    def name(self) -> str: ...

    def aggregate(self, ballots: Sequence[Ballot]) -> Judgment: ...
