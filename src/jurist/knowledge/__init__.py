"""The knowledge base fact-checking searches: named collections of documents, read from
text, Markdown and JSONL files, cut into overlapping chunks, found by the database's own
full-text index and re-ranked by sentence embeddings when they are installed. It keeps its
documents on the store's tables and is the `Retriever` fact-checking judges use.

    knowledge = await KnowledgeBase.open()          # SQLite under JURIST_HOME, migrated
    await knowledge.add("docs/", "handbook")
    passages = await knowledge.search("refund policy", collections=["handbook"])
"""

from jurist.knowledge._base import KnowledgeBase
from jurist.knowledge._chunking import Chunk, chunk_text
from jurist.knowledge._ingest import IngestError, Skipped
from jurist.knowledge._report import CollectionInfo, IngestReport

__all__ = [
    "Chunk",
    "CollectionInfo",
    "IngestError",
    "IngestReport",
    "KnowledgeBase",
    "Skipped",
    "chunk_text",
]
