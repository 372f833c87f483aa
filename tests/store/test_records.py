"""The service's records: validations, judgments, runs and the audit log, on SQLite and
PostgreSQL alike, and the errors of a database that fails."""

import asyncio
import dataclasses
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from alembic import command

from jurist import CategoricalScore, Check, Judgment, NumericScore, Status, Usage
from jurist.store import (
    AuditRecord,
    DuplicateRecordError,
    JudgmentRecord,
    RecordStore,
    StoreError,
    ValidationRecord,
    alembic_config,
    create_engine,
    head_revision,
    migrate,
    schema_revision,
)

SHA = "ab" * 32
PASSWORD = "hunter2-not-for-logs"


@pytest.fixture
async def records(database_url) -> AsyncIterator[RecordStore]:
    async with await RecordStore.open(database_url) as opened:
        yield opened


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound, so nothing else takes it, but not
    listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


def _validation(id: str = "v" * 32, **changes) -> ValidationRecord:
    fields = {
        "id": id,
        "request_sha256": SHA,
        "valid": False,
        "confidence": 0.75,
        "quality_score": 0.5,
        "error_count": 2,
        "warning_count": 1,
        "duration_ms": 12.5,
        "request": {"output": "It costs 40 dollars.", "judges": ["tone", "facts"]},
        "result": {"valid": False, "errors": [{"judge": "facts", "message": "wrong price"}]},
        "key_id": "key-1",
    }
    return ValidationRecord(**{**fields, **changes})


def _model_judgment() -> Judgment:
    return Judgment.fail(
        "the price is wrong",
        score=NumericScore(7, 0, 10),
        checks=[Check.fail("price", "40 is not 45")],
        confidence=0.9,
        usage=Usage(
            input_tokens=120,
            output_tokens=30,
            cost_usd=0.002,
            model="usage-model",
            latency_ms=850.0,
            calls=1,
        ),
        metadata={
            "judge": "facts",
            "template": "facts",
            "prompt_sha256": SHA,
            "model": "openai:gpt-4o-mini",
            "parameters": {"temperature": 0.0, "seed": 7},
        },
    )


# JudgmentRecord.of


def test_a_record_of_a_model_judgment_fills_every_column_from_usage_and_metadata():
    judgment = _model_judgment()
    record = JudgmentRecord.of(judgment, judge="facts", layer="model", validation_id="v" * 32)
    assert len(record.id) == 32
    assert set(record.id) <= set("0123456789abcdef")
    assert (record.judge, record.layer, record.validation_id) == ("facts", "model", "v" * 32)
    assert record.status == "fail"
    assert record.score == pytest.approx(0.7)
    assert record.confidence == 0.9
    assert (record.input_tokens, record.output_tokens) == (120, 30)
    assert record.cost_usd == 0.002
    assert record.latency_ms == 850.0
    assert record.prompt_sha256 == SHA
    assert record.model == "openai:gpt-4o-mini"  # the metadata's, over the usage's
    assert record.parameters == {"temperature": 0.0, "seed": 7}
    assert Judgment.from_dict(record.judgment) == judgment


def test_a_record_of_a_plain_judgment_has_no_model_columns_and_a_categorical_score_no_number():
    judgment = Judgment.ok(score=CategoricalScore("good", ("bad", "good")))
    record = JudgmentRecord.of(judgment, judge="label", run_id="r" * 32, item_id="7", id="x1")
    assert record.id == "x1"
    assert (record.run_id, record.item_id) == ("r" * 32, "7")
    assert record.status == "pass"
    assert record.score is None
    assert record.model is None
    assert record.prompt_sha256 is None
    assert record.parameters is None
    assert (record.input_tokens, record.output_tokens, record.cost_usd) == (0, 0, None)


def test_without_a_model_in_metadata_the_usages_model_is_recorded():
    judgment = Judgment.ok(usage=Usage(input_tokens=1, model="local:qwen"))
    assert JudgmentRecord.of(judgment, judge="j").model == "local:qwen"


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"judge": "j" * 201}, "JudgmentRecord.judge has 201 characters"),
        ({"judge": " "}, "JudgmentRecord.judge must not be empty"),
        ({"status": "passed"}, "JudgmentRecord.status 'passed' is not one of"),
        ({"score": 1.5}, "JudgmentRecord.score 1.5 lies outside"),
        ({"cost_usd": float("nan")}, "JudgmentRecord.cost_usd must be a finite number"),
        ({"input_tokens": -1}, "JudgmentRecord.input_tokens cannot be negative"),
        ({"created_at": datetime(2026, 1, 1)}, "JudgmentRecord.created_at must be timezone"),
        ({"judgment": {"when": object()}}, r"JudgmentRecord.judgment\['when'\]"),
    ],
)
def test_a_judgment_record_that_cannot_be_stored_names_its_field(changes, problem):
    fields = {"id": "a", "judge": "j", "status": "pass", "judgment": {}, **changes}
    with pytest.raises((ValueError, TypeError), match=problem):
        JudgmentRecord(**fields)


