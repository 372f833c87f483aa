"""The engine factory: URLs, drivers, the default SQLite file and its pragmas."""

import sys

import pytest
import sqlalchemy as sa

from jurist.settings import Settings
from jurist.store import StoreError, create_engine, database_url


@pytest.mark.parametrize(
    ("given", "driver"),
    [
        ("sqlite:///x.db", "sqlite+aiosqlite"),
        ("sqlite+aiosqlite:///x.db", "sqlite+aiosqlite"),
        ("postgresql://u:p@h:5433/db", "postgresql+psycopg"),
        ("postgres://u:p@h/db", "postgresql+psycopg"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg"),
    ],
)
def test_urls_get_the_async_driver_and_keep_the_rest(given, driver):
    url = database_url(given)
    assert url.drivername == driver
    assert url.database == sa.make_url(given).database
    assert url.password == sa.make_url(given).password


@pytest.mark.parametrize(
    "given", ["mysql://root:hunter2@h/db", "postgresql+psycopg2://u:hunter2@h/db"]
)
def test_unsupported_schemes_are_named_and_passwords_are_not(given):
    scheme = given.partition("://")[0]
    with pytest.raises(StoreError, match="unsupported database URL scheme") as caught:
        database_url(given)
    assert repr(scheme) in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_text_that_is_no_url_is_refused_without_echoing_it():
    with pytest.raises(StoreError, match="not a database URL") as caught:
        database_url("hunter2 is not a url")
    assert "hunter2" not in str(caught.value)


def test_a_missing_postgres_driver_names_the_extra_and_hides_the_password(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now raises ImportError
    with pytest.raises(StoreError) as caught:
        create_engine("postgresql://jurist:hunter2@db.example/kb")
    message = str(caught.value)
    assert "jurist[postgres]" in message
    assert "postgresql" in message
    assert "hunter2" not in message
    assert "db.example" in message


async def test_the_default_store_is_sqlite_under_jurist_home(tmp_path):
    home = tmp_path / "new" / "home"
    settings = Settings(JURIST_HOME=str(home))
    engine = create_engine(settings=settings)
    try:
        assert engine.url.drivername == "sqlite+aiosqlite"
        assert engine.url.database == str(settings.database_file)
        assert settings.database_file.parent == home
        assert home.is_dir()
    finally:
        await engine.dispose()


async def test_jurist_database_url_is_used_when_no_url_is_given(tmp_path):
    settings = Settings(JURIST_HOME=str(tmp_path), JURIST_DATABASE_URL="sqlite:///elsewhere.db")
    engine = create_engine(settings=settings)
    try:
        assert engine.url.database == "elsewhere.db"
    finally:
        await engine.dispose()


async def test_every_sqlite_connection_runs_in_wal_mode_synced_with_foreign_keys(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        for _ in range(2):  # a second, pooled connection as well as a new one
            async with engine.connect() as connection:
                pragmas = {
                    name: await connection.scalar(sa.text(f"PRAGMA {name}"))
                    for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
                }
            assert pragmas == {
                "journal_mode": "wal",
                "synchronous": 2,  # FULL: each commit synced to disk before it returns
                "busy_timeout": 5000,
                "foreign_keys": 1,
            }
    finally:
        await engine.dispose()


async def test_sqlite_ddl_is_transactional(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        connection = await engine.connect()
        transaction = await connection.begin()
        await connection.execute(sa.text("CREATE TABLE half (x INTEGER)"))
        await transaction.rollback()
        await connection.close()
        async with engine.connect() as connection:
            tables = await connection.run_sync(lambda c: sa.inspect(c).get_table_names())
        assert "half" not in tables
    finally:
        await engine.dispose()
