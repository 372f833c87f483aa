"""The autonomous judge system's records: judges' reputations with the history of their
scores, and improvement cycles with every message exchanged in them, in order.

    async with await AutonomyStore.open() as store:      # SQLite under JURIST_HOME
        cycle = await store.create_cycle({"prompt": "...", "max_iterations": 10})
        await store.append_event(cycle, "evaluation", "evaluate", message, usage)
        await store.save_reputation(updated, updated.history[len(loaded.history):])

A stored score is always explained by its history: `save_reputation` refuses to change a
score without the changes that moved it. Writes are all or nothing; bad input is a
ValueError naming the field, a record that does not exist a LookupError, and a database
failure a `StoreError` (a taken cycle name a `DuplicateRecordError`).
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.autonomy._reputation import Reputation, ReputationChange, ReputationMetrics
from jurist.core import Usage, to_json_safe
from jurist.store import Transactional, cycle_events, cycles, new_id, reputation_events

# `reputations` is a method's name too.
from jurist.store import reputations as reputations_table

# Scores match when they differ by float noise only.
_SCORE_TOLERANCE = 1e-9


class CycleStatus(StrEnum):
    """Where an improvement cycle stands. Wire names are stable."""

    RUNNING = "running"
    PAUSED = "paused"  # waiting at a human breakpoint
    HALTED = "halted"  # stopped by a limit or a circuit breaker; halted_reason says which
    ACCEPTED = "accepted"  # its improvement was accepted
    REJECTED = "rejected"  # its improvement was rejected
    FAILED = "failed"  # it broke
    DONE = "done"  # it ended without a decision to take


@dataclass(frozen=True)
class StoredCycle:
    """A stored cycle. `state` is None until the first `update_cycle` that gives one."""

    id: str
    name: str | None
    status: CycleStatus
    spec: dict[str, Any]
    state: dict[str, Any] | None
    halted_reason: str | None
    created_at: datetime
    updated_at: datetime
    key_id: str | None = None  # the API key that started it; None: the operator


@dataclass(frozen=True)
class StoredCycleEvent:
    """One message of a cycle, numbered from 1 by `seq`, with what it cost."""

    cycle_id: str
    seq: int
    stage: str
    kind: str
    message: dict[str, Any]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    at: datetime

    @property
    def usage(self) -> Usage:
        """The stored tokens and cost as a Usage (its model and latency are not stored)."""
        return Usage(
            input_tokens=self.input_tokens, output_tokens=self.output_tokens, cost_usd=self.cost_usd
        )


class AutonomyStore(Transactional):
    """Reputations and cycles. `AutonomyStore(engine)` uses a migrated engine it does not
    own; `await AutonomyStore.open(url)` makes, migrates and owns one."""

    # --- reputations ----------------------------------------------------------------------

    async def get_reputation(
        self, judge_id: str, *, with_history: bool = True
    ) -> Reputation | None:
        """The judge's reputation with its whole history (or none, `with_history=False`),
        or None when the judge has none stored."""
        _text("judge_id", judge_id, reputations_table.c.judge_id)
        statement = sa.select(reputations_table).where(reputations_table.c.judge_id == judge_id)
        async with self._reading(f"read the reputation of {judge_id}") as connection:
            row = (await connection.execute(statement)).mappings().first()
            if row is None:
                return None
            history = await _history(connection, judge_id) if with_history else []
        return _reputation(row, history)

    async def reputations(self, *, with_history: bool = False) -> list[Reputation]:
        """Every stored reputation, best score first (ties by judge id), without their
        histories unless `with_history`."""
        statement = sa.select(reputations_table).order_by(
            reputations_table.c.score.desc(), reputations_table.c.judge_id
        )
        found: list[Reputation] = []
        async with self._reading("read the reputations") as connection:
            rows = (await connection.execute(statement)).mappings().all()
            for row in rows:
                history = await _history(connection, row["judge_id"]) if with_history else []
                found.append(_reputation(row, history))
        return found

    async def reputation_history(
        self, judge_id: str, limit: int | None = None
    ) -> list[ReputationChange]:
        """The judge's score changes, oldest first; only the newest `limit` when given.
        Empty for a judge with no stored reputation."""
        _text("judge_id", judge_id, reputations_table.c.judge_id)
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise ValueError(f"limit must be an int >= 1 or None, got {limit!r}")
        async with self._reading(f"read the reputation history of {judge_id}") as connection:
            return await _history(connection, judge_id, limit)

    async def save_reputation(
        self, reputation: Reputation, new_changes: Sequence[ReputationChange] = ()
    ) -> None:
        """Store the judge's score and metrics and append `new_changes` to its history, in
        one transaction.

        `new_changes` are the changes since the stored reputation, oldest first (a judge
        stored for the first time may start at any score). They must chain, each starting
        where the last ended, from the stored score to `reputation.score`; a score that
        moved with no change to explain it is refused.
        """
        if not isinstance(reputation, Reputation):
            raise ValueError(f"reputation must be a Reputation, got {type(reputation).__name__}")
        changes = list(new_changes)
        for index, change in enumerate(changes):
            if not isinstance(change, ReputationChange):
                raise ValueError(
                    f"new_changes[{index}] must be a ReputationChange, got {type(change).__name__}"
                )
        _check_chain(reputation, changes)
        judge_id = reputation.judge_id
        now = datetime.now(UTC)
        values = {
            "judge_id": judge_id,
            "score": reputation.score,
            "metrics": reputation.metrics.model_dump(mode="json"),
            "updated_at": now,
        }
        rows = [_change_row(judge_id, change) for change in changes]
        async with self._writing(f"save the reputation of {judge_id}") as connection:
            stored = await connection.scalar(
                sa.select(reputations_table.c.score)
                .where(reputations_table.c.judge_id == judge_id)
                .with_for_update()
            )
            if stored is not None:
                start = changes[0].before if changes else reputation.score
                if not _same(stored, start):
                    what = "new_changes[0].before" if changes else "the score, with no new_changes,"
                    raise ValueError(
                        f"{what} ({start}) does not continue the stored score ({stored}) of "
                        f"judge {judge_id!r}: save every change since it was read"
                    )
            await connection.execute(_upsert(connection, values))
            if rows:
                await connection.execute(sa.insert(reputation_events), rows)

    # --- cycles ---------------------------------------------------------------------------

    async def create_cycle(
        self,
        spec: Mapping[str, Any],
        name: str | None = None,
        *,
        id: str | None = None,
        key_id: str | None = None,
    ) -> str:
        """Start a cycle (status `running`); its id. A name names one cycle only; `key_id`
        is the API key that started it (None: the operator)."""
        key = id or new_id()
        _text("id", key, cycles.c.id)
        if name is not None:
            _text("name", name, cycles.c.name)
        if key_id is not None:
            _text("key_id", key_id, cycles.c.key_id)
        now = datetime.now(UTC)
        values = {
            "id": key,
            "name": name,
            "status": CycleStatus.RUNNING.value,
            "spec": _json("spec", spec),
            "state": None,
            "halted_reason": None,
            "created_at": now,
            "updated_at": now,
            "key_id": key_id,
        }
        async with self._writing(f"create cycle {name or key}") as connection:
            await connection.execute(sa.insert(cycles).values(values))
        return key

    async def append_event(
        self,
        cycle_id: str,
        stage: str,
        kind: str,
        message: Mapping[str, Any] | BaseModel,
        usage: Usage | None = None,
    ) -> int:
        """Append a message to the cycle's log; its number in the cycle (1, 2, ...).
        `message` is a mapping or a pydantic model (stored as its JSON form); `usage` gives
        the tokens and cost it took. A cycle that does not exist is a LookupError."""
        _text("cycle_id", cycle_id, cycles.c.id)
        _text("stage", stage, cycle_events.c.stage)
        _text("kind", kind, cycle_events.c.kind)
        if usage is not None and not isinstance(usage, Usage):
            raise ValueError(f"usage must be a Usage or None, got {type(usage).__name__}")
        body = message.model_dump(mode="json") if isinstance(message, BaseModel) else message
        values: dict[str, Any] = {
            "cycle_id": cycle_id,
            "stage": str(stage),
            "kind": str(kind),
            "message": _json("message", body),
            "input_tokens": usage.input_tokens if usage else 0,
            "output_tokens": usage.output_tokens if usage else 0,
            "cost_usd": usage.cost_usd if usage else None,
        }
        async with self._writing(f"append to cycle {cycle_id}") as connection:
            # Locking the cycle's row makes concurrent appends on PostgreSQL take turns, so
            # no two get the same number (SQLite's write lock does that there).
            found = await connection.scalar(
                sa.select(cycles.c.id).where(cycles.c.id == cycle_id).with_for_update()
            )
            if found is None:
                raise LookupError(f"no cycle with id {cycle_id!r}")
            last = await connection.scalar(
                sa.select(sa.func.max(cycle_events.c.seq)).where(
                    cycle_events.c.cycle_id == cycle_id
                )
            )
            seq = int(last or 0) + 1
            now = datetime.now(UTC)
            await connection.execute(
                sa.insert(cycle_events).values({**values, "seq": seq, "at": now})
            )
            await connection.execute(
                sa.update(cycles).where(cycles.c.id == cycle_id).values(updated_at=now)
            )
        return seq

    async def update_cycle(
        self,
        cycle_id: str,
        status: CycleStatus | str,
        state: Mapping[str, Any] | None,
        halted_reason: str | None = None,
        *,
        expected: CycleStatus | None = None,
    ) -> None:
        """Set the cycle's status and halted_reason, and its state unless `state` is None
        (the stored state is kept). A halted cycle needs a reason. A cycle that does not
        exist is a LookupError. With `expected`, the update happens only if the cycle is
        still in that status, in the same statement, so two callers cannot both move it
        on (a human decision taken twice): the second gets a ValueError."""
        _text("cycle_id", cycle_id, cycles.c.id)
        checked = _status(status)
        if halted_reason is not None:
            _text("halted_reason", halted_reason, cycles.c.halted_reason)
        elif checked is CycleStatus.HALTED:
            raise ValueError("halted_reason is required when status is 'halted'")
        values: dict[str, Any] = {
            "status": checked.value,
            "halted_reason": halted_reason,
            "updated_at": datetime.now(UTC),
        }
        if state is not None:
            values["state"] = _json("state", state)
        statement = sa.update(cycles).where(cycles.c.id == cycle_id)
        if expected is not None:
            statement = statement.where(cycles.c.status == _status(expected).value)
        async with self._writing(f"update cycle {cycle_id}") as connection:
            result = await connection.execute(statement.values(values))
            found = result.rowcount
        if found == 0:
            current = await self.get_cycle(cycle_id)
            if current is None or expected is None:
                raise LookupError(f"no cycle with id {cycle_id!r}")
            raise ValueError(
                f"cycle {cycle_id!r} is {current.status.value}, not {_status(expected).value}"
                " any more: another caller moved it on"
            )

    async def get_cycle(self, id_or_name: str) -> StoredCycle | None:
        """The cycle with this id, else the cycle with this name, else None."""
        statement = (
            sa.select(cycles)
            .where(sa.or_(cycles.c.id == id_or_name, cycles.c.name == id_or_name))
            # An id beats a name that happens to equal it.
            .order_by(sa.case((cycles.c.id == id_or_name, 0), else_=1))
            .limit(1)
        )
        async with self._reading(f"read cycle {id_or_name}") as connection:
            row = (await connection.execute(statement)).mappings().first()
        return None if row is None else _stored_cycle(row)

    async def list_cycles(
        self,
        limit: int = 100,
        status: CycleStatus | str | None = None,
        *,
        owner: str | None = None,
        offset: int = 0,
    ) -> list[StoredCycle]:
        """The newest `limit` cycles (with one `status`, when given; only those the key
        `owner` started, when given), newest first, skipping the first `offset`."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, got {limit!r}")
        _offset(offset)
        statement = _cycles_of(
            sa.select(cycles).order_by(cycles.c.created_at.desc(), cycles.c.id.desc()),
            status,
            owner,
        )
        async with self._reading("list cycles") as connection:
            rows = (await connection.execute(statement.limit(limit).offset(offset))).mappings()
            found = rows.all()
        return [_stored_cycle(row) for row in found]

    async def count_cycles(
        self, status: CycleStatus | str | None = None, *, owner: str | None = None
    ) -> int:
        """How many cycles `list_cycles` would list with no limit."""
        statement = _cycles_of(sa.select(sa.func.count()).select_from(cycles), status, owner)
        async with self._reading("count cycles") as connection:
            return int(await connection.scalar(statement) or 0)

    async def count_events(self, cycle_id: str) -> int:
        """How many events the cycle has (0 for a cycle that does not exist)."""
        statement = (
            sa.select(sa.func.count())
            .select_from(cycle_events)
            .where(cycle_events.c.cycle_id == cycle_id)
        )
        async with self._reading(f"count the events of cycle {cycle_id}") as connection:
            return int(await connection.scalar(statement) or 0)

    async def cycle_events(
        self, cycle_id: str, after: int = 0, *, limit: int | None = None
    ) -> list[StoredCycleEvent]:
        """The cycle's events in order; only those numbered above `after` when given (to
        follow a running cycle), and only the first `limit` of those when given (a page).
        Empty for a cycle that does not exist."""
        if isinstance(after, bool) or not isinstance(after, int) or after < 0:
            raise ValueError(f"after must be an int >= 0, got {after!r}")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            raise ValueError(f"limit must be an int >= 1 or None, got {limit!r}")
        statement = (
            sa.select(cycle_events)
            .where(cycle_events.c.cycle_id == cycle_id, cycle_events.c.seq > after)
            .order_by(cycle_events.c.seq)
        )
        if limit is not None:
            statement = statement.limit(limit)
        async with self._reading(f"read the events of cycle {cycle_id}") as connection:
            rows = (await connection.execute(statement)).mappings().all()
        return [
            StoredCycleEvent(
                cycle_id=row["cycle_id"],
                seq=row["seq"],
                stage=row["stage"],
                kind=row["kind"],
                message=row["message"],
                input_tokens=row["input_tokens"],
                output_tokens=row["output_tokens"],
                cost_usd=row["cost_usd"],
                at=_utc(row["at"]),
            )
            for row in rows
        ]


