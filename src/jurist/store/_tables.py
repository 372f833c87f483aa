"""The store's tables, one metadata for every feature. Migrations are written by hand to
match it, and a test checks that the migrated schema and this metadata agree.

The full-text index is each database's own (an FTS5 table on SQLite, a tsvector column on
PostgreSQL), made by the migrations in that database's SQL, so it is not in `metadata`.
"""

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# Not alembic's default name, so the store can share a database with an application that
# runs its own migrations.
VERSION_TABLE = "jurist_schema_version"

FTS_TABLE = "kb_chunks_fts"
SEARCH_VECTOR = "search_vector"
SEARCH_INDEX = "ix_kb_chunks_search_vector"

_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _timestamp(name: str) -> "sa.Column[datetime]":
    return sa.Column(
        name,
        sa.DateTime(timezone=True),
        nullable=False,
        server_default=sa.func.current_timestamp(),
    )


kb_collections = sa.Table(
    "kb_collections",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("description", sa.Text),
    _timestamp("created_at"),
)

kb_documents = sa.Table(
    "kb_documents",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "collection_id",
        sa.Integer,
        sa.ForeignKey("kb_collections.id", ondelete="CASCADE"),
        nullable=False,
    ),
    # The caller's id: a path relative to the ingested root, a JSONL `id`, or a content hash.
    sa.Column("document_id", sa.Text, nullable=False, index=True),
    sa.Column("title", sa.Text),
    sa.Column("source", sa.Text),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("metadata", _JSON, nullable=False),
    # How the chunks were cut, so that re-ingesting with other sizes is not "unchanged".
    sa.Column("chunk_words", sa.Integer, nullable=False),
    sa.Column("overlap_words", sa.Integer, nullable=False),
    _timestamp("created_at"),
    _timestamp("updated_at"),
    sa.UniqueConstraint("collection_id", "document_id"),
)

kb_chunks = sa.Table(
    "kb_chunks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column(
        "kb_document_id",
        sa.Integer,
        sa.ForeignKey("kb_documents.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("ordinal", sa.Integer, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    # text == document text[start_char:end_char]
    sa.Column("start_char", sa.Integer, nullable=False),
    sa.Column("end_char", sa.Integer, nullable=False),
    sa.UniqueConstraint("kb_document_id", "ordinal"),
)


def include_name(name: str | None, type_: str, _parents: object) -> bool:
    """Alembic's filter of reflected names: the full-text index and the version table are
    made outside `metadata`, so schema comparisons leave them out."""
    if name is None:
        return True
    if type_ == "table":
        return name != VERSION_TABLE and not name.startswith(FTS_TABLE)
    return name not in {SEARCH_VECTOR, SEARCH_INDEX}
