"""Engines for the store: SQLite under JURIST_HOME by default, PostgreSQL by URL.

SQLite connections run in WAL mode with a busy timeout (several processes share one file:
the CLI, the server, a batch run), and SQLAlchemy rather than the sqlite3 driver emits
BEGIN, so DDL is transactional too and a migration or an ingest is all or nothing.
"""

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from jurist.settings import Settings, get_settings
from jurist.store._errors import StoreError

SQLITE_DRIVER = "sqlite+aiosqlite"
POSTGRES_DRIVER = "postgresql+psycopg"

_DRIVERS = {
    "sqlite": SQLITE_DRIVER,
    SQLITE_DRIVER: SQLITE_DRIVER,
    "postgresql": POSTGRES_DRIVER,
    "postgres": POSTGRES_DRIVER,
    POSTGRES_DRIVER: POSTGRES_DRIVER,
}
_EXPECTED = "expected sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"

_SQLITE_PRAGMAS = (
    # First, so that switching to WAL waits for a busy database instead of failing.
    "PRAGMA busy_timeout=5000",
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
)

# An execution option: transactions on an engine carrying it write, and on SQLite take the
# write lock at BEGIN. A deferred transaction that reads and then writes can fail with
# SQLITE_BUSY when another writer got in between, whatever the busy timeout.
_WRITE_OPTION = "jurist_write"


def database_url(url: str | URL) -> URL:
    """`url` with the async driver jurist uses: `sqlite://` becomes `sqlite+aiosqlite://`,
    `postgres://` and `postgresql://` become `postgresql+psycopg://`."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        # The text may hold a password, so only its scheme is shown.
        scheme = str(url).partition("://")[0] if "://" in str(url) else "(none)"
        raise StoreError(f"not a database URL (scheme {scheme!r}): {_EXPECTED}") from None
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        raise StoreError(
            f"unsupported database URL scheme {parsed.drivername!r} in "
            f"{parsed.render_as_string(hide_password=True)}: {_EXPECTED}"
        )
    return parsed.set(drivername=driver)


def create_engine(url: str | URL | None = None, settings: Settings | None = None) -> AsyncEngine:
    """An engine for `url`, else `settings.database_url` (JURIST_DATABASE_URL), else the SQLite
    file under JURIST_HOME (its directory is created). Call `migrate(engine)` before use."""
    if url is None:
        settings = settings or get_settings()
        url = settings.database_url
        if url is None:
            path = settings.database_file
            path.parent.mkdir(parents=True, exist_ok=True)
            url = URL.create(SQLITE_DRIVER, database=str(path))
    target = database_url(url)
    options: dict[str, Any] = {}
    if target.drivername == POSTGRES_DRIVER:
        options["pool_pre_ping"] = True  # a long-lived server outlives database restarts
    try:
        engine = create_async_engine(target, **options)
    except ImportError as exc:
        raise StoreError(
            f"the PostgreSQL driver (psycopg) is not installed, and "
            f"{target.render_as_string(hide_password=True)} (scheme postgresql) needs it: "
            f"install it with `pip install 'jurist[postgres]'` "
            f"(from a clone: `uv sync --extra postgres`)"
        ) from exc
    if target.drivername == SQLITE_DRIVER:
        sa.event.listen(engine.sync_engine, "connect", _configure_sqlite)
        sa.event.listen(engine.sync_engine, "begin", _begin_sqlite)
    return engine


def writer(engine: AsyncEngine) -> AsyncEngine:
    """`engine` for transactions that write (same pool)."""
    return engine.execution_options(**{_WRITE_OPTION: True})


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    # The driver would otherwise BEGIN only before DML, leaving DDL outside transactions.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        for pragma in _SQLITE_PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def _begin_sqlite(connection: sa.Connection) -> None:
    immediate = connection.get_execution_options().get(_WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
