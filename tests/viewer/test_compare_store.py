"""The store's reads behind the item page and the comparison, on SQLite and PostgreSQL: one
item's judgments, and two runs compared item by item in the database (change kinds, flips,
order, filters, pages)."""

import asyncio

import pytest
from seed_items import every_change

from jurist.store import RecordStore


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'compare.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def test_two_runs_are_compared_item_by_item_in_the_database(store_url):
    async def scenario() -> None:
        await every_change(store_url)
        async with await RecordStore.open(store_url) as store:
            a, b = await store.get_run("a"), await store.get_run("b")
            assert a is not None
            assert b is not None
            found = await store.compare_runs((a.id, "j"), (b.id, "j"))
            assert found.changes == {"status": 1, "score": 2, "added": 1, "removed": 1, "same": 1}
            assert found.flips == {"error→pass": 1}
            assert [(i.item_id, i.change) for i in found.items] == [
                ("10", "status"),
                ("2", "score"),
                ("11", "score"),
                ("3", "removed"),
                ("4", "added"),
                ("1", "same"),
            ]
            assert found.total == 6
            changed = await store.compare_runs(
                (a.id, "j"), (b.id, "j"), only="changed", limit=2, offset=2
            )
            assert [i.item_id for i in changed.items] == ["11", "3"]
            assert changed.total == 5
            added = await store.compare_runs((a.id, "j"), (b.id, "j"), only="added")
            assert [(i.item_id, i.status_a, i.status_b, i.delta) for i in added.items] == [
                ("4", None, "pass", None)
            ]
            with pytest.raises(ValueError, match="only must be one of"):
                await store.compare_runs((a.id, "j"), (b.id, "j"), only="flipped")

            (ten,) = await store.item_judgments(a.id, "10")
            assert (ten.judge, ten.status, ten.item_id) == ("j", "error", "10")
            assert await store.item_judgments(a.id, "4") == []

    asyncio.run(scenario())
