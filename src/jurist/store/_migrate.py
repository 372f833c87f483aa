"""Schema migrations: alembic, configured in code, run on the caller's engine."""

from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from jurist.store._engine import writer
from jurist.store._errors import StoreError
from jurist.store._tables import VERSION_TABLE

if TYPE_CHECKING:
    from alembic.config import Config

_SCRIPTS = Path(__file__).parent / "migrations"
# Any fixed number: concurrent migrators on one PostgreSQL database take turns on it.
_POSTGRES_LOCK = 0x6A75726973


def alembic_config() -> "Config":
    """Alembic's configuration for the store's migrations (no alembic.ini involved)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    return config


async def migrate(engine: AsyncEngine) -> None:
    """Bring the schema up to the newest revision, in one transaction; a no-op when it is
    there already."""
    async with writer(engine).begin() as connection:
        await connection.run_sync(_upgrade)


async def schema_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at, or None before the first migration."""
    async with engine.connect() as connection:
        return await connection.run_sync(_current)


def head_revision() -> str:
    """The newest revision this version of jurist knows."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise StoreError(f"no migrations found under {_SCRIPTS}: the installation is broken")
    return head


def _upgrade(connection: sa.Connection) -> None:
    from alembic import command
    from alembic.util import CommandError

    if connection.dialect.name == "postgresql":
        connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_POSTGRES_LOCK)))
    config = alembic_config()
    config.attributes["connection"] = connection
    try:
        command.upgrade(config, "head")
    except CommandError as exc:
        current = _current(connection)
        raise StoreError(
            f"cannot migrate the store (at revision {current}, this jurist knows up to "
            f"{head_revision()}; a newer jurist may have migrated it): {exc}"
        ) from exc


def _current(connection: sa.Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    return context.get_current_revision()
