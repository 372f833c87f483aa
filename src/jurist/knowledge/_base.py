"""The knowledge base: named collections of documents, searched by full text and re-ranked
by sentence embeddings when they are installed. It is the `Retriever` fact-checking
judges use."""

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from jurist import llm
from jurist.judges import Passage
from jurist.knowledge._chunking import (
    DEFAULT_CHUNK_WORDS,
    DEFAULT_OVERLAP_WORDS,
    check_chunking,
    chunk_text,
)
from jurist.knowledge._ingest import DocumentsRead, Skipped, SourceDocument, read_path
from jurist.knowledge._report import CollectionInfo, IngestReport
from jurist.knowledge._rerank import VectorCache, rerank
from jurist.knowledge._search import Hit, Scope, fulltext, query_terms, resolve
from jurist.knowledge._write import Prepared, collection_id, write_documents
from jurist.llm import Embedder
from jurist.settings import Settings
from jurist.store import (
    EngineHandle,
    StoreError,
    kb_chunks,
    kb_collections,
    kb_documents,
    migrated_engine,
    writer,
)

MAX_COLLECTION_NAME = 200
# Candidates the full-text stage hands to re-ranking, per passage asked for.
CANDIDATES_PER_RESULT = 4


class KnowledgeBase(EngineHandle):
    """Collections of documents in the store. `KnowledgeBase(engine)` uses a migrated engine
    it does not own; `await KnowledgeBase.open(url)` makes, migrates and owns one.

    `embedder` re-ranks searches; without one, the MiniLM embedder is used when the
    `embeddings` extra is installed. `rerank` is the default of `search` and the only
    setting of `retrieve`: True always re-ranks, False never, None when an embedder is there.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        embedder: Embedder | None = None,
        rerank: bool | None = None,
    ) -> None:
        super().__init__(engine)
        self._embedder = embedder
        self._rerank = rerank
        self._vectors = VectorCache()

    @classmethod
    async def open(
        cls,
        url: str | None = None,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        rerank: bool | None = None,
    ) -> Self:
        """The knowledge base at `url` (default: the store JURIST_DATABASE_URL names, else
        SQLite under JURIST_HOME), its schema migrated."""
        engine = await migrated_engine(url, settings)
        return cls(engine, embedder=embedder, rerank=rerank).owning()

    async def add(
        self,
        path: str | Path,
        collection: str,
        *,
        chunk_words: int = DEFAULT_CHUNK_WORDS,
        overlap_words: int = DEFAULT_OVERLAP_WORDS,
        description: str | None = None,
    ) -> IngestReport:
        """Ingest a .txt, .md/.markdown or .jsonl file, or a directory of them, into
        `collection` (created if new). All or nothing: a bad file or line raises
        `IngestError` and nothing is written."""
        _check_collection(collection)
        check_chunking(chunk_words, overlap_words)
        found = await asyncio.to_thread(read_path, Path(path))
        return await self._ingest(found, collection, chunk_words, overlap_words, description)

    async def add_text(
        self,
        text: str,
        collection: str,
        document_id: str,
        title: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        *,
        chunk_words: int = DEFAULT_CHUNK_WORDS,
        overlap_words: int = DEFAULT_OVERLAP_WORDS,
        description: str | None = None,
    ) -> IngestReport:
        """Ingest one document given as text; an empty text is skipped."""
        _check_collection(collection)
        check_chunking(chunk_words, overlap_words)
        if not document_id.strip():
            raise ValueError("document_id must be a non-empty string")
        location = f"{collection}/{document_id}"
        if not text.strip():
            found = DocumentsRead((), (Skipped(location, "empty"),))
        else:
            fields = dict(metadata or {})
            try:
                json.dumps(fields, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"metadata of {location} is not JSON: {exc}") from None
            document = SourceDocument(document_id, text, title, None, location, fields)
            found = DocumentsRead((document,), ())
        return await self._ingest(found, collection, chunk_words, overlap_words, description)

    async def collections(self) -> list[CollectionInfo]:
        """Every collection, by name, with its numbers of documents and chunks."""
        col, d, c = kb_collections.c, kb_documents.c, kb_chunks.c
        statement = (
            sa.select(
                col.name,
                col.description,
                sa.func.count(sa.distinct(d.id)),
                sa.func.count(c.id),
            )
            .select_from(
                kb_collections.outerjoin(kb_documents, d.collection_id == col.id).outerjoin(
                    kb_chunks, c.kb_document_id == d.id
                )
            )
            .group_by(col.id, col.name, col.description)
            .order_by(col.name)
        )
        async with self._engine.connect() as connection:
            rows = await connection.execute(statement)
            return [
                CollectionInfo(name, int(documents), int(chunks), description)
                for name, description, documents, chunks in rows
            ]

    async def search(
        self,
        query: str,
        *,
        collections: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        limit: int = 5,
        rerank: bool | None = None,
    ) -> list[Passage]:
        """The `limit` passages that best match `query`, best first, within `collections`
        and `documents` (ids, `collection/id` or bare) if given, else everywhere.
        `rerank`: True re-ranks with embeddings (an error if none is available), False
        never, None as the knowledge base was told. Each passage's metadata holds its
        full-text score as `bm25` (BM25 on SQLite, ts_rank_cd on PostgreSQL), and its
        `cosine` when re-ranked."""
        if collections is None and documents is None:
            scope = None
        else:
            async with self._engine.connect() as connection:
                scope = await resolve(
                    connection, collections=collections or (), documents=documents or ()
                )
        return await self._search(query, scope, limit, self._rerank if rerank is None else rerank)

    async def retrieve(self, query: str, sources: Sequence[str], limit: int) -> list[Passage]:
        """The `Retriever` contract: passages for `query` within `sources` (collection names
        or document ids; none means every collection)."""
        scope = await self._resolve_sources(sources)
        return await self._search(query, scope, limit, self._rerank)

    async def check_sources(self, sources: Sequence[str]) -> None:
        """Raise `UnknownSource` for the first of `sources` the knowledge base lacks."""
        await self._resolve_sources(sources)

    async def _resolve_sources(self, sources: Sequence[str]) -> Scope | None:
        if isinstance(sources, str):
            raise TypeError("sources must be a sequence of names, not one string")
        if not sources:
            return None
        async with self._engine.connect() as connection:
            return await resolve(connection, sources=sources)

    async def _search(
        self, query: str, scope: Scope | None, limit: int, rerank_: bool | None
    ) -> list[Passage]:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        embedder = self._embedder_for(rerank_)
        wanted = limit * CANDIDATES_PER_RESULT if embedder is not None else limit
        async with self._engine.connect() as connection:
            hits = await fulltext(connection, query_terms(query), scope, wanted)
        if embedder is None:
            return [_passage(hit, hit.score, {}) for hit in hits]
        ranked = await rerank(query, hits, embedder, self._vectors)
        return [
            _passage(hit, combined, {"cosine": similarity, "embedder": embedder.name})
            for hit, combined, similarity in ranked[:limit]
        ]

    def _embedder_for(self, wanted: bool | None) -> Embedder | None:
        if wanted is False:
            return None
        if self._embedder is not None:
            return self._embedder
        # Looked up on the module when needed, so a test can make the embeddings absent.
        if llm.embedder_available():
            return llm.get_embedder()
        if wanted:
            raise StoreError(
                "re-ranking needs sentence embeddings: install them with "
                "`pip install 'jurist[embeddings]'` (from a clone: `uv sync --extra embeddings`)"
            )
        return None

    async def _ingest(
        self,
        found: DocumentsRead,
        collection: str,
        chunk_words: int,
        overlap_words: int,
        description: str | None,
    ) -> IngestReport:
        prepared = await asyncio.to_thread(_prepare, found, chunk_words, overlap_words)
        async with writer(self._engine).begin() as connection:
            key = await collection_id(connection, collection, description)
            outcome = await write_documents(connection, key, prepared)
        return IngestReport(
            collection=collection,
            added=outcome.added,
            updated=outcome.updated,
            unchanged=outcome.unchanged,
            skipped=found.skipped,
            chunks=outcome.chunks,
        )


def _prepare(found: DocumentsRead, chunk_words: int, overlap_words: int) -> list[Prepared]:
    return [
        Prepared(
            document,
            chunk_text(document.text, chunk_words=chunk_words, overlap_words=overlap_words),
            chunk_words,
            overlap_words,
        )
        for document in found.documents
    ]


def _passage(hit: Hit, score: float, extra: dict[str, Any]) -> Passage:
    metadata: dict[str, Any] = {
        "bm25": hit.score,
        "title": hit.title,
        "source": hit.source,
        "start_char": hit.start_char,
        "end_char": hit.end_char,
        **extra,
    }
    if hit.document_metadata:
        metadata["document_metadata"] = hit.document_metadata
    return Passage(
        text=hit.text,
        collection=hit.collection,
        document=hit.document,
        score=score,
        chunk=hit.ordinal,
        metadata=metadata,
    )


def _check_collection(name: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a collection name must be a non-empty string, got {name!r}")
    if name != name.strip() or "/" in name or len(name) > MAX_COLLECTION_NAME:
        raise ValueError(
            f"collection name {name!r} must have no surrounding spaces, no '/' (it separates "
            f"a collection from a document id) and at most {MAX_COLLECTION_NAME} characters"
        )
