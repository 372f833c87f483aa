"""The service's records: runs, validations, judgments and the audit log.

Revision ID: 0002
Revises: 0001
Create Date: 2026-05-21

Plain tables on both databases; ids are uuid4 hex strings made by the caller, except the
audit log's, which counts up.
"""

from datetime import datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _now() -> sa.TextClause:
    return sa.text("CURRENT_TIMESTAMP")


def _timestamp(name: str) -> sa.Column[datetime]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=_now())


def upgrade() -> None:
    json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    op.create_table(
        "runs",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200)),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("spec", json),
        sa.Column("summary", json),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_runs"),
        sa.UniqueConstraint("name", name="uq_runs_name"),
    )
    op.create_table(
        "validations",
        sa.Column("id", sa.String(32), nullable=False),
        _timestamp("created_at"),
        sa.Column("key_id", sa.String(100)),
        sa.Column("request_sha256", sa.String(64), nullable=False),
        sa.Column("valid", sa.Boolean, nullable=False),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("quality_score", sa.Float, nullable=False),
        sa.Column("error_count", sa.Integer, nullable=False),
        sa.Column("warning_count", sa.Integer, nullable=False),
        sa.Column("duration_ms", sa.Float, nullable=False),
        sa.Column("request", json, nullable=False),
        sa.Column("result", json, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_validations"),
    )
    op.create_index("ix_validations_created_at", "validations", ["created_at"])
    op.create_table(
        "judgments",
        sa.Column("id", sa.String(32), nullable=False),
        _timestamp("created_at"),
        sa.Column("validation_id", sa.String(32)),
        sa.Column("run_id", sa.String(32)),
        sa.Column("item_id", sa.String(200)),
        sa.Column("judge", sa.String(200), nullable=False),
        sa.Column("layer", sa.String(40)),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("confidence", sa.Float),
        sa.Column("prompt_sha256", sa.String(64)),
        sa.Column("model", sa.String(200)),
        sa.Column("parameters", json),
        sa.Column("input_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("output_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("cost_usd", sa.Float),
        sa.Column("latency_ms", sa.Float),
        sa.Column("judgment", json, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_judgments"),
        sa.ForeignKeyConstraint(
            ["validation_id"],
            ["validations.id"],
            name="fk_judgments_validation_id_validations",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name="fk_judgments_run_id_runs", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("run_id", "item_id", "judge", name="uq_judgments_run_id_item_id_judge"),
    )
    op.create_index("ix_judgments_validation_id", "judgments", ["validation_id"])
    op.create_index("ix_judgments_run_id", "judgments", ["run_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        _timestamp("at"),
        sa.Column("key_id", sa.String(100)),
        sa.Column("client", sa.String(100)),
        sa.Column("method", sa.String(10), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("request_sha256", sa.String(64)),
        sa.Column("verdict", sa.String(40)),
        sa.Column("latency_ms", sa.Float, nullable=False),
        sa.Column("detail", json),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])


def downgrade() -> None:
    op.drop_index("ix_audit_log_at", table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_index("ix_judgments_run_id", table_name="judgments")
    op.drop_index("ix_judgments_validation_id", table_name="judgments")
    op.drop_table("judgments")
    op.drop_index("ix_validations_created_at", table_name="validations")
    op.drop_table("validations")
    op.drop_table("runs")
