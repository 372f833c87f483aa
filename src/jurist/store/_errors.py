"""The store's errors, and how a database's failure becomes one."""

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL

from jurist.core import JuristError

# Errors that mean the database failed, as opposed to a caller's mistake. Drivers raise
# OSError (TimeoutError, ConnectionError) outside SQLAlchemy's wrapping now and then.
DATABASE_ERRORS = (sa_exc.SQLAlchemyError, OSError)


class StoreError(JuristError):
    """The store cannot do what was asked: a bad URL, a missing driver, an unknown schema."""


class DuplicateRecordError(StoreError):
    """A record's key is taken already: its id, a run's name, or a run's (item, judge)."""


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


def is_unavailable(exc: BaseException) -> bool:
    """Whether `exc` says the database could not be reached or did not answer (a lost or
    refused connection, a timeout, a busy file), rather than that it refused what was sent:
    every other write waiting would meet the same."""
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(
        exc, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError | OSError
    )


def _is_duplicate(cause: BaseException) -> bool:
    if getattr(cause, "sqlstate", None) == "23505":  # PostgreSQL's unique_violation
        return True
    name = getattr(cause, "sqlite_errorname", None)
    return name in {"SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"}


def _is_missing_table(cause: BaseException) -> bool:
    if getattr(cause, "sqlstate", None) == "42P01":  # PostgreSQL's undefined_table
        return True
    return "no such table" in str(cause)
