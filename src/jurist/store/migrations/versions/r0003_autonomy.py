"""The autonomous judge system: reputations and their events, cycles and their events.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22

Plain tables on both databases. Cycle ids are uuid4 hex strings made by the caller; event
ids count up, and a cycle's events are numbered 1, 2, ... by `seq`.
"""

from datetime import datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _now() -> sa.TextClause:
    return sa.text("CURRENT_TIMESTAMP")


def _timestamp(name: str) -> sa.Column[datetime]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=_now())


def upgrade() -> None:
    json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    op.create_table(
        "reputations",
        sa.Column("judge_id", sa.String(200), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("metrics", json, nullable=False),
        _timestamp("updated_at"),
        sa.PrimaryKeyConstraint("judge_id", name="pk_reputations"),
    )
    op.create_table(
        "reputation_events",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("judge_id", sa.String(200), nullable=False),
        sa.Column("event", sa.String(40), nullable=False),
        sa.Column("delta", sa.Float, nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("cycle_id", sa.String(200)),
        sa.Column("note", sa.Text, nullable=False),
        _timestamp("at"),
        sa.PrimaryKeyConstraint("id", name="pk_reputation_events"),
        sa.ForeignKeyConstraint(
            ["judge_id"],
            ["reputations.judge_id"],
            name="fk_reputation_events_judge_id_reputations",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_reputation_events_judge_id", "reputation_events", ["judge_id"])
    op.create_index("ix_reputation_events_cycle_id", "reputation_events", ["cycle_id"])
    op.create_table(
        "cycles",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("spec", json, nullable=False),
        sa.Column("state", json),
        sa.Column("halted_reason", sa.Text),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_cycles"),
        sa.UniqueConstraint("name", name="uq_cycles_name"),
    )
    op.create_index("ix_cycles_created_at", "cycles", ["created_at"])
    op.create_table(
        "cycle_events",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("cycle_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("stage", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("message", json, nullable=False),
        sa.Column("input_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("output_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("cost_usd", sa.Float),
        _timestamp("at"),
        sa.PrimaryKeyConstraint("id", name="pk_cycle_events"),
        sa.ForeignKeyConstraint(
            ["cycle_id"], ["cycles.id"], name="fk_cycle_events_cycle_id_cycles", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("cycle_id", "seq", name="uq_cycle_events_cycle_id_seq"),
    )


def downgrade() -> None:
    op.drop_table("cycle_events")
    op.drop_index("ix_cycles_created_at", table_name="cycles")
    op.drop_table("cycles")
    op.drop_index("ix_reputation_events_cycle_id", table_name="reputation_events")
    op.drop_index("ix_reputation_events_judge_id", table_name="reputation_events")
    op.drop_table("reputation_events")
    op.drop_table("reputations")
