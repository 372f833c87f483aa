"""A fresh cache file met by many calls at once, reading and writing: none of them finds it
locked (setting a new file up raced: about one fresh file in three logged a lookup that
failed with 'database is locked')."""

import asyncio
import logging

from jurist.llm import Response, ResponseCache

ANSWER = Response(text="yes")


async def busy_start(path) -> None:
    # Each worker its own instance, as each layer of a validation builds its model stack.
    caches = [ResponseCache(path) for _ in range(8)]

    async def worker(number: int, cache: ResponseCache) -> None:
        for call in range(30):
            key = f"{number}-{call}"
            assert await cache.get(key) is None
            await cache.put(key, "test:judge", ANSWER)

    await asyncio.gather(*(worker(n, cache) for n, cache in enumerate(caches)))


def test_many_calls_at_once_on_new_files_never_find_them_locked(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="jurist"):
        for attempt in range(10):
            asyncio.run(busy_start(tmp_path / f"cache-{attempt}" / "responses.sqlite3"))
    assert [record.getMessage() for record in caplog.records] == []
