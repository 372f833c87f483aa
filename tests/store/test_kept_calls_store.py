"""The calls behind a judgment (prompts sent, raw answers) in the judgments table's optional
`calls` column, on SQLite and PostgreSQL alike, and its migration up and down."""

from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa
from alembic import command

from jurist import Judgment, Usage
from jurist.core import NotJsonSafeError
from jurist.store import (
    JudgmentRecord,
    RecordStore,
    alembic_config,
    create_engine,
    migrate,
)

CALLS = [
    {
        "messages": [
            {"role": "system", "content": "You judge."},
            {"role": "user", "content": "Is «30 days» a refund window?"},
        ],
        "answer": '{"answer": "yes"}',
        "model": "fake:model",
        "input_tokens": 12,
        "output_tokens": 4,
        "cost_usd": None,
        "latency_ms": 1.5,
        "cached": False,
        "judge": "window",
        "error": None,
    },
    {
        "messages": [{"role": "user", "content": "again"}],
        "answer": "",
        "model": "fake:model",
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.25,
        "latency_ms": 0.5,
        "cached": True,
        "judge": None,
        "error": "rate_limited: slow down",
    },
]


@pytest.fixture
async def records(database_url) -> AsyncIterator[RecordStore]:
    async with await RecordStore.open(database_url) as opened:
        yield opened


def judgment() -> Judgment:
    return Judgment.ok("fine", usage=Usage(input_tokens=12, output_tokens=4, calls=1))


async def test_a_judgment_s_calls_round_trip_in_order(records):
    run = await records.create_run("eval", name="kept")
    kept = JudgmentRecord.of(judgment(), judge="window", run_id=run, item_id="q1", calls=CALLS)
    plain = JudgmentRecord.of(judgment(), judge="window/member", run_id=run, item_id="q1")
    await records.save_judgments([kept, plain])

    back = await records.get_judgment(kept.id)
    assert back is not None
    assert back.calls == CALLS
    by_judge = {stored.judge: stored.calls for stored in await records.run_judgments(run)}
    assert by_judge == {"window": CALLS, "window/member": None}


async def test_a_judgment_without_calls_stores_sql_null(records, database_url):
    saved = JudgmentRecord.of(judgment(), judge="window")
    await records.save_judgment(saved)
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            nulls = await connection.scalar(
                sa.text("SELECT count(*) FROM judgments WHERE calls IS NULL AND id = :id"),
                {"id": saved.id},
            )
    finally:
        await engine.dispose()
    assert nulls == 1


def test_calls_are_kept_as_plain_json():
    given = [{**CALLS[0], "messages": tuple(CALLS[0]["messages"])}]
    record = JudgmentRecord.of(judgment(), judge="window", calls=given)
    assert record.calls == [CALLS[0]]  # the tuple became a list, as it is read back
    assert record.calls is not given


@pytest.mark.parametrize(
    ("calls", "problem"),
    [
        ({"answer": "x"}, "JudgmentRecord.calls must be a list of mappings, got dict"),
        (["x"], "JudgmentRecord.calls must be a list of mappings, got list"),
    ],
)
def test_calls_that_are_not_a_list_of_mappings_are_refused_naming_the_field(calls, problem):
    with pytest.raises(TypeError, match=problem):
        JudgmentRecord(id="a" * 32, judge="window", status="pass", judgment={}, calls=calls)


def test_a_call_holding_what_json_cannot_is_refused_naming_where():
    with pytest.raises(NotJsonSafeError, match=r"JudgmentRecord\.calls\[0\]\['answer'\]"):
        JudgmentRecord(
            id="a" * 32, judge="window", status="pass", judgment={}, calls=[{"answer": object()}]
        )


def _to(revision: str, *, down: bool = False):
    def run(connection: sa.Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)

    return run


def _columns(connection: sa.Connection) -> set[str]:
    return {column["name"] for column in sa.inspect(connection).get_columns("judgments")}


async def test_the_migration_adds_the_column_and_takes_it_away_keeping_the_judgments(
    database_url,
):
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_to("0004"))
            assert "calls" not in await connection.run_sync(_columns)
            await connection.execute(
                sa.text(
                    "INSERT INTO judgments (id, judge, status, judgment) "
                    "VALUES ('old', 'window', 'pass', '{}')"
                )
            )
        await migrate(engine)
        async with engine.connect() as connection:
            assert "calls" in await connection.run_sync(_columns)
        async with await RecordStore.open(database_url) as store:
            old = await store.get_judgment("old")
            assert old is not None
            assert old.calls is None
            kept = JudgmentRecord.of(judgment(), judge="window", calls=CALLS)
            await store.save_judgment(kept)
        async with engine.begin() as connection:
            await connection.run_sync(_to("0004", down=True))
            assert "calls" not in await connection.run_sync(_columns)
            ids = set(await connection.scalars(sa.text("SELECT id FROM judgments")))
        assert ids == {"old", kept.id}
    finally:
        await engine.dispose()
