"""What the objects kept in the store's database (records, keys, the knowledge base) share:
an engine, borrowed or owned, opened migrated, and one way to say that the database failed."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Self

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from jurist.settings import Settings
from jurist.store._engine import create_engine, writer
from jurist.store._errors import DATABASE_ERRORS, database_failure
from jurist.store._group_commit import Batched, GroupCommit, close_writer
from jurist.store._migrate import migrate


class EngineHandle:
    """Built on a migrated engine it borrows (`Cls(engine)`), or on one it made and owns
    (`await Cls.open(url)`); closing disposes only an engine it owns."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._owns_engine = False
        self._group: GroupCommit | None = None

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
        """A write transaction of its own, in its turn (SQLite has one writer at a time: the
        engine's writers take turns with its group commit, see `GroupCommit`)."""
        async with contextlib.AsyncExitStack() as turn:
            try:
                write_turn = GroupCommit.of(self._engine).turn
                if write_turn is not None:
                    await turn.enter_async_context(write_turn)
                async with writer(self._engine).begin() as connection:
                    yield connection
            except DATABASE_ERRORS as exc:
                raise database_failure(action, self._engine.url, exc) from exc

    async def _grouped(self, kind: Batched, payload: Any, action: str) -> Any:
        """`kind`'s result for `payload`, committed with the other writes waiting on this
        engine (group commit); a StoreError naming `action` when it fails."""
        # The writer found once per event loop: finding it in the registry of writers, on
        # every write, cost a weak reference to the engine each time.
        group = self._group
        if group is None or group.closed or group.loop is not asyncio.get_running_loop():
            group = self._group = GroupCommit.of(self._engine)
        return await group.write(kind, payload, action)

    async def flush(self) -> None:
        """Return when the writes queued on this object's engine so far are committed (or
        failed, their callers told)."""
        await GroupCommit.of(self._engine).flush()

    async def close(self) -> None:
        await self.flush()
        if self._owns_engine:
            close_writer(self._engine)
        await super().close()


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
