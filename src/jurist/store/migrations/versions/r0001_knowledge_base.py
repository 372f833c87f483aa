"""The knowledge base: collections, documents, chunks, and a full-text index of the chunks.

Revision ID: 0001
Revises:
Create Date: 2026-05-20

The full-text index is each database's own: on SQLite an FTS5 table over the chunk text
(external content, kept in step by triggers, so a cascaded delete cleans it too); on
PostgreSQL a generated tsvector column with a GIN index. Both stem English words.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_SQLITE_FULLTEXT = (
    """CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(
        text, content='kb_chunks', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER kb_chunks_fts_insert AFTER INSERT ON kb_chunks BEGIN
        INSERT INTO kb_chunks_fts(rowid, text) VALUES (new.id, new.text);
    END""",
    """CREATE TRIGGER kb_chunks_fts_delete AFTER DELETE ON kb_chunks BEGIN
        INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END""",
    """CREATE TRIGGER kb_chunks_fts_update AFTER UPDATE OF text ON kb_chunks BEGIN
        INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO kb_chunks_fts(rowid, text) VALUES (new.id, new.text);
    END""",
)

_POSTGRES_FULLTEXT = (
    """ALTER TABLE kb_chunks ADD COLUMN search_vector tsvector
        GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED""",
    "CREATE INDEX ix_kb_chunks_search_vector ON kb_chunks USING gin (search_vector)",
)


def _now() -> sa.TextClause:
    return sa.text("CURRENT_TIMESTAMP")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect not in {"sqlite", "postgresql"}:
        raise RuntimeError(f"the knowledge base needs SQLite or PostgreSQL, not {dialect}")
    json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    op.create_table(
        "kb_collections",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now()),
        sa.PrimaryKeyConstraint("id", name="pk_kb_collections"),
        sa.UniqueConstraint("name", name="uq_kb_collections_name"),
    )
    op.create_table(
        "kb_documents",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("collection_id", sa.Integer, nullable=False),
        sa.Column("document_id", sa.Text, nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("source", sa.Text),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("metadata", json, nullable=False),
        sa.Column("chunk_words", sa.Integer, nullable=False),
        sa.Column("overlap_words", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now()),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=_now()),
        sa.PrimaryKeyConstraint("id", name="pk_kb_documents"),
        sa.ForeignKeyConstraint(
            ["collection_id"],
            ["kb_collections.id"],
            name="fk_kb_documents_collection_id_kb_collections",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint(
            "collection_id", "document_id", name="uq_kb_documents_collection_id_document_id"
        ),
    )
    op.create_index("ix_kb_documents_document_id", "kb_documents", ["document_id"])
    op.create_table(
        "kb_chunks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kb_document_id", sa.Integer, nullable=False),
        sa.Column("ordinal", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("start_char", sa.Integer, nullable=False),
        sa.Column("end_char", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_kb_chunks"),
        sa.ForeignKeyConstraint(
            ["kb_document_id"],
            ["kb_documents.id"],
            name="fk_kb_chunks_kb_document_id_kb_documents",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint(
            "kb_document_id", "ordinal", name="uq_kb_chunks_kb_document_id_ordinal"
        ),
    )
    for statement in _SQLITE_FULLTEXT if dialect == "sqlite" else _POSTGRES_FULLTEXT:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE kb_chunks_fts")  # its triggers go with kb_chunks
    op.drop_table("kb_chunks")
    op.drop_index("ix_kb_documents_document_id", table_name="kb_documents")
    op.drop_table("kb_documents")
    op.drop_table("kb_collections")