def _cycles_of(
    statement: sa.Select[Any], status: CycleStatus | str | None, owner: str | None
) -> sa.Select[Any]:
    if status is not None:
        statement = statement.where(cycles.c.status == _status(status).value)
    if owner is not None:
        statement = statement.where(cycles.c.key_id == owner)
    return statement


def _offset(offset: object) -> None:
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ValueError(f"offset must be an int >= 0, got {offset!r}")


def _check_chain(reputation: Reputation, changes: Sequence[ReputationChange]) -> None:
    for index in range(1, len(changes)):
        if not _same(changes[index - 1].after, changes[index].before):
            raise ValueError(
                f"new_changes[{index}].before ({changes[index].before}) does not continue "
                f"new_changes[{index - 1}].after ({changes[index - 1].after})"
            )
    if changes and not _same(changes[-1].after, reputation.score):
        raise ValueError(
            f"new_changes[-1].after ({changes[-1].after}) is not the reputation's score "
            f"({reputation.score})"
        )


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0.0, abs_tol=_SCORE_TOLERANCE)


def _upsert(connection: AsyncConnection, values: Mapping[str, Any]) -> sa.Executable:
    # Both databases speak INSERT ... ON CONFLICT, each through its own construct.
    key = [reputations_table.c.judge_id]
    if connection.dialect.name == "postgresql":
        on_postgres = postgresql.insert(reputations_table).values(values)
        return on_postgres.on_conflict_do_update(
            index_elements=key, set_=_replaced(on_postgres.excluded)
        )
    on_sqlite = sqlite.insert(reputations_table).values(values)
    return on_sqlite.on_conflict_do_update(index_elements=key, set_=_replaced(on_sqlite.excluded))