def test_an_audit_record_cuts_an_overlong_path_to_fit_rather_than_failing():
    record = AuditRecord("GET", "/" + "a" * 600, 404, 1.0)
    assert len(record.path) == 500


# Round trips


async def test_a_validation_and_its_judgments_round_trip(records):
    first = JudgmentRecord.of(_model_judgment(), judge="facts", layer="model")
    second = JudgmentRecord.of(Judgment.ok(), judge="tone")
    validation = _validation()
    await records.save_validation(validation, [first, second])

    stored = await records.get_validation(validation.id)
    assert stored is not None
    for name in (
        "id",
        "request_sha256",
        "valid",
        "confidence",
        "quality_score",
        "error_count",
        "warning_count",
        "duration_ms",
        "request",
        "result",
        "key_id",
    ):
        assert getattr(stored, name) == getattr(validation, name), name
    assert stored.created_at.tzinfo is UTC
    assert abs(datetime.now(UTC) - stored.created_at) < timedelta(minutes=1)
    assert set(stored.judgment_ids) == {first.id, second.id}

    judgment = await records.get_judgment(first.id)
    assert judgment is not None
    assert judgment.validation_id == validation.id  # given by save_validation
    assert judgment.to_judgment() == _model_judgment()
    for name in (
        "judge",
        "layer",
        "status",
        "score",
        "confidence",
        "prompt_sha256",
        "model",
        "parameters",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "latency_ms",
    ):
        assert getattr(judgment, name) == getattr(first, name), name
    assert judgment.created_at == stored.created_at


async def test_unknown_ids_are_none(records):
    assert await records.get_validation("nothing") is None
    assert await records.get_judgment("nothing") is None
    assert await records.get_run("nothing") is None


async def test_given_times_come_back_as_the_same_instant_in_utc(records):
    local = datetime(2026, 5, 20, 14, 30, 15, 123456, tzinfo=timezone(timedelta(hours=2)))
    await records.save_validation(_validation(created_at=local))
    stored = await records.get_validation("v" * 32)
    assert stored is not None
    assert stored.created_at == local
    assert stored.created_at.tzinfo is UTC
    assert stored.created_at.hour == 12


async def test_a_judgment_saved_alone_round_trips_with_its_time(records):
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    record = JudgmentRecord.of(Judgment.abstain("cannot tell"), judge="j", id="solo")
    record = dataclasses.replace(record, created_at=at)
    await records.save_judgment(record)
    stored = await records.get_judgment("solo")
    assert stored is not None
    assert stored.created_at == at
    assert stored.status == "abstain"
    assert stored.validation_id is None
    assert stored.to_judgment().status is Status.ABSTAIN


async def test_audit_entries_come_newest_first_with_their_ids(records):
    start = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)
    for index in range(3):
        await records.write_audit(
            AuditRecord(
                "POST",
                "/validate",
                200 + index,
                3.5,
                key_id="key-1",
                client="127.0.0.1",
                request_sha256=SHA,
                verdict="valid",
                detail={"judges": index},
                at=start + timedelta(seconds=index),
            )
        )
    await records.write_audit(AuditRecord("GET", "/health", 200, 0.1))
    # Ids grow in the order entries were written, whatever time each entry gives.
    written = {(e.method, e.status_code): e.id for e in await records.audit_entries(limit=4)}
    ids = [written["POST", 200], written["POST", 201], written["POST", 202]]
    assert ids == sorted(ids)
    assert len(set(ids)) == 3
    assert written["GET", 200] > ids[2]  # the bare one came last

    entries = await records.audit_entries(limit=3)
    assert [entry.status_code for entry in entries] == [200, 202, 201]  # the bare one is now
    newest = entries[1]
    assert newest.id == ids[2]
    assert newest.at == start + timedelta(seconds=2)
    assert newest.at.tzinfo is UTC
    assert (newest.method, newest.path, newest.verdict) == ("POST", "/validate", "valid")
    assert (newest.key_id, newest.client, newest.request_sha256) == ("key-1", "127.0.0.1", SHA)
    assert newest.latency_ms == 3.5
    assert newest.detail == {"judges": 2}
    assert entries[0].detail is None
    assert len(await records.audit_entries()) == 4
    with pytest.raises(ValueError, match="limit must be at least 1"):
        await records.audit_entries(limit=0)


