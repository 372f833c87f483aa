"""What the objects kept in the store's database (records, keys, the knowledge base) share:
an engine, borrowed or owned, opened migrated, and one way to say that the database failed."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Self

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from jurist.settings import Settings
from jurist.store._engine import create_engine, writer
from jurist.store._errors import DuplicateRecordError, StoreError
from jurist.store._migrate import migrate

# Errors that mean the database failed, as opposed to a caller's mistake. Drivers raise
# OSError (TimeoutError, ConnectionError) outside SQLAlchemy's wrapping now and then.
DATABASE_ERRORS = (sa_exc.SQLAlchemyError, OSError)


class EngineHandle:
    """Built on a migrated engine it borrows (`Cls(engine)`), or on one it made and owns
    (`await Cls.open(url)`); closing disposes only an engine it owns."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._owns_engine = False

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    def owning(self) -> Self:
        """This object, now owning its engine: closing it disposes the engine."""
        self._owns_engine = True
        return self

    async def close(self) -> None:
        if self._owns_engine:
            await self._engine.dispose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


class Transactional(EngineHandle):
    """An engine handle with its reads and its all-or-nothing writes, each naming what
    failed when the database does. `await Cls.open(url)` makes, migrates and owns one."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        # SQLite has one writer at a time. Writers of this object queue here, in order,
        # instead of racing for the file lock and backing off (measured with wrk: P99 1.4 s
        # without the queue, 0.14 s with it). Other writers still wait on the busy timeout.
        self._write_turn: asyncio.Lock | None = (
            asyncio.Lock() if engine.dialect.name == "sqlite" else None
        )

    @classmethod
    async def open(cls, url: str | URL | None = None, settings: Settings | None = None) -> Self:
        """The store at `url` (default: the store JURIST_DATABASE_URL names, else SQLite
        under JURIST_HOME), the schema migrated."""
        return cls(await migrated_engine(url, settings)).owning()

    @asynccontextmanager
    async def _reading(self, action: str) -> AsyncIterator[AsyncConnection]:
        try:
            async with self._engine.connect() as connection:
                yield connection
        except DATABASE_ERRORS as exc:
            raise database_failure(action, self._engine.url, exc) from exc

    @asynccontextmanager
    async def _writing(self, action: str) -> AsyncIterator[AsyncConnection]:
        async with contextlib.AsyncExitStack() as turn:
            if self._write_turn is not None:
                await turn.enter_async_context(self._write_turn)
            try:
                async with writer(self._engine).begin() as connection:
                    yield connection
            except DATABASE_ERRORS as exc:
                raise database_failure(action, self._engine.url, exc) from exc


async def migrated_engine(url: str | URL | None, settings: Settings | None) -> AsyncEngine:
    """An engine for `url` (default: JURIST_DATABASE_URL, else SQLite under JURIST_HOME)
    whose schema is migrated; a database that fails on the way is a StoreError."""
    engine = create_engine(url, settings)
    try:
        await migrate(engine)
    except DATABASE_ERRORS as exc:
        await engine.dispose()
        raise database_failure("migrate the store", engine.url, exc) from exc
    except BaseException:
        await engine.dispose()
        raise
    return engine


def database_failure(action: str, url: URL, exc: BaseException) -> StoreError:
    """`exc` from the database as a StoreError: the driver's own message, on one line,
    without the SQL and its parameters (they hold the records), nor the password."""
    where = url.render_as_string(hide_password=True)
    orig = exc.orig if isinstance(exc, sa_exc.DBAPIError) else None
    cause: BaseException = orig if isinstance(orig, BaseException) else exc
    text = " ".join(str(cause).split()) or type(cause).__name__
    if url.password:
        # Drivers do not echo passwords; this makes sure no message ever does.
        text = text.replace(str(url.password), "***")
    if _is_duplicate(cause):
        return DuplicateRecordError(
            f"cannot {action} ({where}): duplicate, a record with that key is stored "
            f"already: {text}"
        )
    if _is_missing_table(cause):
        text += " (the store is not migrated: opening it with .open() migrates it)"
    if isinstance(exc, sa_exc.TimeoutError):  # no connection of the pool came free in time
        text += " (JURIST_DB_POOL_TIMEOUT_S)"
    return StoreError(f"cannot {action} ({where}): {text}")


def _is_duplicate(cause: BaseException) -> bool:
    if getattr(cause, "sqlstate", None) == "23505":  # PostgreSQL's unique_violation
        return True
    name = getattr(cause, "sqlite_errorname", None)
    return name in {"SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"}


def _is_missing_table(cause: BaseException) -> bool:
    if getattr(cause, "sqlstate", None) == "42P01":  # PostgreSQL's undefined_table
        return True
    return "no such table" in str(cause)
