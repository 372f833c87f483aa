"""The statements behind the pages of runs (`RecordStore.page_runs`, `run_items`, ...): every
filter, count, sort and page is the database's work, so a run of many thousand items is never
read whole to show fifty of them. Each works on SQLite and PostgreSQL alike."""

import string
from collections.abc import Collection
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.store._columns import utc
from jurist.store._stored import RUNNING, StoredJudgment, StoredRun
from jurist.store._tables import judgments, runs

RunSort = Literal["started", "name", "cost", "duration"]
ItemSort = Literal["item", "score", "status"]
RUN_SORTS: tuple[RunSort, ...] = ("started", "name", "cost", "duration")
ITEM_SORTS: tuple[ItemSort, ...] = ("item", "score", "status")


def seconds_between(dialect: str, start: Any, end: Any) -> sa.ColumnElement[Any]:
    """`end - start` in seconds, in the database's own date arithmetic."""
    if dialect == "postgresql":
        return sa.func.extract("epoch", end - start)
    return (sa.func.julianday(end) - sa.func.julianday(start)) * 86400.0


def run_duration(dialect: str) -> sa.ColumnElement[Any]:
    """A finished run's duration in seconds; NULL while it runs."""
    return sa.case(
        (runs.c.status == RUNNING, sa.null()),
        else_=seconds_between(dialect, runs.c.created_at, runs.c.updated_at),
    )


def dataset_path() -> sa.ColumnElement[str]:
    path: sa.ColumnElement[str] = runs.c.spec[("dataset", "path")].as_string()
    return path


def dataset_sha256() -> sa.ColumnElement[str]:
    sha256: sa.ColumnElement[str] = runs.c.spec[("dataset", "sha256")].as_string()
    return sha256


def holds_key(key: str) -> sa.ColumnElement[bool]:
    """Runs whose summary has `key` (what a calibration keeps its report under): the JSON
    value read as text is NULL on both databases when the key is missing."""
    held: sa.ColumnElement[bool] = runs.c.summary[key].as_string().is_not(None)
    return held


def _contains(column: sa.ColumnElement[Any], text: str) -> sa.ColumnElement[bool]:
    # Case-insensitive on both databases, with the search's own % and _ taken literally.
    return sa.func.lower(column).contains(text.lower(), autoescape=True)


# What a JSON text writes as it is: the letters of a search made only of these appear in the
# judgment's JSON text wherever they appear in its reasoning.
_VERBATIM = frozenset(string.ascii_letters + string.digits + " !#$%&'()*+,-./:;<=>?@[]^_`{|}~")


def _in_json_text(search: str, dialect: str) -> list[sa.ColumnElement[bool]]:
    """A cheap first sieve for a search in the reasoning: the whole judgment's JSON text
    holds the text wherever its reasoning does, so only the rows that pass it are parsed to
    read the reasoning (reading every row's JSON is most of a search's time). A text JSON
    would escape (quotes, backslashes, other than ASCII) gets no sieve."""
    if not set(search) <= _VERBATIM:
        return []
    text = sa.cast(judgments.c.judgment, sa.Text)
    pattern = "%" + search.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"
    # Both ignore the case of ASCII letters natively, without lower-casing every text first.
    if dialect == "sqlite":
        return [text.like(pattern, escape="/")]
    return [text.ilike(pattern, escape="/")]


def runs_where(
    *,
    key_id: str | None,
    kind: str | None,
    status: str | None,
    search: str | None,
    summary_key: str | None = None,
    summary_holds: bool = True,
) -> list[sa.ColumnElement[bool]]:
    where: list[sa.ColumnElement[bool]] = []
    if key_id is not None:
        where.append(runs.c.key_id == key_id)
    if kind is not None:
        where.append(runs.c.kind == kind)
    if summary_key is not None:
        held = holds_key(summary_key)
        where.append(held if summary_holds else sa.not_(held))
    if status is not None:
        where.append(runs.c.status == status)
    if search:
        where.append(
            sa.or_(
                _contains(runs.c.name, search),
                _contains(runs.c.id, search),
                _contains(dataset_path(), search),
            )
        )
    return where


def runs_order(dialect: str, sort: RunSort, descending: bool) -> list[sa.ColumnElement[Any]]:
    """The order of the runs' list; runs without the value (no cost known, still running)
    come last either way, and the id breaks ties so that pages never overlap."""
    key: sa.ColumnElement[Any] = {
        "started": runs.c.created_at,
        "name": sa.func.coalesce(runs.c.name, runs.c.id),
        "cost": runs.c.summary["cost_usd"].as_float(),
        "duration": run_duration(dialect),
    }[sort]
    direction = key.desc() if descending else key.asc()
    tie = runs.c.id.desc() if descending else runs.c.id.asc()
    return [sa.case((key.is_(None), 1), else_=0), direction, tie]


def status_counts(run_id: str, judge: str | None) -> sa.Select[Any]:
    where = [judgments.c.run_id == run_id, judgments.c.item_id.is_not(None)]
    if judge is not None:
        where.append(judgments.c.judge == judge)
    return sa.select(judgments.c.status, sa.func.count()).where(*where).group_by(judgments.c.status)