async def test_absent_optional_json_is_sql_null(records):
    await records.write_audit(AuditRecord("GET", "/health", 200, 0.1))
    async with records.engine.connect() as connection:
        nulls = await connection.scalar(
            sa.text("SELECT count(*) FROM audit_log WHERE detail IS NULL")
        )
    assert nulls == 1


async def test_a_run_is_created_found_by_id_or_name_and_finished(records):
    run = await records.create_run("eval", name="nightly", spec={"judges": ("tone",)})
    started = await records.get_run(run)
    assert started is not None
    assert (started.kind, started.status, started.name) == ("eval", "running", "nightly")
    assert started.spec == {"judges": ["tone"]}
    assert started.summary is None
    assert started.created_at.tzinfo is UTC
    assert await records.get_run("nightly") == started

    await records.finish_run(run, "done", {"items": 10, "passed": 7})
    finished = await records.get_run("nightly")
    assert finished is not None
    assert finished.status == "done"
    assert finished.summary == {"items": 10, "passed": 7}
    assert finished.updated_at >= started.updated_at
    assert finished.created_at == started.created_at


async def test_an_id_wins_over_another_runs_name_equal_to_it(records):
    first = await records.create_run("eval", id="a" * 32)
    await records.create_run("eval", name=first)
    found = await records.get_run(first)
    assert found is not None
    assert found.id == first
    assert found.name is None


async def test_finishing_an_unknown_run_is_a_lookup_error(records):
    with pytest.raises(LookupError, match="no run with id 'ghost'"):
        await records.finish_run("ghost", "done")


# Integrity


async def test_save_validation_is_all_or_nothing(records):
    taken = JudgmentRecord.of(Judgment.ok(), judge="tone", id="taken")
    await records.save_judgment(taken)
    fresh = JudgmentRecord.of(Judgment.ok(), judge="facts")
    again = JudgmentRecord.of(Judgment.fail(), judge="length", id="taken")

    with pytest.raises(DuplicateRecordError, match="duplicate"):
        await records.save_validation(_validation(), [fresh, again])

    assert await records.get_validation("v" * 32) is None
    assert await records.get_judgment(fresh.id) is None
    stored = await records.get_judgment("taken")
    assert stored is not None
    assert stored.judge == "tone"


async def test_a_duplicate_validation_id_is_refused(records):
    await records.save_validation(_validation())
    with pytest.raises(DuplicateRecordError, match="duplicate"):
        await records.save_validation(_validation(valid=True))
    stored = await records.get_validation("v" * 32)
    assert stored is not None
    assert stored.valid is False


async def test_a_judgment_naming_another_validation_is_refused(records):
    stray = JudgmentRecord.of(Judgment.ok(), judge="tone", validation_id="other")
    with pytest.raises(ValueError, match="belongs to validation other"):
        await records.save_validation(_validation(), [stray])
    assert await records.get_validation("v" * 32) is None


async def test_a_resumed_run_cannot_store_an_items_judgment_twice(records):
    run = await records.create_run("eval")
    first = [
        JudgmentRecord.of(Judgment.ok(), judge=judge, run_id=run, item_id="item-1")
        for judge in ("tone", "facts")
    ]
    await records.save_judgments(first)
    repeat = JudgmentRecord.of(Judgment.fail(), judge="tone", run_id=run, item_id="item-1")
    other_item = JudgmentRecord.of(Judgment.ok(), judge="tone", run_id=run, item_id="item-2")

    with pytest.raises(DuplicateRecordError, match="duplicate"):
        await records.save_judgments([other_item, repeat])

    assert await records.get_judgment(repeat.id) is None
    assert await records.get_judgment(other_item.id) is None  # the batch is all or nothing
    await records.save_judgment(other_item)
    assert await records.get_judgment(other_item.id) is not None


async def test_a_duplicate_run_name_is_refused(records):
    await records.create_run("eval", name="nightly")
    with pytest.raises(DuplicateRecordError, match="duplicate"):
        await records.create_run("calibration", name="nightly")


async def test_deleting_a_validation_deletes_its_judgments(records):
    judgment = JudgmentRecord.of(Judgment.ok(), judge="tone")
    await records.save_validation(_validation(), [judgment])
    async with records.engine.begin() as connection:
        await connection.execute(sa.text("DELETE FROM validations"))
    assert await records.get_judgment(judgment.id) is None


# Failures


async def test_ping_answers_when_the_database_is_up(records):
    await records.ping()


