"""The autonomous judge system's records: reputations with their history, cycles with their
events, on SQLite and PostgreSQL alike; all or nothing, and bad input named."""

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from alembic import command
from pydantic import BaseModel

from jurist.autonomy._persistence import AutonomyStore, CycleStatus
from jurist.autonomy._reputation import (
    Reputation,
    ReputationEvent,
    ReputationMetrics,
)
from jurist.core import Usage
from jurist.store import DuplicateRecordError, alembic_config, create_engine, migrate

E = ReputationEvent
AT = datetime(2026, 11, 22, 17, 30, 0, 123456, tzinfo=UTC)


@pytest.fixture
async def store(database_url) -> AsyncIterator[AutonomyStore]:
    async with await AutonomyStore.open(database_url) as opened:
        yield opened


def _metrics() -> ReputationMetrics:
    return (
        ReputationMetrics()
        .observe_accuracy(True)
        .observe_accuracy(False)
        .observe_rewrite(0.3, 0.1)
        .observe_evaluation(Usage(cost_usd=0.03, latency_ms=4200))
    )


async def _count(store: AutonomyStore, table: str) -> int:
    async with store.engine.connect() as connection:
        return int(await connection.scalar(sa.text(f"SELECT count(*) FROM {table}")) or 0)


# --- reputations ----------------------------------------------------------------------


async def test_a_reputation_round_trips_with_metrics_and_history(store):
    reputation = (
        Reputation(judge_id="evaluator-v3", metrics=_metrics())
        .apply(E.FALSE_IMPROVEMENT, cycle_id="c" * 32, note="score fell 0.2", at=AT)
        .apply(E.CONSENSUS_ALIGNMENT, at=AT.astimezone(timezone(timedelta(hours=-5))))
    )
    await store.save_reputation(reputation, reputation.history)
    loaded = await store.get_reputation("evaluator-v3")
    assert loaded == reputation
    assert loaded is not None
    assert loaded.history[0].at == AT
    assert loaded.history[1].at.utcoffset() == timedelta(0)  # the same instant, in UTC
    assert loaded.metrics.false_positive_rate == 1.0
    assert await store.reputation_history("evaluator-v3") == list(reputation.history)


async def test_unknown_judges_have_no_reputation_and_no_history(store):
    assert await store.get_reputation("nobody") is None
    assert await store.reputation_history("nobody") == []


async def test_saves_append_only_the_new_changes(store):
    first = Reputation(judge_id="j").apply(E.ADVERSARIAL_DETECTION, at=AT)
    await store.save_reputation(first, first.history)
    loaded = await store.get_reputation("j", with_history=False)
    assert loaded is not None
    assert loaded.history == ()
    second = loaded.apply(E.CONSTITUTIONAL_VIOLATION, at=AT).apply(E.CONSENSUS_ALIGNMENT, at=AT)
    await store.save_reputation(second, second.history)
    history = await store.reputation_history("j")
    assert [c.event for c in history] == [
        E.ADVERSARIAL_DETECTION,
        E.CONSTITUTIONAL_VIOLATION,
        E.CONSENSUS_ALIGNMENT,
    ]
    assert [c.event for c in await store.reputation_history("j", limit=2)] == [
        E.CONSTITUTIONAL_VIOLATION,
        E.CONSENSUS_ALIGNMENT,
    ]
    stored = await store.get_reputation("j")
    assert stored is not None
    assert stored.score == pytest.approx(0.475)
    assert stored.history[-1].after == stored.score


async def test_metrics_alone_can_be_saved_without_changes(store):
    reputation = Reputation(judge_id="j", score=0.7)
    await store.save_reputation(reputation)
    await store.save_reputation(reputation.observed(_metrics()))
    stored = await store.get_reputation("j")
    assert stored is not None
    assert (stored.score, stored.metrics) == (0.7, _metrics())


async def test_reputations_come_best_first_with_histories_on_request(store):
    for judge, score in [("b", 0.6), ("a", 0.6), ("c", 0.9)]:
        reputation = Reputation(judge_id=judge, score=score).apply(E.CONSENSUS_ALIGNMENT, at=AT)
        await store.save_reputation(reputation, reputation.history)
    listed = await store.reputations()
    assert [r.judge_id for r in listed] == ["c", "a", "b"]
    assert all(r.history == () for r in listed)
    assert [len(r.history) for r in await store.reputations(with_history=True)] == [1, 1, 1]


async def test_a_score_moved_without_its_changes_is_refused_and_nothing_is_written(store):
    reputation = Reputation(judge_id="j").apply(E.CONSENSUS_ALIGNMENT, at=AT)
    await store.save_reputation(reputation, reputation.history)
    moved = reputation.apply(E.FALSE_IMPROVEMENT, at=AT)
    with pytest.raises(ValueError, match="does not continue the stored score"):
        await store.save_reputation(moved)  # the change that moved it is missing
    # changes that start from another score than the stored one
    stale = Reputation(judge_id="j", score=0.9).apply(E.FALSE_IMPROVEMENT, at=AT)
    with pytest.raises(ValueError, match=r"new_changes\[0\].before"):
        await store.save_reputation(stale, stale.history)
    stored = await store.get_reputation("j")
    assert stored == reputation
    assert await _count(store, "reputation_events") == 1