def items_statement(
    run_id: str,
    dialect: str,
    *,
    judge: str | None,
    status: str | None,
    search: str | None,
    among: Collection[str] | None,
    sort: ItemSort,
    descending: bool,
) -> tuple[sa.Select[Any], sa.Select[Any]]:
    """(count of the matching items, their ids in order). With a `judge`, an item is the
    row that judge stored for it, and `status` is that judge's; without one (a run whose
    judge is not recorded), an item is each distinct id any judge stored, matching when any
    of its judgments does, in item order only. `search` is sought in the item's id and in any
    judge's reasoning of it; `among` adds the items found by their inputs (which the store
    does not keep)."""
    where: list[sa.ColumnElement[bool]] = [
        judgments.c.run_id == run_id,
        judgments.c.item_id.is_not(None),
    ]
    if judge is not None:
        where.append(judgments.c.judge == judge)
    if status is not None:
        where.append(judgments.c.status == status)
    if search:
        # Any judge's reasoning of the item: a jury's verdict says little, its votes more.
        reasoned = sa.select(judgments.c.item_id).where(
            judgments.c.run_id == run_id,
            *_in_json_text(search, dialect),
            _contains(judgments.c.judgment["reasoning"].as_string(), search),
        )
        found = [_contains(judgments.c.item_id, search), judgments.c.item_id.in_(reasoned)]
        if among:
            # Rendered into the statement: a long list of ids would pass the databases'
            # limits on bound parameters (32766 on SQLite, 32767 on PostgreSQL).
            listed: sa.BindParameter[list[str]] = sa.bindparam(
                "among", list(among), expanding=True, literal_execute=True
            )
            found.append(judgments.c.item_id.in_(listed))
        where.append(sa.or_(*found))
    # Line-number ids sort as numbers (2 before 10) by their length first.
    natural = [sa.func.length(judgments.c.item_id), judgments.c.item_id]
    if judge is None:
        chosen = (
            sa.select(judgments.c.item_id).where(*where).group_by(judgments.c.item_id).subquery()
        )
        total = sa.select(sa.func.count()).select_from(chosen)
        order = [sa.func.length(chosen.c.item_id), chosen.c.item_id]
        if descending:
            order = [column.desc() for column in order]
        return total, sa.select(chosen.c.item_id).order_by(*order)
    total = sa.select(sa.func.count()).select_from(judgments).where(*where)
    if sort == "score":
        unknown_last = sa.case((judgments.c.score.is_(None), 1), else_=0)
        ranked = [judgments.c.score, *natural]
        keys = [unknown_last, *(key.desc() if descending else key for key in ranked)]
    else:
        ranked = natural if sort == "item" else [judgments.c.status, *natural]
        keys = [key.desc() if descending else key for key in ranked]
    return total, sa.select(judgments.c.item_id).where(*where).order_by(*keys)


def _stored_judgment(row: sa.RowMapping) -> StoredJudgment:
    return StoredJudgment(**{**row, "created_at": utc(row["created_at"])})


def _stored_run(row: sa.RowMapping) -> StoredRun:
    values = dict(row)
    for name in ("created_at", "updated_at"):
        values[name] = utc(values[name])
    return StoredRun(**values)


async def paged_runs(
    connection: AsyncConnection,
    *,
    key_id: str | None,
    kind: str | None,
    status: str | None,
    search: str | None,
    summary_key: str | None,
    summary_holds: bool,
    sort: RunSort,
    descending: bool,
    limit: int,
    offset: int,
) -> tuple[int, list[StoredRun]]:
    where = runs_where(
        key_id=key_id,
        kind=kind,
        status=status,
        search=search,
        summary_key=summary_key,
        summary_holds=summary_holds,
    )
    dialect = connection.dialect.name
    total = await connection.scalar(sa.select(sa.func.count()).select_from(runs).where(*where))
    listed = (
        sa.select(runs)
        .where(*where)
        .order_by(*runs_order(dialect, sort, descending))
        .limit(limit)
        .offset(offset)
    )
    rows = (await connection.execute(listed)).mappings().all()
    return int(total or 0), [_stored_run(row) for row in rows]


async def counted_statuses(
    connection: AsyncConnection, run_id: str, judge: str | None
) -> dict[str, int]:
    rows = (await connection.execute(status_counts(run_id, judge))).all()
    return {str(status): int(count) for status, count in rows}


async def paged_items(
    connection: AsyncConnection,
    run_id: str,
    *,
    judge: str | None,
    status: str | None,
    search: str | None,
    among: Collection[str] | None,
    sort: ItemSort,
    descending: bool,
    limit: int,
    offset: int,
) -> tuple[int, list[str]]:
    total, listed = items_statement(
        run_id,
        connection.dialect.name,
        judge=judge,
        status=status,
        search=search,
        among=among,
        sort=sort,
        descending=descending,
    )
    counted = await connection.scalar(total)
    ids = await connection.scalars(listed.limit(limit).offset(offset))
    return int(counted or 0), [str(item) for item in ids]


async def items_judgments(
    connection: AsyncConnection, run_id: str, item_ids: Collection[str]
) -> list[StoredJudgment]:
    if not item_ids:
        return []
    statement = (
        sa.select(judgments)
        .where(judgments.c.run_id == run_id, judgments.c.item_id.in_(list(item_ids)))
        .order_by(judgments.c.created_at, judgments.c.id)
    )
    rows = (await connection.execute(statement)).mappings().all()
    return [_stored_judgment(row) for row in rows]


async def run_judges(connection: AsyncConnection, run_id: str) -> list[str]:
    statement = (
        sa.select(judgments.c.judge)
        .where(judgments.c.run_id == run_id)
        .group_by(judgments.c.judge)
        .order_by(judgments.c.judge)
    )
    return [str(judge) for judge in await connection.scalars(statement)]


async def dataset_runs(
    connection: AsyncConnection, sha256: str, *, key_id: str | None, limit: int
) -> list[StoredRun]:
    where = [dataset_sha256() == sha256]
    if key_id is not None:
        where.append(runs.c.key_id == key_id)
    statement = (
        sa.select(runs)
        .where(*where)
        .order_by(runs.c.created_at.desc(), runs.c.id.desc())
        .limit(limit)
    )
    rows = (await connection.execute(statement)).mappings().all()
    return [_stored_run(row) for row in rows]