@pytest.fixture
async def dead_url(request, tmp_path, closed_port) -> AsyncIterator[str]:
    """A database that cannot be reached: a directory as the SQLite file, or a PostgreSQL
    port that refuses connections (with a password, which no error may show)."""
    if request.param == "postgresql":
        yield f"postgresql://jurist:{PASSWORD}@127.0.0.1:{closed_port}/records?connect_timeout=2"
        return
    before = set(threading.enumerate())
    yield f"sqlite:///{tmp_path}"
    # aiosqlite stops the worker thread of a failed connection without waiting for it, and
    # the thread then reports to the test's event loop: it must finish while the loop is
    # open, so this teardown is async and waits for it.
    for thread in set(threading.enumerate()) - before:
        if thread.name.endswith("(_connection_worker_thread)"):
            thread.join(timeout=10)


@pytest.mark.parametrize("dead_url", ["sqlite", "postgresql"], indirect=True)
async def test_a_dead_database_fails_ping_with_a_store_error_and_no_password(dead_url, closed_port):
    engine = create_engine(dead_url)
    try:
        with pytest.raises(StoreError, match="cannot reach the store") as caught:
            await RecordStore(engine).ping()
    finally:
        await engine.dispose()
    message = str(caught.value)
    assert PASSWORD not in message
    assert caught.value.__cause__ is not None
    if dead_url.startswith("postgresql"):
        assert f"127.0.0.1:{closed_port}" in message
        assert "***" in message
        assert "refused" in message.lower()
    else:
        assert "unable to open database file" in message


@pytest.mark.parametrize("dead_url", ["sqlite", "postgresql"], indirect=True)
async def test_opening_a_dead_database_is_a_store_error_without_the_password(dead_url):
    with pytest.raises(StoreError, match="cannot migrate the store") as caught:
        await RecordStore.open(dead_url)
    assert PASSWORD not in str(caught.value)


@pytest.mark.parametrize("dead_url", ["sqlite", "postgresql"], indirect=True)
async def test_writes_and_reads_on_a_dead_database_are_store_errors(dead_url):
    engine = create_engine(dead_url)
    records = RecordStore(engine)
    try:
        with pytest.raises(StoreError, match="cannot save validation") as saving:
            await records.save_validation(_validation())
        with pytest.raises(StoreError, match="cannot read the audit log") as reading:
            await records.audit_entries()
    finally:
        await engine.dispose()
    assert PASSWORD not in str(saving.value)
    assert PASSWORD not in str(reading.value)


async def test_an_unmigrated_database_is_a_store_error_that_says_so(database_url):
    engine = create_engine(database_url)
    try:
        with pytest.raises(StoreError, match="not migrated"):
            await RecordStore(engine).get_validation("v" * 32)
    finally:
        await engine.dispose()


# Migrations


def _to(revision: str, *, down: bool = False):
    def run(connection: sa.Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)

    return run


async def test_upgrading_a_knowledge_base_from_0001_keeps_its_data(database_url):
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_to("0001"))
            await connection.execute(
                sa.text("INSERT INTO kb_collections (name) VALUES ('handbook')")
            )
        assert await schema_revision(engine) == "0001"

        await migrate(engine)
        assert await schema_revision(engine) == head_revision() == "0005"
        async with engine.connect() as connection:
            names = list(await connection.scalars(sa.text("SELECT name FROM kb_collections")))
        assert names == ["handbook"]
        records = RecordStore(engine)
        await records.save_validation(_validation())
        assert await records.get_validation("v" * 32) is not None

        async with engine.begin() as connection:
            await connection.run_sync(_to("0001", down=True))
        async with engine.connect() as connection:
            tables = set(await connection.run_sync(lambda c: sa.inspect(c).get_table_names()))
            names = list(await connection.scalars(sa.text("SELECT name FROM kb_collections")))
        assert not tables & {"runs", "validations", "judgments", "audit_log"}
        assert names == ["handbook"]
        assert await schema_revision(engine) == "0001"
    finally:
        await engine.dispose()


async def test_concurrent_writers_all_land(records):
    """Many writers at once (a busy service): every validation and audit record is stored,
    none fails on a locked database."""
    ids = [f"{n:032x}" for n in range(40)]
    await asyncio.gather(
        *(records.save_validation(_validation(id)) for id in ids),
        *(records.write_audit(AuditRecord("POST", "/validate", 200, 1.0)) for _ in ids),
    )
    stored = await asyncio.gather(*(records.get_validation(id) for id in ids))
    assert all(found is not None for found in stored)
    assert len(await records.audit_entries(limit=100)) == len(ids)
