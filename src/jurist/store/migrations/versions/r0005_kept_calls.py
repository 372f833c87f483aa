"""The calls behind a judgment: the prompts sent and the raw answers, kept when a run asks.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27

Judgments stored before this revision, and every judgment of a run that did not ask to keep
its calls, have none (NULL).
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_OPTIONAL_JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)


def upgrade() -> None:
    with op.batch_alter_table("judgments") as batch:
        batch.add_column(sa.Column("calls", _OPTIONAL_JSON))


def downgrade() -> None:
    with op.batch_alter_table("judgments") as batch:
        batch.drop_column("calls")
