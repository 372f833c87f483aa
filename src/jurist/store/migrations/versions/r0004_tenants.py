"""Tenants and data at rest: API keys with roles in a table, shared rate-limit counts, the
owning key on every record, and a sealed (encrypted) copy of raw content where kept.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26

Records made before this revision have no owner (key_id NULL): only an administrator (or a
service running without keys) reads them.
"""

from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _timestamp(name: str) -> sa.Column[datetime]:
    return sa.Column(
        name,
        sa.DateTime(timezone=True),
        nullable=False,
        server_default=sa.text("CURRENT_TIMESTAMP"),
    )


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("previous_sha256", sa.String(64)),
        sa.Column("previous_expires_at", sa.DateTime(timezone=True)),
        sa.Column("rate_limit", sa.String(40)),
        sa.Column("note", sa.Text),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("id", name="pk_api_keys"),
        sa.UniqueConstraint("sha256", name="uq_api_keys_sha256"),
    )
    op.create_index("ix_api_keys_previous_sha256", "api_keys", ["previous_sha256"])
    op.create_table(
        "rate_limit_counts",
        sa.Column("bucket", sa.String(200), nullable=False),
        sa.Column("window_start", sa.BigInteger, nullable=False),
        sa.Column("hits", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("bucket", "window_start", name="pk_rate_limit_counts"),
    )
    with op.batch_alter_table("judgments") as batch:
        batch.add_column(sa.Column("key_id", sa.String(100)))
        batch.add_column(sa.Column("sealed", sa.Text))
        batch.create_index("ix_judgments_key_id", ["key_id"])
    with op.batch_alter_table("validations") as batch:
        batch.add_column(sa.Column("sealed", sa.Text))
        batch.create_index("ix_validations_key_id", ["key_id"])
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("key_id", sa.String(100)))
    with op.batch_alter_table("cycles") as batch:
        batch.add_column(sa.Column("key_id", sa.String(100)))
    op.create_index("ix_audit_log_key_id", "audit_log", ["key_id"])


def downgrade() -> None:
    op.drop_index("ix_audit_log_key_id", table_name="audit_log")
    with op.batch_alter_table("cycles") as batch:
        batch.drop_column("key_id")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("key_id")
    with op.batch_alter_table("validations") as batch:
        batch.drop_index("ix_validations_key_id")
        batch.drop_column("sealed")
    with op.batch_alter_table("judgments") as batch:
        batch.drop_index("ix_judgments_key_id")
        batch.drop_column("sealed")
        batch.drop_column("key_id")
    op.drop_table("rate_limit_counts")
    op.drop_index("ix_api_keys_previous_sha256", table_name="api_keys")
    op.drop_table("api_keys")
