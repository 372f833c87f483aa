"""Migrations: the schema they build is the metadata's, and running them again is a no-op."""

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from jurist.store import (
    VERSION_TABLE,
    create_engine,
    head_revision,
    include_name,
    metadata,
    migrate,
    schema_revision,
)


def _differences(connection: sa.Connection) -> list[object]:
    context = MigrationContext.configure(
        connection,
        opts={
            "version_table": VERSION_TABLE,
            "include_name": include_name,
            "compare_type": True,
            "compare_server_default": False,
        },
    )
    return list(compare_metadata(context, metadata))


async def test_the_migrated_schema_matches_the_table_metadata(database_url):
    engine = create_engine(database_url)
    try:
        assert await schema_revision(engine) is None
        await migrate(engine)
        async with engine.connect() as connection:
            assert await connection.run_sync(_differences) == []
            tables = set(await connection.run_sync(lambda c: sa.inspect(c).get_table_names()))
        assert set(metadata.tables) <= tables
        assert VERSION_TABLE in tables
    finally:
        await engine.dispose()


async def test_the_full_text_index_exists_in_the_databases_own_form(database_url):
    engine = create_engine(database_url)
    try:
        await migrate(engine)
        async with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                found = await connection.scalars(
                    sa.text("SELECT name FROM sqlite_master WHERE name LIKE 'kb_chunks_fts%'")
                )
                names = set(found)
                assert "kb_chunks_fts" in names
                assert {f"kb_chunks_fts_{n}" for n in ("insert", "delete", "update")} <= names
            else:
                kind = await connection.scalar(
                    sa.text(
                        "SELECT data_type FROM information_schema.columns "
                        "WHERE table_name = 'kb_chunks' AND column_name = 'search_vector'"
                    )
                )
                assert kind == "tsvector"
                method = await connection.scalar(
                    sa.text(
                        "SELECT am.amname FROM pg_class c JOIN pg_am am ON am.oid = c.relam "
                        "WHERE c.relname = 'ix_kb_chunks_search_vector'"
                    )
                )
                assert method == "gin"
    finally:
        await engine.dispose()


async def test_migrating_twice_changes_nothing_and_keeps_the_data(database_url):
    engine = create_engine(database_url)
    try:
        await migrate(engine)
        async with engine.begin() as connection:
            await connection.execute(sa.text("INSERT INTO kb_collections (name) VALUES ('kept')"))
        await migrate(engine)
        assert await schema_revision(engine) == head_revision()
        async with engine.connect() as connection:
            names = list(await connection.scalars(sa.text("SELECT name FROM kb_collections")))
            versions = await connection.scalar(sa.text(f"SELECT count(*) FROM {VERSION_TABLE}"))
        assert names == ["kept"]
        assert versions == 1
    finally:
        await engine.dispose()