def _replaced(excluded: Any) -> dict[str, Any]:
    # `excluded` is the row that was refused: its values replace the stored ones.
    return {name: excluded[name] for name in ("score", "metrics", "updated_at")}


def _change_row(judge_id: str, change: ReputationChange) -> dict[str, Any]:
    return {
        "judge_id": judge_id,
        "event": change.event.value,
        "delta": change.delta,
        "before": change.before,
        "after": change.after,
        "cycle_id": change.cycle_id,
        "note": change.note,
        "at": _utc(change.at),
    }


async def _history(
    connection: AsyncConnection, judge_id: str, limit: int | None = None
) -> list[ReputationChange]:
    statement = (
        sa.select(reputation_events)
        .where(reputation_events.c.judge_id == judge_id)
        .order_by(reputation_events.c.id.desc())
    )
    if limit is not None:
        statement = statement.limit(limit)
    rows = (await connection.execute(statement)).mappings().all()
    return [
        ReputationChange(
            event=row["event"],
            delta=row["delta"],
            before=row["before"],
            after=row["after"],
            at=_utc(row["at"]),
            cycle_id=row["cycle_id"],
            note=row["note"],
        )
        for row in reversed(rows)
    ]


def _reputation(row: sa.RowMapping, history: list[ReputationChange]) -> Reputation:
    return Reputation(
        judge_id=row["judge_id"],
        score=row["score"],
        metrics=ReputationMetrics.model_validate(row["metrics"]),
        history=tuple(history),
    )


