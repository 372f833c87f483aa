"""The knowledge base's tests run on SQLite and on a real PostgreSQL server alike."""

from collections.abc import AsyncIterator

import pytest

from jurist.knowledge import KnowledgeBase


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
async def knowledge(database_url) -> AsyncIterator[KnowledgeBase]:
    """A migrated, empty knowledge base that ranks by full text only."""
    async with await KnowledgeBase.open(database_url, rerank=False) as opened:
        yield opened
