"""Persistence: SQLAlchemy 2 (asyncio) on SQLite by default or PostgreSQL by URL, with
alembic migrations shipped in the package, and the knowledge base fact-checking searches.

    knowledge = await KnowledgeBase.open()          # SQLite under JURIST_HOME, migrated
    await knowledge.add("docs/", "handbook")
    passages = await knowledge.search("refund policy", collections=["handbook"])
"""

from jurist.store._chunking import Chunk, chunk_text
from jurist.store._engine import create_engine, database_url
from jurist.store._errors import DuplicateRecordError, IngestError, StoreError
from jurist.store._ingest import Skipped
from jurist.store._keys import KeyStore, StoredKey, check_key_id, check_role
from jurist.store._knowledge import KnowledgeBase
from jurist.store._migrate import alembic_config, head_revision, migrate, schema_revision
from jurist.store._rate_counts import Counted, RateCounts
from jurist.store._records import (
    AuditRecord,
    JudgmentRecord,
    RecordStore,
    StoredAudit,
    StoredJudgment,
    StoredRun,
    StoredValidation,
    ValidationRecord,
    new_id,
)
from jurist.store._report import CollectionInfo, IngestReport
from jurist.store._retention import PurgeReport, purge_records

__all__ = [
    "AuditRecord",
    "Chunk",
    "CollectionInfo",
    "Counted",
    "DuplicateRecordError",
    "IngestError",
    "IngestReport",
    "JudgmentRecord",
    "KeyStore",
    "KnowledgeBase",
    "PurgeReport",
    "RateCounts",
    "RecordStore",
    "Skipped",
    "StoreError",
    "StoredAudit",
    "StoredJudgment",
    "StoredKey",
    "StoredRun",
    "StoredValidation",
    "ValidationRecord",
    "alembic_config",
    "check_key_id",
    "check_role",
    "chunk_text",
    "create_engine",
    "database_url",
    "head_revision",
    "migrate",
    "new_id",
    "purge_records",
    "schema_revision",
]
