"""Two runs of one dataset compared item by item, in SQL: each item's verdict in both runs,
what changed (a status flip, a score moved, an item only one run judged), the count of each
change, and one page of the items, without reading either run whole."""

from dataclasses import dataclass
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.store._tables import judgments

Change = Literal["status", "score", "added", "removed", "same"]
CHANGES: tuple[Change, ...] = ("status", "score", "added", "removed", "same")
# "changed" is every kind but "same"; "all" is every item.
CHANGE_FILTERS = ("all", "changed", *CHANGES)
# Scores are stored as floats: a difference below this is the same score.
SCORE_EPSILON = 1e-9


@dataclass(frozen=True)
class ComparedItem:
    """One item's verdict in run A and in run B (None where that run did not judge it)."""

    item_id: str
    change: Change
    status_a: str | None
    status_b: str | None
    score_a: float | None
    score_b: float | None

    @property
    def delta(self) -> float | None:
        """B's score minus A's, when both have one."""
        if self.score_a is None or self.score_b is None:
            return None
        return self.score_b - self.score_a


@dataclass(frozen=True)
class RunComparison:
    """A page of compared items (status flips first, then the largest score moves, then the
    rest in item order), how many items the filter holds, the count of each change kind,
    and of each status flip ("PASS→FAIL": n)."""

    items: list[ComparedItem]
    total: int
    changes: dict[str, int]
    flips: dict[str, int]


def compare_statement(
    run_a: str, judge_a: str, run_b: str, judge_b: str
) -> tuple[sa.Subquery, sa.ColumnElement[str]]:
    """Every item either run's verdict judge judged, with both verdicts and its change kind."""
    ids = sa.union(
        sa.select(judgments.c.item_id).where(
            judgments.c.run_id == run_a,
            judgments.c.judge == judge_a,
            judgments.c.item_id.is_not(None),
        ),
        sa.select(judgments.c.item_id).where(
            judgments.c.run_id == run_b,
            judgments.c.judge == judge_b,
            judgments.c.item_id.is_not(None),
        ),
    ).subquery("ids")
    a = judgments.alias("a")
    b = judgments.alias("b")
    moved = sa.or_(
        sa.func.abs(a.c.score - b.c.score) > SCORE_EPSILON,
        sa.and_(a.c.score.is_(None), b.c.score.is_not(None)),
        sa.and_(a.c.score.is_not(None), b.c.score.is_(None)),
    )
    change = sa.case(
        (a.c.id.is_(None), "added"),
        (b.c.id.is_(None), "removed"),
        (a.c.status != b.c.status, "status"),
        (moved, "score"),
        else_="same",
    ).label("change")
    joined = (
        sa.select(
            ids.c.item_id,
            change,
            a.c.status.label("status_a"),
            b.c.status.label("status_b"),
            a.c.score.label("score_a"),
            b.c.score.label("score_b"),
        )
        .select_from(ids)
        .outerjoin(
            a,
            sa.and_(a.c.run_id == run_a, a.c.judge == judge_a, a.c.item_id == ids.c.item_id),
        )
        .outerjoin(
            b,
            sa.and_(b.c.run_id == run_b, b.c.judge == judge_b, b.c.item_id == ids.c.item_id),
        )
    ).subquery("compared")
    return joined, joined.c.change


async def compared_runs(
    connection: AsyncConnection,
    run_a: tuple[str, str],
    run_b: tuple[str, str],
    *,
    only: str,
    limit: int,
    offset: int,
) -> RunComparison:
    if only not in CHANGE_FILTERS:
        raise ValueError(f"only must be one of {', '.join(CHANGE_FILTERS)}, not {only!r}")
    compared, change = compare_statement(run_a[0], run_a[1], run_b[0], run_b[1])
    # One pass over both runs counts every change kind and every status flip.
    counted = sa.select(change, compared.c.status_a, compared.c.status_b, sa.func.count()).group_by(
        change, compared.c.status_a, compared.c.status_b
    )
    changes: dict[str, int] = {kind: 0 for kind in CHANGES}
    flips: dict[str, int] = {}
    for kind, was, now, count in (await connection.execute(counted)).all():
        changes[str(kind)] += int(count)
        if kind == "status":
            flips[f"{was}→{now}"] = int(count)
    chosen = sa.select(compared)
    if only == "changed":
        chosen = chosen.where(change != "same")
    elif only != "all":
        chosen = chosen.where(change == only)
    rank = sa.case((change == "status", 0), (change == "score", 1), (change == "same", 3), else_=2)
    moved = sa.func.coalesce(sa.func.abs(compared.c.score_b - compared.c.score_a), 0.0)
    page = chosen.order_by(
        rank,
        moved.desc(),
        # item ids that are numbers come in number order ("2" before "10")
        sa.func.length(compared.c.item_id),
        compared.c.item_id,
    )
    rows = (await connection.execute(page.limit(limit).offset(offset))).mappings().all()
    total = sum(changes.values()) if only == "all" else _total(changes, only)
    return RunComparison(
        [ComparedItem(**{**row, "item_id": str(row["item_id"])}) for row in rows],
        total,
        changes,
        flips,
    )


def _total(changes: dict[str, int], only: str) -> int:
    if only == "changed":
        return sum(count for kind, count in changes.items() if kind != "same")
    return changes.get(only, 0)
