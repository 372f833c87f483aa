"""Judge reputations: what is known of a judge (metrics), how events move its score, and
the history of every move. Pure values, no I/O; `jurist.store` persists them.

Two things change a reputation, and they are kept apart:

- **Observations** fold evidence into `ReputationMetrics` (a ground-truth check, a repeated
  evaluation, a vote against the consensus, a challenge, a verified rewrite). They never
  move the score by themselves.
- **Events** (`ReputationEvent`) move the score by the fixed steps of `UPDATE_RULES`,
  clamped to [0, 1], and each move is recorded as a `ReputationChange`.

`reputation_score(metrics)` joins the metrics into one number. It *seeds* a score (after a
tournament, say); from then on, events move it. Values are immutable: every update returns
a new one.

    book = ReputationBook()
    book.seed("evaluator-v3", metrics)                  # score from the metrics
    book.apply("evaluator-v3", ReputationEvent.CONSENSUS_ALIGNMENT, cycle_id=cycle)
    jury = Jury(judges, ReputationWeighted(book))        # reads book.weights() per verdict
"""

import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, Any, Self

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    model_validator,
)

from jurist.core import Usage

DEFAULT_INITIAL_SCORE = 0.5

# "Rewritten prompt scores >10% higher": read as 0.10 on the 0..1 score scale, because a
# relative gain means nothing near 0 (0.01 -> 0.02 is +100%).
SUCCESS_MARGIN = 0.10

# Scores are kept to this many decimal places, so that many small steps (0.005) do not
# pile up binary noise in the score and in the recorded deltas.
_SCORE_DECIMALS = 10
# Differences of scores smaller than this are float noise, not a change.
_NOISE = 1e-9

# The store's columns.
JUDGE_ID_MAX = 200
CYCLE_ID_MAX = 200

Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=0)]


class ReputationEvent(StrEnum):
    """What moves a reputation score. Wire names are stable; `UPDATE_RULES` gives each
    event's step, except SEED, which sets the score from metrics (`Reputation.seed`)."""

    SUCCESSFUL_IMPROVEMENT = "successful_improvement"  # rewrite scored > SUCCESS_MARGIN higher
    FALSE_IMPROVEMENT = "false_improvement"  # claimed an improvement, the score went down
    CONSENSUS_ALIGNMENT = "consensus_alignment"  # voted with the final consensus
    ADVERSARIAL_DETECTION = "adversarial_detection"  # caught a gaming attempt
    CONSTITUTIONAL_VIOLATION = "constitutional_violation"  # proposed breaking a constraint
    SEED = "seed"


UPDATE_RULES: Mapping[ReputationEvent, float] = MappingProxyType(
    {
        ReputationEvent.SUCCESSFUL_IMPROVEMENT: +0.01,
        ReputationEvent.FALSE_IMPROVEMENT: -0.03,
        ReputationEvent.CONSENSUS_ALIGNMENT: +0.005,
        ReputationEvent.ADVERSARIAL_DETECTION: +0.02,
        ReputationEvent.CONSTITUTIONAL_VIOLATION: -0.05,
    }
)

# The weights of `reputation_score`. Accuracy against ground truth is the strongest
# evidence, so it weighs most; a rewriter's reliability (1 - false_positive_rate) counts
# least, since most judges never rewrite.
SCORE_WEIGHTS: Mapping[str, float] = MappingProxyType(
    {
        "accuracy_rate": 0.40,
        "consistency_score": 0.20,
        "agreement_rate": 0.15,
        "challenge_resistance": 0.15,
        "rewrite_reliability": 0.10,
    }
)


