"""Persistence: SQLAlchemy 2 (asyncio) on SQLite by default or PostgreSQL by URL, one
metadata of tables for every feature and its alembic migrations shipped in the package, and
the service's records, keys, rate counts and audit log on them.

    async with await RecordStore.open() as records:       # SQLite under JURIST_HOME, migrated
        await records.save_validation(validation, [JudgmentRecord.of(j, judge="tone")])

Other packages keep their own data on these tables through `Transactional` (or
`EngineHandle`), `migrated_engine` and `writer`, as the knowledge base does.

Records, judgments and audit entries are written by group commit (`GroupCommit`): the
writes of concurrent callers share one transaction, and each call returns only once its
write is committed.
"""

from jurist.store._engine import create_engine, database_url, writer
from jurist.store._errors import DuplicateRecordError, StoreError
from jurist.store._group_commit import GroupCommit
from jurist.store._handle import EngineHandle, Transactional, migrated_engine
from jurist.store._keys import KeyStore, StoredKey, check_key_id, check_role
from jurist.store._migrate import alembic_config, head_revision, migrate, schema_revision
from jurist.store._rate_counts import Counted, RateCounts, retry_after
from jurist.store._record_store import RecordStore
from jurist.store._records import AuditRecord, JudgmentRecord, ValidationRecord, new_id
from jurist.store._retention import PurgeReport, keep_for, purge_records
from jurist.store._spool import AuditSpool, keep_replaying
from jurist.store._stored import (
    StoredAudit,
    StoredJudgment,
    StoredRun,
    StoredValidation,
    ValidationSummary,
)
from jurist.store._tables import (
    FTS_TABLE,
    SEARCH_VECTOR,
    VERSION_TABLE,
    cycle_events,
    cycles,
    include_name,
    kb_chunks,
    kb_collections,
    kb_documents,
    metadata,
    rate_limit_counts,
    reputation_events,
    reputations,
    runs,
)

__all__ = [
    "FTS_TABLE",
    "SEARCH_VECTOR",
    "VERSION_TABLE",
    "AuditRecord",
    "AuditSpool",
    "Counted",
    "DuplicateRecordError",
    "EngineHandle",
    "GroupCommit",
    "JudgmentRecord",
    "KeyStore",
    "PurgeReport",
    "RateCounts",
    "RecordStore",
    "StoreError",
    "StoredAudit",
    "StoredJudgment",
    "StoredKey",
    "StoredRun",
    "StoredValidation",
    "Transactional",
    "ValidationRecord",
    "ValidationSummary",
    "alembic_config",
    "check_key_id",
    "check_role",
    "create_engine",
    "cycle_events",
    "cycles",
    "database_url",
    "head_revision",
    "include_name",
    "kb_chunks",
    "kb_collections",
    "kb_documents",
    "keep_for",
    "keep_replaying",
    "metadata",
    "migrate",
    "migrated_engine",
    "new_id",
    "purge_records",
    "rate_limit_counts",
    "reputation_events",
    "reputations",
    "retry_after",
    "runs",
    "schema_revision",
    "writer",
]
