"""The store's list of validations: counted, paged, newest first, narrowed by key, verdict,
severity and time in SQL, on SQLite and PostgreSQL alike."""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from seed_validations import pipeline_record, run_apart, schema_request

from jurist.store import RecordStore

START = datetime(2026, 3, 1, 12, tzinfo=UTC)
BROKEN = {"answer": "Paris"}
WHOLE = {"answer": "Paris", "source": "atlas"}


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return f"sqlite:///{tmp_path / 'store.sqlite3'}"


async def seed(records: RecordStore) -> dict[str, str]:
    """One validation an hour from START, each its own kind of finding."""
    made = {
        "clean": await pipeline_record(schema_request(WHOLE), key_id="alice"),
        "error": await pipeline_record(schema_request(BROKEN), key_id="alice"),
        "warning": await pipeline_record(schema_request(BROKEN, "warning"), key_id="bob"),
        "info": await pipeline_record(schema_request(BROKEN, "info"), key_id="alice"),
    }
    ids = {}
    for hour, (name, record) in enumerate(made.items()):
        at = START + timedelta(hours=hour)
        await records.save_validation(dataclasses.replace(record, created_at=at))
        ids[name] = record.id
    return ids


def test_validations_are_listed_newest_first_and_filtered_in_the_database(store_url):
    run_apart(listed_and_filtered(store_url))


async def listed_and_filtered(store_url: str) -> None:
    async with await RecordStore.open(store_url) as records:
        ids = await seed(records)
        total, rows = await records.list_validations()
        assert total == 4
        assert [row.id for row in rows] == [ids[n] for n in ("info", "warning", "error", "clean")]
        info = rows[0]
        assert (info.valid, info.error_count, info.warning_count, info.info_count) == (
            True,
            0,
            0,
            1,
        )
        assert info.layers == ("schema",)
        assert info.key_id == "alice"
        assert not info.sealed
        assert info.created_at == START + timedelta(hours=3)

        async def listed(**filters) -> tuple[int, list[str]]:
            total, rows = await records.list_validations(**filters)
            return total, [row.id for row in rows]

        assert await listed(valid=False) == (1, [ids["error"]])
        assert await listed(valid=True) == (3, [ids["info"], ids["warning"], ids["clean"]])
        assert await listed(severity="error") == (1, [ids["error"]])
        assert await listed(severity="warning") == (1, [ids["warning"]])
        assert await listed(severity="info") == (1, [ids["info"]])
        assert await listed(key_id="bob") == (1, [ids["warning"]])
        assert await listed(key_id="alice", severity="info") == (1, [ids["info"]])
        assert await listed(key_id="carol") == (0, [])
        window = {"since": START + timedelta(hours=1), "until": START + timedelta(hours=3)}
        assert await listed(**window) == (2, [ids["warning"], ids["error"]])
        # A page is a slice of the same order; the count is the whole filtered set's.
        assert await listed(limit=2, offset=1) == (4, [ids["warning"], ids["error"]])
        assert await listed(limit=2, offset=4) == (4, [])


def test_an_unknown_severity_or_a_bad_page_is_refused_naming_it(tmp_path):
    run_apart(refused(f"sqlite:///{tmp_path / 'store.sqlite3'}"))


async def refused(store_url: str) -> None:
    async with await RecordStore.open(store_url) as records:
        with pytest.raises(ValueError, match="severity must be one of error, warning, info"):
            await records.list_validations(severity="fatal")
        with pytest.raises(ValueError, match="limit"):
            await records.list_validations(limit=0)
