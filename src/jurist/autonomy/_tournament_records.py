"""A tournament kept: its standings stored as a run of kind "tournament" (the spec it ran,
the standings as its summary) beside the records, and each variant's reputation moved with
the tournament named in its history, so both can be read again (`jurist view`)."""

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jurist.autonomy._persistence import AutonomyStore
from jurist.autonomy._reputation import Reputation, ReputationBook, ReputationMetrics
from jurist.autonomy._tournament import Standing, TournamentResult
from jurist.store import RecordStore, StoreError

TOURNAMENT_KIND = "tournament"
# A reputation event's cycle_id names the tournament that moved the score by this prefix
# and the run's id (a tournament is no cycle).
_EVENT_PREFIX = "tournament-"


@dataclass(frozen=True)
class RecordedTournament:
    """A stored tournament: its run's id and the reputations it moved, in standing order."""

    id: str
    reputations: list[Reputation]


def variant_judge_id(variant_id: str) -> str:
    """The judge id a tournament records a variant's reputation under."""
    return f"variant:{variant_id}"


def tournament_event_id(run_id: str) -> str:
    """What a reputation change moved by the tournament run `run_id` names as its cycle."""
    return f"{_EVENT_PREFIX}{run_id}"


def tournament_of(cycle_id: str | None) -> str | None:
    """The run id of the tournament a reputation change names, or None when it names a
    cycle (or nothing)."""
    if cycle_id is None or not cycle_id.startswith(_EVENT_PREFIX):
        return None
    return cycle_id.removeprefix(_EVENT_PREFIX)


def standing_metrics(row: Standing, metrics: ReputationMetrics) -> ReputationMetrics:
    """`metrics` with what one tournament showed of a variant folded in: its balanced
    accuracy against the labels (plain accuracy when only that is defined), its
    consistency, its agreement with its peers, and the cases it judged."""
    accuracy = row.balanced_accuracy if row.balanced_accuracy is not None else row.accuracy
    if accuracy is not None:
        metrics = metrics.observe_accuracy(accuracy)
    if row.consistency is not None:
        metrics = metrics.observe_consistency(row.consistency)
    if row.peer_agreement is not None:
        metrics = metrics.observe_agreement(row.peer_agreement)
    return metrics.merge(ReputationMetrics(total_evaluations=row.judged))


def tournament_summary(result: TournamentResult) -> dict[str, Any]:
    """The standings as stored: every statistic of each variant, without its verdicts case
    by case (the labels are not kept either; `cases` counts them)."""
    summary: dict[str, Any] = result.model_dump(
        mode="json", exclude={"labels": True, "rows": {"__all__": {"verdicts", "p_yes"}}}
    )
    summary["cases"] = len(result.labels)
    for row in summary["rows"]:
        row["judge_id"] = variant_judge_id(row["variant"]["id"])
    return summary


async def record_reputations(
    store: AutonomyStore, result: TournamentResult, tournament: str
) -> list[Reputation]:
    """Fold each variant's showing into its stored reputation, seed its score from the
    metrics, and save both with the change that moved the score, naming `tournament`."""
    recorded: list[Reputation] = []
    for row in result.rows:
        judge_id = variant_judge_id(row.variant.id)
        found = await store.get_reputation(judge_id)
        book = ReputationBook([] if found is None else [found])
        metrics = standing_metrics(row, book.get(judge_id).metrics)
        note = (
            f"rank {row.rank} of {len(result.rows)} on {len(result.labels)} cases with "
            f"{result.model}, fitness {row.fitness:.3f}"
        )
        seeded = book.seed(judge_id, metrics, cycle_id=tournament, note=note)
        await store.save_reputation(seeded, book.unsaved(judge_id))
        book.mark_saved(judge_id)
        recorded.append(seeded)
    return recorded


async def record_tournament(
    store: AutonomyStore,
    result: TournamentResult,
    *,
    spec: Mapping[str, Any],
    name: str | None = None,
    key_id: str | None = None,
) -> RecordedTournament:
    """Store the tournament as a run of kind "tournament" on the store's database (`spec`:
    what was run; its summary: the standings) and move each variant's reputation, each
    change naming the run. A run whose reputations could not be saved is left `failed`."""
    records = RecordStore(store.engine)
    run_id = await records.create_run(TOURNAMENT_KIND, name=name, spec=spec, key_id=key_id)
    try:
        reputations = await record_reputations(store, result, tournament_event_id(run_id))
    except BaseException:
        with contextlib.suppress(StoreError):  # the first failure is the one to report
            await records.finish_run(run_id, "failed")
        raise
    await records.finish_run(run_id, "done", tournament_summary(result))
    return RecordedTournament(run_id, reputations)
