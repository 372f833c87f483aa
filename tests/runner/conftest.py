"""A store for the runner's tests: SQLite in a temporary directory, or PostgreSQL."""

from collections.abc import AsyncIterator

import pytest

from jurist.store import RecordStore


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite3'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, sqlite_url) -> str:
    """Both backends, for the tests that must hold on each."""
    if request.param == "sqlite":
        return sqlite_url
    return request.getfixturevalue("postgres_url")


@pytest.fixture
async def records(sqlite_url) -> AsyncIterator[RecordStore]:
    async with await RecordStore.open(sqlite_url) as opened:
        yield opened