def _stored_cycle(row: sa.RowMapping) -> StoredCycle:
    return StoredCycle(
        id=row["id"],
        name=row["name"],
        status=CycleStatus(row["status"]),
        spec=row["spec"],
        state=row["state"],
        halted_reason=row["halted_reason"],
        created_at=_utc(row["created_at"]),
        updated_at=_utc(row["updated_at"]),
        key_id=row["key_id"],
    )


def _status(value: str) -> CycleStatus:
    try:
        return CycleStatus(value)
    except ValueError:
        known = ", ".join(s.value for s in CycleStatus)
        raise ValueError(f"status {value!r} is not one of: {known}") from None


def _text(name: str, value: object, column: "sa.Column[Any]") -> None:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{name} must not be empty")
    limit = column.type.length if isinstance(column.type, sa.String) else None
    if limit is not None and len(value) > limit:
        raise ValueError(f"{name} has {len(value)} characters; the column holds at most {limit}")


def _json(name: str, value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be a mapping, got {type(value).__name__}")
    # Plain JSON (tuples become lists, ...), so what is read back equals what was given;
    # a value with no JSON form is a ValueError naming where it sits.
    converted: dict[str, Any] = to_json_safe(value, name)
    return converted


def _utc(value: datetime) -> datetime:
    # SQLite keeps no time zone: the store writes UTC there, so a naive value read is UTC.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)
