"""Engines for the store: SQLite under JURIST_HOME by default, PostgreSQL by URL.

SQLite connections run in WAL mode with a busy timeout (several processes share one file:
the CLI, the server, a batch run), and SQLAlchemy rather than the sqlite3 driver emits
BEGIN, so DDL is transactional too and a migration or an ingest is all or nothing. Each
commit is synced to disk (synchronous=FULL) before it returns, as PostgreSQL's commits are
by default: a write the store reports done survives a power cut, not only a crash of the
process. Group commit (`GroupCommit`) pays that sync once for many writes.

PostgreSQL connections are bounded everywhere a store call could wait: opening one
(JURIST_DB_CONNECT_TIMEOUT_S), waiting for a free one (JURIST_DB_POOL_TIMEOUT_S), and each
answer (JURIST_DB_STATEMENT_TIMEOUT_S: the server's statement_timeout, and on the client a
connection the server stays silent on for that long is closed). The client side is what
matters when the server is frozen or partitioned away: its kernel still accepts TCP and
acknowledges packets, so neither the server's timeout nor TCP keepalives ever fire.
"""

import asyncio
import functools
import math
import os
import selectors
import socket
import time
from collections.abc import Awaitable, Callable, Generator
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from jurist.core import dump_json
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

# How long a write waits for a busy SQLite file before it fails as unavailable.
BUSY_TIMEOUT_S = 5.0

_SQLITE_PRAGMAS = (
    # First, so that switching to WAL waits for a busy database instead of failing.
    f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}",
    "PRAGMA journal_mode=WAL",
    # NORMAL would skip the sync at each commit: with WAL the file stays whole, but a power
    # cut could lose the last commits, answered as saved (measured: about twice the
    # commits per second, bench/store_group_commit.py).
    "PRAGMA synchronous=FULL",
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
    settings = settings or get_settings()
    target = database_url(url)
    # JSON columns are written on every stored record: orjson, not the json module. They
    # are read by the json module, which keeps an integer beyond 64 bits an integer.
    options: dict[str, Any] = {"json_serializer": _json_text}
    if target.drivername == POSTGRES_DRIVER:
        options["pool_pre_ping"] = True  # a long-lived server outlives database restarts
        options["pool_timeout"] = settings.db_pool_timeout_s
    try:
        if target.drivername == POSTGRES_DRIVER:
            options["connect_args"] = _postgres_connect_args(target, settings)
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
    if target.drivername == POSTGRES_DRIVER:
        _mark_pings(engine)
    return engine


def sqlite_writer(engine: AsyncEngine) -> sa.Engine | None:
    """For an engine on a SQLite file, a synchronous engine on the same file for the group
    commit's writer thread: a transaction there is one hop from the event loop, where through
    the async driver each statement, its BEGIN and its COMMIT were a hop of their own to the
    driver's thread and back. It is `engine` with another driver: its connections are
    configured by `engine`'s listeners (`connect`), and its transactions begin, commit and
    roll back through them too. None for PostgreSQL, and for an in-memory database (another
    connection would see another database)."""
    database = engine.url.database
    if engine.url.drivername != SQLITE_DRIVER or not on_file(database):
        return None
    sync = sa.create_engine(
        engine.url.set(drivername="sqlite+pysqlite"),
        json_serializer=_json_text,
        pool_size=1,  # one thread writes
    )
    # Looked up at each event: a collection of listeners is replaced by another when its
    # first listener is added, and the pool by another when the engine is disposed.
    source = engine.sync_engine
    sa.event.listen(sync, "connect", functools.partial(_configure, source))
    for name in ("begin", "commit", "rollback"):
        sa.event.listen(sync, name, functools.partial(_tell, source, name))
    return sync


def _configure(engine: sa.Engine, dbapi_connection: Any, record: Any) -> None:
    engine.pool.dispatch.connect(dbapi_connection, record)


def _tell(engine: sa.Engine, event: str, connection: sa.Connection) -> None:
    getattr(engine.dispatch, event)(connection)


def on_file(database: str | None) -> bool:
    """Whether a SQLite database name is a file's, not an in-memory database's."""
    return (
        bool(database) and database != ":memory:" and not str(database).startswith("file::memory:")
    )


def _json_text(value: Any) -> str:
    return dump_json(value).decode()


_Engine = TypeVar("_Engine", AsyncEngine, sa.Engine)


def writer(engine: _Engine) -> _Engine:
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


_PSYCOPG_WAIT_INTERVAL = 0.1  # psycopg's own default: how often a wait checks for interrupts

# TCP keepalives find a peer that vanished (a host down, a dropped route) on an idle pooled
# connection in about a minute, before a request picks it up.
_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}


def _postgres_connect_args(target: URL, settings: Settings) -> dict[str, Any]:
    connect_s = settings.db_connect_timeout_s
    statement_s = settings.db_statement_timeout_s
    server_option = f"-c statement_timeout={max(1, round(statement_s * 1000))}"
    given = target.query.get("options")
    if isinstance(given, str) and given.strip():
        # After ours: the server takes the last -c, so the URL's own statement_timeout wins.
        server_option = f"{server_option} {given}"
    return {
        **_KEEPALIVES,
        # libpq counts whole seconds, at least 2; the connector holds the exact bound.
        "connect_timeout": max(2, math.ceil(connect_s)),
        "options": server_option,
        # How SQLAlchemy's psycopg dialect takes a connection factory of one's own (it is
        # what create_async_engine(async_creator=...) uses), here with the URL's parameters.
        "async_creator_fn": _connector(connect_s, statement_s),
    }


