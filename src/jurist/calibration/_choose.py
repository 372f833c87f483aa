"""Choosing among scorers without choosing on the items that are then reported.

Picking the best of several scorers (methods, aggregates of one method) on a calibration set
and reporting that best figure on the same set flatters it. Here each document is scored by
the candidate that did best on the *other* documents (leave-one-document-out), so the
reported figure is out of fold by construction, and the choices made are kept for reading.

    chosen = choose_out_of_fold({"min": p_min, "mean": p_mean}, human, groups=doc_ids)
    chosen.predictions   # each item scored by the candidate chosen without its document
    chosen.choices       # {doc_id: "min", ...}
"""

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from scipy.stats import spearmanr


@dataclass(frozen=True)
class FoldChoice:
    """Out-of-fold predictions and, per held-out group, the candidate chosen for it."""

    predictions: list[float | None]
    choices: dict[Hashable, str]

    def counts(self) -> dict[str, int]:
        """How many held-out groups chose each candidate."""
        out: dict[str, int] = {}
        for name in self.choices.values():
            out[name] = out.get(name, 0) + 1
        return out


def choose_out_of_fold(
    candidates: Mapping[str, Sequence[float | None]],
    human: Sequence[float | None],
    *,
    groups: Sequence[Hashable],
) -> FoldChoice:
    """For each group, the candidate with the highest Spearman against `human` over every
    other group (ties go to the candidate listed first), and its scores for the group.

    A candidate's None (it could not score an item) leaves that item out of its Spearman;
    a candidate that cannot be ranked on the other groups (fewer than three scored items,
    or constant scores), or that scores none of the group's items, is not chosen for it.
    A group for which no candidate can be chosen gets None predictions rather than an
    arbitrary pick."""
    if not candidates:
        raise ValueError("candidates: none given")
    n = len(human)
    if len(groups) != n:
        raise ValueError(f"groups has {len(groups)} items but human has {n}")
    for name, values in candidates.items():
        if len(values) != n:
            raise ValueError(f"candidates[{name!r}] has {len(values)} items but human has {n}")
    predictions: list[float | None] = [None] * n
    choices: dict[Hashable, str] = {}
    for group in dict.fromkeys(groups):
        rest = [i for i in range(n) if groups[i] != group]
        held = [i for i in range(n) if groups[i] == group]
        best_name, best_rho = None, -math.inf
        for name, values in candidates.items():
            if all(values[i] is None for i in held):
                continue  # it cannot score this group: choosing it would score nothing
            rho = _spearman([human[i] for i in rest], [values[i] for i in rest])
            if rho is not None and rho > best_rho:
                best_name, best_rho = name, rho
        if best_name is None:
            continue
        choices[group] = best_name
        for i in range(n):
            if groups[i] == group:
                predictions[i] = candidates[best_name][i]
    return FoldChoice(predictions, choices)


def _spearman(human: Sequence[float | None], judge: Sequence[float | None]) -> float | None:
    pairs = [(h, j) for h, j in zip(human, judge, strict=True) if h is not None and j is not None]
    if len(pairs) < 3 or len({j for _, j in pairs}) < 2 or len({h for h, _ in pairs}) < 2:
        return None
    rho = spearmanr([h for h, _ in pairs], [j for _, j in pairs]).statistic
    return float(rho) if math.isfinite(rho) else None