class ReputationMetrics(BaseModel):
    """What is known of a judge's work. Immutable; `observe_*` and `merge` return new values.

    Every rate or average is a running mean kept with the number of observations behind it
    (`accuracy_rate` with `accuracy_checks`, ...), and is None until the first observation.
    Observing x with n observations so far moves the mean m to m + (x - m) / (n + 1);
    merging two metrics weighs each mean by its count, (m1*n1 + m2*n2) / (n1 + n2), so
    merging is the same as having observed everything in one place.

    - accuracy_rate: agreement with ground truth (`observe_accuracy`).
    - consistency_score: the same input judged the same again (`observe_consistency`).
    - agreement_rate: votes that matched the peers' consensus (`observe_agreement`).
    - challenge_resistance: adversarial challenges withstood (`observe_challenge`).
    - rewrites, prompts_improved, false_improvements, average_improvement: verified rewrites
      (`observe_rewrite`), those that gained more than the margin, those that lost, and the
      mean score change (after - before, on the 0..1 scale) over all of them.
    - false_positive_rate: derived, false_improvements / rewrites (every rewrite claims an
      improvement). It is serialised for readers and ignored when read back.
    - total_evaluations, average_cost_per_eval, average_time_seconds: judging work
      (`observe_evaluation`); cost and time average only over evaluations where they were
      known (`costed_evaluations`, `timed_evaluations`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    total_evaluations: Count = 0
    accuracy_rate: Unit | None = None
    accuracy_checks: Count = 0
    consistency_score: Unit | None = None
    consistency_checks: Count = 0
    agreement_rate: Unit | None = None
    agreement_checks: Count = 0
    challenge_resistance: Unit | None = None
    challenges: Count = 0
    rewrites: Count = 0
    prompts_improved: Count = 0
    false_improvements: Count = 0
    average_improvement: Annotated[float, Field(ge=-1.0, le=1.0, allow_inf_nan=False)] | None = None
    average_cost_per_eval: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] | None = None
    costed_evaluations: Count = 0
    average_time_seconds: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] | None = None
    timed_evaluations: Count = 0

    @model_validator(mode="before")
    @classmethod
    def _drop_derived(cls, data: Any) -> Any:
        # A dumped value carries false_positive_rate; it is derived, so reading it back
        # ignores it rather than rejecting it as an unknown field.
        if isinstance(data, Mapping) and "false_positive_rate" in data:
            return {k: v for k, v in data.items() if k != "false_positive_rate"}
        return data

    @model_validator(mode="after")
    def _check_counts(self) -> Self:
        for mean, count in _MEANS:
            if (getattr(self, mean) is None) != (getattr(self, count) == 0):
                raise ValueError(
                    f"{mean} must be None exactly when {count} is 0, got {mean}="
                    f"{getattr(self, mean)!r} with {count}={getattr(self, count)}"
                )
        if self.prompts_improved + self.false_improvements > self.rewrites:
            raise ValueError(
                f"prompts_improved ({self.prompts_improved}) + false_improvements "
                f"({self.false_improvements}) cannot exceed rewrites ({self.rewrites})"
            )
        for count in ("costed_evaluations", "timed_evaluations"):
            if getattr(self, count) > self.total_evaluations:
                raise ValueError(
                    f"{count} ({getattr(self, count)}) cannot exceed total_evaluations "
                    f"({self.total_evaluations})"
                )
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def false_positive_rate(self) -> float | None:
        """Rewrites that claimed an improvement and lost score, over all rewrites."""
        return None if self.rewrites == 0 else self.false_improvements / self.rewrites

    def observe_evaluation(self, usage: Usage | None = None) -> Self:
        """One more evaluation; its cost and time (latency) count when `usage` knows them."""
        changes: dict[str, Any] = {"total_evaluations": self.total_evaluations + 1}
        if usage is not None and usage.cost_usd is not None:
            changes |= self._folded("average_cost_per_eval", usage.cost_usd)
        if usage is not None and usage.latency_ms is not None:
            changes |= self._folded("average_time_seconds", usage.latency_ms / 1000.0)
        return self._with(changes)

    def observe_accuracy(self, correct: bool | float) -> Self:
        """A check against ground truth: True/False, or a fraction correct in [0, 1]."""
        return self._with(self._folded("accuracy_rate", _unit("correct", correct)))

    def observe_consistency(self, consistent: bool | float) -> Self:
        """A repeated evaluation: True when it matched, or a similarity in [0, 1]."""
        return self._with(self._folded("consistency_score", _unit("consistent", consistent)))

    def observe_agreement(self, agreed: bool | float) -> Self:
        """A vote compared with the peers' consensus: True when it matched."""
        return self._with(self._folded("agreement_rate", _unit("agreed", agreed)))

    def observe_challenge(self, resisted: bool | float) -> Self:
        """An adversarial challenge: True when the judge was not fooled."""
        return self._with(self._folded("challenge_resistance", _unit("resisted", resisted)))

    def observe_rewrite(self, before: float, after: float, margin: float = SUCCESS_MARGIN) -> Self:
        """A verified rewrite that scored `before` and then `after` (0..1): an improvement
        when it gained more than `margin`, a false one when it lost score (see
        `rewrite_event`)."""
        event = rewrite_event(before, after, margin)
        changes = self._folded("average_improvement", after - before)
        succeeded = event is ReputationEvent.SUCCESSFUL_IMPROVEMENT
        failed = event is ReputationEvent.FALSE_IMPROVEMENT
        changes["prompts_improved"] = self.prompts_improved + int(succeeded)
        changes["false_improvements"] = self.false_improvements + int(failed)
        return self._with(changes)

    def merge(self, other: "ReputationMetrics") -> Self:
        """Everything observed here and in `other`, as if observed in one place."""
        if not isinstance(other, ReputationMetrics):
            raise TypeError(f"can merge ReputationMetrics only, got {type(other).__name__}")
        changes: dict[str, Any] = {
            name: getattr(self, name) + getattr(other, name)
            for name in ("total_evaluations", "prompts_improved", "false_improvements")
        }
        for mean, count in _MEANS:
            n1, n2 = getattr(self, count), getattr(other, count)
            changes[count] = n1 + n2
            if n1 + n2:
                m1, m2 = getattr(self, mean) or 0.0, getattr(other, mean) or 0.0
                changes[mean] = _bounded(mean, (m1 * n1 + m2 * n2) / (n1 + n2))
        return self._with(changes)

    def _folded(self, mean: str, value: float) -> dict[str, Any]:
        count = _COUNT_OF[mean]
        n: int = getattr(self, count)
        current: float | None = getattr(self, mean)
        updated = value if current is None else current + (value - current) / (n + 1)
        return {mean: _bounded(mean, updated), count: n + 1}

    def _with(self, changes: Mapping[str, Any]) -> Self:
        # Validated again (not model_copy), so a fold can never produce an invalid value.
        data = self.model_dump(exclude={"false_positive_rate"})
        return self.model_validate({**data, **changes})