async def test_changes_that_do_not_chain_to_the_score_are_refused(store):
    reputation = Reputation(judge_id="j").apply(E.CONSENSUS_ALIGNMENT, at=AT)
    twice = reputation.apply(E.CONSENSUS_ALIGNMENT, at=AT)
    with pytest.raises(ValueError, match=r"new_changes\[-1\].after"):
        await store.save_reputation(twice, reputation.history)
    gap = twice.apply(E.CONSENSUS_ALIGNMENT, at=AT)
    with pytest.raises(ValueError, match=r"new_changes\[1\].before"):
        await store.save_reputation(gap, (gap.history[0], gap.history[2]))
    with pytest.raises(ValueError, match=r"new_changes\[0\] must be a ReputationChange"):
        await store.save_reputation(reputation, [{"event": "seed"}])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="reputation must be a Reputation"):
        await store.save_reputation({"judge_id": "j"})  # type: ignore[arg-type]
    assert await store.get_reputation("j") is None


async def test_a_judge_id_too_long_for_its_column_is_named(store):
    with pytest.raises(ValueError, match="judge_id has 201 characters"):
        await store.get_reputation("x" * 201)
    with pytest.raises(ValueError, match="limit"):
        await store.reputation_history("j", limit=0)


async def test_concurrent_saves_of_different_judges_all_land(store):
    async def save(index: int) -> None:
        reputation = Reputation(judge_id=f"judge-{index}").apply(E.SUCCESSFUL_IMPROVEMENT, at=AT)
        await store.save_reputation(reputation, reputation.history)

    await asyncio.gather(*(save(i) for i in range(12)))
    assert len(await store.reputations()) == 12
    assert await _count(store, "reputation_events") == 12


# --- cycles ---------------------------------------------------------------------------


class Note(BaseModel):
    text: str
    score: float


async def test_a_cycle_is_created_found_by_id_or_name_and_updated(store):
    spec = {"prompt": "Summarise.", "max_iterations": 10, "techniques": ("explicit", "examples")}
    cycle = await store.create_cycle(spec, name="summaries")
    assert len(cycle) == 32
    by_id, by_name = await store.get_cycle(cycle), await store.get_cycle("summaries")
    assert by_id == by_name
    assert by_id is not None
    assert by_id.status is CycleStatus.RUNNING
    assert by_id.spec == {**spec, "techniques": ["explicit", "examples"]}
    assert (by_id.state, by_id.halted_reason) == (None, None)
    assert by_id.created_at.tzinfo is not None

    await store.update_cycle(cycle, CycleStatus.PAUSED, {"iteration": 3, "best": 0.7})
    await store.update_cycle(cycle, "halted", None, halted_reason="cost limit $1.00 reached")
    halted = await store.get_cycle(cycle)
    assert halted is not None
    assert halted.status is CycleStatus.HALTED
    assert halted.state == {"iteration": 3, "best": 0.7}  # kept: no new state was given
    assert halted.halted_reason == "cost limit $1.00 reached"
    assert halted.updated_at >= by_id.updated_at
    await store.update_cycle(cycle, CycleStatus.RUNNING, {"iteration": 4})
    resumed = await store.get_cycle(cycle)
    assert resumed is not None
    assert (resumed.status, resumed.state, resumed.halted_reason) == (
        CycleStatus.RUNNING,
        {"iteration": 4},
        None,
    )


async def test_unknown_cycles_are_none_or_lookup_errors(store):
    assert await store.get_cycle("nothing") is None
    assert await store.cycle_events("nothing") == []
    with pytest.raises(LookupError, match="'nothing'"):
        await store.update_cycle("nothing", "done", None)
    with pytest.raises(LookupError, match="'nothing'"):
        await store.append_event("nothing", "evaluation", "evaluate", {})
    assert await _count(store, "cycle_events") == 0


async def test_a_cycle_name_names_one_cycle_only(store):
    await store.create_cycle({}, name="once")
    with pytest.raises(DuplicateRecordError, match="duplicate"):
        await store.create_cycle({}, name="once")
    assert len(await store.list_cycles()) == 1


async def test_cycles_are_listed_newest_first_by_status(store):
    ids = [await store.create_cycle({"n": n}) for n in range(4)]
    await store.update_cycle(ids[1], "done", None)
    await store.update_cycle(ids[3], "done", None)
    assert [c.id for c in await store.list_cycles()] == ids[::-1]
    assert [c.id for c in await store.list_cycles(limit=2)] == ids[:1:-1]
    assert [c.id for c in await store.list_cycles(status="done")] == [ids[3], ids[1]]
    with pytest.raises(ValueError, match="limit"):
        await store.list_cycles(limit=0)
    with pytest.raises(ValueError, match="status 'over'"):
        await store.list_cycles(status="over")


