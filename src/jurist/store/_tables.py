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
# For optional JSON: Python None is SQL NULL here, not the JSON value `null`, so that
# `IS NULL` finds what was never given.
_OPTIONAL_JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)


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

# The service's records: runs (a service's lifetime, an evaluation, a calibration), the
# validations it answered, every judgment behind them, and an audit log of its requests.
# Ids are uuid4 hex strings made by the caller, so a record can be named before it is stored.

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(200), unique=True),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("spec", _OPTIONAL_JSON),
    sa.Column("summary", _OPTIONAL_JSON),
    _timestamp("created_at"),
    _timestamp("updated_at"),
    sa.Column("key_id", sa.String(100)),  # the API key that made it; None: the operator
)

validations = sa.Table(
    "validations",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    _timestamp("created_at"),
    sa.Column("key_id", sa.String(100)),  # the API key that asked
    sa.Column("request_sha256", sa.String(64), nullable=False),
    sa.Column("valid", sa.Boolean, nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("quality_score", sa.Float, nullable=False),
    sa.Column("error_count", sa.Integer, nullable=False),
    sa.Column("warning_count", sa.Integer, nullable=False),
    sa.Column("duration_ms", sa.Float, nullable=False),
    sa.Column("request", _JSON, nullable=False),
    sa.Column("result", _JSON, nullable=False),
    sa.Index(None, "created_at"),
    # The raw request and result, encrypted, when the service keeps raw content at all;
    # `request` and `result` then hold the redacted copy.
    sa.Column("sealed", sa.Text),
    sa.Index(None, "key_id"),
)

judgments = sa.Table(
    "judgments",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    _timestamp("created_at"),
    sa.Column(
        "validation_id",
        sa.String(32),
        sa.ForeignKey("validations.id", ondelete="CASCADE"),
        index=True,
    ),
    sa.Column("run_id", sa.String(32), sa.ForeignKey("runs.id", ondelete="CASCADE"), index=True),
    # A dataset item's id in a batch run.
    sa.Column("item_id", sa.String(200)),
    sa.Column("judge", sa.String(200), nullable=False),
    sa.Column("layer", sa.String(40)),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("score", sa.Float),  # normalised to 0..1
    sa.Column("confidence", sa.Float),
    sa.Column("prompt_sha256", sa.String(64)),
    sa.Column("model", sa.String(200)),
    sa.Column("parameters", _OPTIONAL_JSON),
    sa.Column("input_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("output_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("cost_usd", sa.Float),
    sa.Column("latency_ms", sa.Float),
    sa.Column("judgment", _JSON, nullable=False),  # the whole Judgment.to_dict()
    sa.Column("key_id", sa.String(100), index=True),  # the API key that asked; None: operator
    sa.Column("sealed", sa.Text),  # the raw judgment, encrypted, when raw content is kept
    # The prompts sent and the raw answers, in call order, when a run chose to keep them
    # (they hold the item's inputs, which the store keeps no copy of otherwise).
    sa.Column("calls", _OPTIONAL_JSON),
    # A resumed run never stores an item's judgment twice. Rows without a run or an item
    # (NULLs) are never equal, so the service's own judgments are not constrained.
    sa.UniqueConstraint("run_id", "item_id", "judge"),
)

audit_log = sa.Table(
    "audit_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    _timestamp("at"),
    sa.Column("key_id", sa.String(100)),
    sa.Column("client", sa.String(100)),
    sa.Column("method", sa.String(10), nullable=False),
    sa.Column("path", sa.String(500), nullable=False),
    sa.Column("status_code", sa.Integer, nullable=False),
    sa.Column("request_sha256", sa.String(64)),
    sa.Column("verdict", sa.String(40)),  # valid, invalid, pass, fail, error, rejected
    sa.Column("latency_ms", sa.Float, nullable=False),
    sa.Column("detail", _OPTIONAL_JSON),  # redacted by the caller
    sa.Index(None, "at"),
    sa.Index(None, "key_id"),
)

# API keys of the service, made and revoked at run time (`jurist keys`): only the SHA-256 of
# each secret is kept. A rotated key keeps its id (so its records stay its own); the secret
# it replaced stays valid until `previous_expires_at`.
api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False, unique=True),
    sa.Column("previous_sha256", sa.String(64), index=True),
    sa.Column("previous_expires_at", sa.DateTime(timezone=True)),
    sa.Column("rate_limit", sa.String(40)),  # this key's own limit, e.g. "120/minute"
    sa.Column("note", sa.Text),
    _timestamp("created_at"),
    _timestamp("updated_at"),
    sa.Column("revoked_at", sa.DateTime(timezone=True)),
)

# Requests counted per bucket (a key, or a client address) and fixed window, where every
# process of the service sees them; the limiter weighs the previous window in (a sliding
# window estimate).
rate_limit_counts = sa.Table(
    "rate_limit_counts",
    metadata,
    sa.Column("bucket", sa.String(200), primary_key=True),
    sa.Column("window_start", sa.BigInteger, primary_key=True),
    sa.Column("hits", sa.Integer, nullable=False),
)


# The autonomous judge system: judges' reputations with every move of their scores, and
# improvement cycles with the messages exchanged in them, numbered in order. A reputation
# event's cycle_id is not a foreign key: tournaments move scores outside any stored cycle.

reputations = sa.Table(
    "reputations",
    metadata,
    sa.Column("judge_id", sa.String(200), primary_key=True),
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("metrics", _JSON, nullable=False),
    _timestamp("updated_at"),
)

reputation_events = sa.Table(
    "reputation_events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "judge_id",
        sa.String(200),
        sa.ForeignKey("reputations.judge_id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    sa.Column("event", sa.String(40), nullable=False),
    sa.Column("delta", sa.Float, nullable=False),
    sa.Column("before", sa.Float, nullable=False),
    sa.Column("after", sa.Float, nullable=False),
    sa.Column("cycle_id", sa.String(200), index=True),  # a cycle's or a tournament's id
    sa.Column("note", sa.Text, nullable=False),
    _timestamp("at"),
)

cycles = sa.Table(
    "cycles",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(200), unique=True),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("spec", _JSON, nullable=False),
    sa.Column("state", _OPTIONAL_JSON),
    sa.Column("halted_reason", sa.Text),
    _timestamp("created_at"),
    _timestamp("updated_at"),
    sa.Index(None, "created_at"),
    sa.Column("key_id", sa.String(100)),  # None: started by the operator, from the CLI
)

cycle_events = sa.Table(
    "cycle_events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "cycle_id",
        sa.String(32),
        sa.ForeignKey("cycles.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("seq", sa.Integer, nullable=False),  # 1, 2, ... within the cycle
    sa.Column("stage", sa.String(40), nullable=False),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("message", _JSON, nullable=False),
    sa.Column("input_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("output_tokens", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("cost_usd", sa.Float),
    _timestamp("at"),
    # Also the index a cycle's events are read by.
    sa.UniqueConstraint("cycle_id", "seq"),
)


def include_name(name: str | None, type_: str, _parents: object) -> bool:
    """Alembic's filter of reflected names: the full-text index and the version table are
    made outside `metadata`, so schema comparisons leave them out."""
    if name is None:
        return True
    if type_ == "table":
        return name != VERSION_TABLE and not name.startswith(FTS_TABLE)
    return name not in {SEARCH_VECTOR, SEARCH_INDEX}