# Each running mean and the count of observations behind it.
_MEANS = (
    ("accuracy_rate", "accuracy_checks"),
    ("consistency_score", "consistency_checks"),
    ("agreement_rate", "agreement_checks"),
    ("challenge_resistance", "challenges"),
    ("average_improvement", "rewrites"),
    ("average_cost_per_eval", "costed_evaluations"),
    ("average_time_seconds", "timed_evaluations"),
)
_COUNT_OF = dict(_MEANS)
# Where each mean lives (rates in [0, 1] unless named here). A mean of values in bounds is
# in bounds too, but float rounding can put it an ulp outside, which validation refuses.
_MEAN_BOUNDS = {
    "average_improvement": (-1.0, 1.0),
    "average_cost_per_eval": (0.0, math.inf),
    "average_time_seconds": (0.0, math.inf),
}


def _bounded(mean: str, value: float) -> float:
    low, high = _MEAN_BOUNDS.get(mean, (0.0, 1.0))
    return min(high, max(low, value))


def rewrite_event(
    before: float, after: float, margin: float = SUCCESS_MARGIN
) -> ReputationEvent | None:
    """The event a rewrite earns its rewriter: SUCCESSFUL_IMPROVEMENT when the score
    (0..1) rose by more than `margin`, FALSE_IMPROVEMENT when it fell, else None (a gain
    too small to count is neither)."""
    before = _unit("before", before, allow_bool=False)
    after = _unit("after", after, allow_bool=False)
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not 0 <= margin <= 1:
        raise ValueError(f"margin must be a number in [0, 1], got {margin!r}")
    # A gain of exactly the margin is not more than it, float noise (0.4 - 0.3) or not.
    if after - before > margin + _NOISE:
        return ReputationEvent.SUCCESSFUL_IMPROVEMENT
    if after < before - _NOISE:
        return ReputationEvent.FALSE_IMPROVEMENT
    return None


def reputation_score(
    metrics: ReputationMetrics, weights: Mapping[str, float] = SCORE_WEIGHTS
) -> float | None:
    """The metrics as one score in [0, 1]: the weighted mean of accuracy_rate,
    consistency_score, agreement_rate, challenge_resistance and rewrite_reliability
    (1 - false_positive_rate), with `SCORE_WEIGHTS` by default. Metrics not measured yet
    (None) are left out and the remaining weights renormalised, so a judge is scored on
    what is known of it; with nothing known the result is None (keep the initial score).
    Cost and time do not count: they are budgets' business, not a judge's merit."""
    unknown = sorted(set(weights) - set(SCORE_WEIGHTS))
    if unknown:
        raise ValueError(f"weights name unknown metrics {unknown}; known: {sorted(SCORE_WEIGHTS)}")
    fpr = metrics.false_positive_rate
    values: dict[str, float | None] = {
        "accuracy_rate": metrics.accuracy_rate,
        "consistency_score": metrics.consistency_score,
        "agreement_rate": metrics.agreement_rate,
        "challenge_resistance": metrics.challenge_resistance,
        "rewrite_reliability": None if fpr is None else 1.0 - fpr,
    }
    known: list[tuple[float, float]] = []
    for name, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            raise ValueError(f"weights[{name!r}] must be a number, got {weight!r}")
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"weights[{name!r}] must be a finite number >= 0, got {weight}")
        value = values[name]
        if value is not None and weight > 0:
            known.append((weight, value))
    if not known:
        return None
    total = math.fsum(w for w, _ in known)
    return _rounded(math.fsum(w * v for w, v in known) / total)