async def test_events_are_numbered_in_order_with_their_usage(store):
    cycle = await store.create_cycle({"prompt": "p"})
    usage = Usage(input_tokens=120, output_tokens=30, cost_usd=0.002, model="m", calls=1)
    assert await store.append_event(cycle, "evaluation", "evaluate", {"score": 0.3}, usage) == 1
    assert (
        await store.append_event(cycle, "analysis", "analyze", Note(text="vague", score=0.3)) == 2
    )
    assert await store.append_event(cycle, "rewriting", "rewrite", {"prompt": "p2"}) == 3
    other = await store.create_cycle({"prompt": "q"})
    assert await store.append_event(other, "evaluation", "evaluate", {}) == 1

    events = await store.cycle_events(cycle)
    assert [(e.seq, e.stage, e.kind) for e in events] == [
        (1, "evaluation", "evaluate"),
        (2, "analysis", "analyze"),
        (3, "rewriting", "rewrite"),
    ]
    assert events[0].message == {"score": 0.3}
    assert events[0].usage == Usage(input_tokens=120, output_tokens=30, cost_usd=0.002)
    assert events[1].message == {"text": "vague", "score": 0.3}
    assert events[2].usage == Usage()
    assert events[0].at <= events[2].at
    assert [e.seq for e in await store.cycle_events(cycle, after=1)] == [2, 3]


async def test_concurrent_appends_get_distinct_numbers(store):
    cycle = await store.create_cycle({})
    numbers = await asyncio.gather(
        *(store.append_event(cycle, "evaluation", "evaluate", {"i": i}) for i in range(12))
    )
    assert sorted(numbers) == list(range(1, 13))
    by_seq = {e.seq: e.message["i"] for e in await store.cycle_events(cycle)}
    assert {by_seq[n] for n in numbers} == set(range(12))


async def test_deleting_a_cycle_deletes_its_events(store):
    cycle = await store.create_cycle({})
    await store.append_event(cycle, "evaluation", "evaluate", {})
    async with store.engine.begin() as connection:
        await connection.execute(sa.text("DELETE FROM cycles WHERE id = :id"), {"id": cycle})
    assert await _count(store, "cycle_events") == 0


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda s, c: s.append_event(c, "", "evaluate", {}), "stage must not be empty"),
        (lambda s, c: s.append_event(c, "x" * 41, "evaluate", {}), "stage has 41 characters"),
        (lambda s, c: s.append_event(c, "evaluation", 7, {}), "kind must be a string"),
        (lambda s, c: s.append_event(c, "evaluation", "e", [1]), "message must be a mapping"),
        (
            lambda s, c: s.append_event(c, "evaluation", "e", {"x": float("nan")}),
            r"message\['x'\]",
        ),
        (lambda s, c: s.append_event(c, "evaluation", "e", {}, {"tokens": 1}), "usage must be"),
        (lambda s, c: s.update_cycle(c, "finished", None), "status 'finished' is not one of"),
        (lambda s, c: s.update_cycle(c, "halted", None), "halted_reason is required"),
        (lambda s, c: s.update_cycle(c, "done", {"when": object()}), r"state\['when'\]"),
        (lambda s, c: s.create_cycle({}, name="n" * 201), "name has 201 characters"),
        (lambda s, c: s.create_cycle({}, name="  "), "name must not be empty"),
        (lambda s, c: s.create_cycle(["not", "a", "mapping"]), "spec must be a mapping"),
        (lambda s, c: s.cycle_events(c, after=-1), "after"),
    ],
)
async def test_bad_input_is_a_value_error_naming_the_field(store, call, problem):
    cycle = await store.create_cycle({}, name="target")
    with pytest.raises(ValueError, match=problem):
        await call(store, cycle)
    stored = await store.get_cycle(cycle)
    assert stored is not None
    assert stored.status is CycleStatus.RUNNING
    assert await _count(store, "cycle_events") == 0
    assert await _count(store, "cycles") == 1


# --- migration ------------------------------------------------------------------------

AUTONOMY_TABLES = {"reputations", "reputation_events", "cycles", "cycle_events"}


def _to(revision: str, *, down: bool = False):
    def run(connection: sa.Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)

    return run


async def test_the_autonomy_tables_come_with_0003_and_go_with_its_downgrade(database_url):
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_to("0002"))
            await connection.execute(
                sa.text("INSERT INTO runs (id, kind, status) VALUES ('r1', 'eval', 'running')")
            )
        await migrate(engine)
        store = AutonomyStore(engine)
        await store.create_cycle({}, name="kept until the downgrade")
        async with engine.begin() as connection:
            await connection.run_sync(_to("0002", down=True))
        async with engine.connect() as connection:
            tables = set(await connection.run_sync(lambda c: sa.inspect(c).get_table_names()))
            runs = list(await connection.scalars(sa.text("SELECT id FROM runs")))
        assert not tables & AUTONOMY_TABLES
        assert runs == ["r1"]
        await migrate(engine)
        assert await AutonomyStore(engine).list_cycles() == []
    finally:
        await engine.dispose()