def _connector(connect_s: float, statement_s: float) -> Callable[..., Awaitable[Any]]:
    import psycopg

    # The server cancels a slow statement at statement_s and says so; the client waits a
    # little longer, so that a live server's own, clearer answer comes first.
    silence_s = statement_s + min(1.0, max(0.25, statement_s / 10))

    class BoundedConnection(psycopg.AsyncConnection[Any]):
        """A connection that is closed when the server sends nothing for `silence_s` while
        an answer is awaited: the wait then fails at once, as for a dropped connection, so
        SQLAlchemy discards it instead of returning it to the pool."""

        silenced = False
        pinging = False  # set while the pool checks that the connection is alive

        async def wait(
            self,
            gen: Any,
            interval: float = _PSYCOPG_WAIT_INTERVAL,
            timeout: float | None = None,  # noqa: ASYNC109 - psycopg's signature
        ) -> Any:
            try:
                fileno = self.pgconn.socket
            except psycopg.Error:  # closed: the wait fails by itself, as psycopg says
                return await super().wait(gen, interval, timeout)
            # A ping asks no work of the server: it may take as long as reaching it may.
            limit = connect_s if self.pinging else silence_s
            watch = _Silence(fileno, limit, self._statements_pending)
            try:
                return await super().wait(watch.track(gen), interval, timeout)
            except psycopg.OperationalError as exc:
                self.silenced = self.silenced or watch.severed
                if self.silenced:  # this wait's or an earlier one's: the cause is the same
                    setting = (
                        "JURIST_DB_CONNECT_TIMEOUT_S"
                        if self.pinging
                        else f"statement timeout {statement_s:g} s, JURIST_DB_STATEMENT_TIMEOUT_S"
                    )
                    raise psycopg.errors.ConnectionTimeout(
                        f"the database sent nothing for {limit:g} s ({setting}), so its "
                        "connection was closed"
                    ) from exc
                raise
            finally:
                watch.stop()

        def _statements_pending(self) -> int:
            # A pipeline (executemany) sends its statements at once, and the server answers
            # only at its end: it may be silent for the timeout of each statement in turn.
            pipeline = self._pipeline
            return len(pipeline.result_queue) if pipeline is not None else 1

    async def connect(*args: Any, **kwargs: Any) -> BoundedConnection:
        # A frozen server completes the TCP handshake (its kernel does) and then never
        # answers the startup packet: only a clock bounds that.
        try:
            async with asyncio.timeout(connect_s) as scope:
                return await BoundedConnection.connect(*args, **kwargs)
        except (TimeoutError, psycopg.errors.ConnectionTimeout) as exc:
            if isinstance(exc, TimeoutError) and not scope.expired():
                raise
            raise psycopg.errors.ConnectionTimeout(
                f"no connection to the database within {connect_s:g} s "
                "(JURIST_DB_CONNECT_TIMEOUT_S)"
            ) from None

    return connect


def _mark_pings(engine: AsyncEngine) -> None:
    """Flag the driver's connection while the pool pings it before lending it out."""
    dialect = engine.sync_engine.dialect
    ping = dialect.do_ping

    def do_ping(dbapi_connection: Any) -> bool:
        driver: Any = getattr(dbapi_connection, "driver_connection", None)
        if not hasattr(driver, "pinging"):
            return ping(dbapi_connection)
        driver.pinging = True
        try:
            return ping(dbapi_connection)
        finally:
            driver.pinging = False

    # The dialect has no ping event; an attribute of this engine's own dialect object is
    # the narrowest place to wrap it.
    dialect.do_ping = do_ping  # type: ignore[method-assign]


class _Silence:
    """Watches one wait on a connection's socket: when nothing arrives for `limit` seconds
    for each statement the server has pending, the socket is shut down, which wakes the wait
    with an error. Silence is what is bounded, not the wait: a long answer streaming in is
    fine."""

    def __init__(self, fileno: int, limit: float, statements: Callable[[], int]) -> None:
        self._fileno = fileno
        self._limit = limit
        self._statements = statements
        self._last = time.monotonic()
        self.severed = False
        self._timer = asyncio.get_running_loop().call_later(limit, self._check)

    def track(self, gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
        """`gen`, noting each time the socket was readable (the server said something)."""
        try:
            wanted = next(gen)
            while True:
                ready = yield wanted
                if ready & selectors.EVENT_READ:
                    self._last = time.monotonic()
                wanted = gen.send(ready)
        except StopIteration as done:
            return done.value

    def _check(self) -> None:
        quiet = time.monotonic() - self._last
        limit = self._limit * max(1, self._statements())
        if quiet < limit or _readable(self._fileno):
            # Heard from lately, or an answer is waiting to be read: not silent.
            wait = limit - quiet if quiet < limit else self._limit
            self._timer = asyncio.get_running_loop().call_later(wait, self._check)
            return
        self.severed = True
        try:
            # On a duplicate of the descriptor: shutting down acts on the socket itself, and
            # the descriptor psycopg waits on stays open, so its wait wakes (closing it would
            # leave the wait on a dead descriptor forever).
            with socket.socket(fileno=os.dup(self._fileno)) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the connection is gone already, and its wait fails by itself

    def stop(self) -> None:
        self._timer.cancel()


def _readable(fileno: int) -> bool:
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(fileno, selectors.EVENT_READ)
            return bool(selector.select(0))
    except (OSError, ValueError):
        return False