class ReputationChange(BaseModel):
    """One move of a score: `after` = `before` + `delta`, clamped to [0, 1], so `delta` is
    the step that was applied (0 at a bound), not the rule's nominal step."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event: ReputationEvent
    delta: Annotated[float, Field(ge=-1.0, le=1.0, allow_inf_nan=False)]
    before: Unit
    after: Unit
    at: AwareDatetime
    # A cycle's id, or a tournament's: whatever caused the move.
    cycle_id: Annotated[str, Field(min_length=1, max_length=CYCLE_ID_MAX)] | None = None
    note: str = ""

    @model_validator(mode="after")
    def _check_step(self) -> Self:
        if not math.isclose(self.before + self.delta, self.after, abs_tol=1e-9):
            raise ValueError(
                f"after ({self.after}) must equal before ({self.before}) + delta ({self.delta})"
            )
        return self


class Reputation(BaseModel):
    """A judge's standing: `score` in [0, 1] (weights in reputation-weighted juries), what
    is known of it (`metrics`), and how the score got there (`history`, oldest first).

    `judge_id` is the name the judge votes under in a jury, so that `ReputationBook.weights()`
    lines up with the jury's ballots.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge_id: Annotated[str, Field(min_length=1, max_length=JUDGE_ID_MAX)]
    score: Unit = DEFAULT_INITIAL_SCORE
    metrics: ReputationMetrics = ReputationMetrics()
    history: tuple[ReputationChange, ...] = ()

    @model_validator(mode="after")
    def _check_judge_id(self) -> Self:
        if not self.judge_id.strip():
            raise ValueError("judge_id must not be blank")
        return self

    def apply(
        self,
        event: ReputationEvent | str,
        cycle_id: str | None = None,
        note: str = "",
        *,
        at: datetime | None = None,
    ) -> Self:
        """This reputation after `event`: the score moved by the event's step in
        `UPDATE_RULES`, clamped to [0, 1], and the move appended to the history."""
        kind = _event(event)
        if kind is ReputationEvent.SEED:
            raise ValueError("event 'seed' has no fixed step: use Reputation.seed(metrics)")
        after = _rounded(min(1.0, max(0.0, self.score + UPDATE_RULES[kind])))
        return self._moved(kind, after, cycle_id, note, at)

    def seed(
        self,
        metrics: ReputationMetrics,
        cycle_id: str | None = None,
        note: str = "",
        *,
        at: datetime | None = None,
    ) -> Self:
        """The score set to `reputation_score(metrics)` (kept when that is None), the
        metrics replaced by `metrics`, and the move recorded as a SEED change."""
        if not isinstance(metrics, ReputationMetrics):
            raise TypeError(f"metrics must be ReputationMetrics, got {type(metrics).__name__}")
        seeded = reputation_score(metrics)
        after = self.score if seeded is None else seeded
        moved = self._moved(ReputationEvent.SEED, after, cycle_id, note, at)
        return moved.model_copy(update={"metrics": metrics})

    def observed(self, metrics: ReputationMetrics) -> Self:
        """The same score and history with new `metrics` (observations never move the
        score; events do)."""
        if not isinstance(metrics, ReputationMetrics):
            raise TypeError(f"metrics must be ReputationMetrics, got {type(metrics).__name__}")
        return self.model_copy(update={"metrics": metrics})

    def _moved(
        self,
        event: ReputationEvent,
        after: float,
        cycle_id: str | None,
        note: str,
        at: datetime | None,
    ) -> Self:
        change = ReputationChange(
            event=event,
            delta=_rounded(after - self.score),
            before=self.score,
            after=after,
            at=at or datetime.now(UTC),
            cycle_id=cycle_id,
            note=note,
        )
        return self.model_copy(update={"score": after, "history": (*self.history, change)})


class ReputationBook:
    """The reputations of a set of judges, in memory, by judge id.

    A judge not in the book has the `initial` score and nothing else; `get` hands out such
    a fresh reputation without adding it. `weights()` is what a `ReputationWeighted` jury
    reads at every verdict, so updates between verdicts count at once.

    The book remembers how much of each judge's history is saved, so a caller that
    persists it stores `unsaved(judge_id)` and then calls `mark_saved(judge_id)`.
    """

    def __init__(
        self,
        reputations: Iterable[Reputation] = (),
        *,
        initial: float = DEFAULT_INITIAL_SCORE,
    ) -> None:
        self.initial = _unit("initial", initial, allow_bool=False)
        self._reputations: dict[str, Reputation] = {}
        self._saved: dict[str, int] = {}
        for reputation in reputations:
            if not isinstance(reputation, Reputation):
                raise TypeError(f"a ReputationBook holds Reputations, got {reputation!r}")
            if reputation.judge_id in self._reputations:
                raise ValueError(f"judge_id {reputation.judge_id!r} appears twice")
            self._reputations[reputation.judge_id] = reputation
            # What the book starts with came from somewhere: it counts as saved.
            self._saved[reputation.judge_id] = len(reputation.history)

    def __contains__(self, judge_id: object) -> bool:
        return judge_id in self._reputations

    def __iter__(self) -> Iterator[Reputation]:
        return iter(list(self._reputations.values()))

    def __len__(self) -> int:
        return len(self._reputations)

    def get(self, judge_id: str) -> Reputation:
        """The judge's reputation; a fresh one at the initial score when it has none."""
        found = self._reputations.get(judge_id)
        return found if found is not None else Reputation(judge_id=judge_id, score=self.initial)

    def put(self, reputation: Reputation, *, saved: bool = False) -> Reputation:
        """Set a judge's reputation, replacing the one it had. `saved` says its whole
        history is stored already (it was just read from the store, say)."""
        if not isinstance(reputation, Reputation):
            raise TypeError(f"put takes a Reputation, got {type(reputation).__name__}")
        judge_id = reputation.judge_id
        self._reputations[judge_id] = reputation
        stored = len(reputation.history) if saved else self._saved.get(judge_id, 0)
        # A shorter history than the saved part cannot hold unsaved changes past its end.
        self._saved[judge_id] = min(stored, len(reputation.history))
        return reputation

    def apply(
        self,
        judge_id: str,
        event: ReputationEvent | str,
        cycle_id: str | None = None,
        note: str = "",
        *,
        at: datetime | None = None,
    ) -> Reputation:
        """Apply `event` to the judge (see `Reputation.apply`); the new reputation."""
        return self.put(self.get(judge_id).apply(event, cycle_id, note, at=at))

    def seed(
        self,
        judge_id: str,
        metrics: ReputationMetrics,
        cycle_id: str | None = None,
        note: str = "",
        *,
        at: datetime | None = None,
    ) -> Reputation:
        """Seed the judge's score from `metrics` (see `Reputation.seed`)."""
        return self.put(self.get(judge_id).seed(metrics, cycle_id, note, at=at))

    def observe(self, judge_id: str, metrics: ReputationMetrics) -> Reputation:
        """Replace the judge's metrics, keeping its score (see `Reputation.observed`)."""
        return self.put(self.get(judge_id).observed(metrics))

    def weights(self) -> Mapping[str, float]:
        """Judge id -> score, a snapshot: what a reputation-weighted jury weighs votes by."""
        return MappingProxyType({key: rep.score for key, rep in self._reputations.items()})

    def unsaved(self, judge_id: str) -> tuple[ReputationChange, ...]:
        """The judge's changes since it was loaded or last marked saved."""
        history = self.get(judge_id).history
        return history[self._saved.get(judge_id, 0) :]

    def mark_saved(self, judge_id: str) -> None:
        """Record that the judge's whole history is stored now."""
        self._saved[judge_id] = len(self.get(judge_id).history)


def _event(event: ReputationEvent | str) -> ReputationEvent:
    try:
        return ReputationEvent(event)
    except ValueError:
        known = ", ".join(e.value for e in ReputationEvent)
        raise ValueError(f"event {event!r} is not one of: {known}") from None


def _unit(name: str, value: object, *, allow_bool: bool = True) -> float:
    if isinstance(value, bool) and allow_bool:
        return 1.0 if value else 0.0
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        wanted = "a bool or a number" if allow_bool else "a number"
        raise ValueError(f"{name} must be {wanted} in [0, 1], got {value!r}")
    return float(value)


def _rounded(value: float) -> float:
    return round(value, _SCORE_DECIMALS)
