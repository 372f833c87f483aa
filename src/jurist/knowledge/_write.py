"""Writing read documents into the knowledge base, inside the caller's transaction."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.knowledge._chunking import Chunk
from jurist.knowledge._ingest import SourceDocument
from jurist.store import kb_chunks, kb_collections, kb_documents

_BATCH = 500  # ids per IN (...) lookup, well under every database's parameter limit


@dataclass(frozen=True)
class Prepared:
    document: SourceDocument
    chunks: list[Chunk]
    chunk_words: int
    overlap_words: int


# A stored document's row, as a mapping.
Stored = Mapping[str, Any]


@dataclass(frozen=True)
class Outcome:
    added: tuple[str, ...]
    updated: tuple[str, ...]
    unchanged: tuple[str, ...]
    chunks: int


async def collection_id(connection: AsyncConnection, name: str, description: str | None) -> int:
    """The id of collection `name`, created if new; `description`, when given, replaces its
    description."""
    insert_into = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    await connection.execute(
        insert_into(kb_collections)
        .values(name=name, description=description)
        .on_conflict_do_nothing(index_elements=["name"])
    )
    if description is not None:
        await connection.execute(
            sa.update(kb_collections)
            .where(kb_collections.c.name == name)
            .values(description=description)
        )
    found = await connection.scalar(
        sa.select(kb_collections.c.id).where(kb_collections.c.name == name)
    )
    if found is None:
        raise RuntimeError(f"collection {name!r} vanished while it was being written")
    return int(found)


async def write_documents(
    connection: AsyncConnection, collection: int, prepared: Sequence[Prepared]
) -> Outcome:
    """Insert new documents, replace changed ones (and their chunks), leave the rest."""
    existing = await _existing(connection, collection, [p.document.document_id for p in prepared])
    added: list[str] = []
    updated: list[str] = []
    unchanged: list[str] = []
    written = 0
    for item in prepared:
        document = item.document
        values = _row(collection, item)
        row = existing.get(document.document_id)
        if row is None:
            key = await connection.scalar(
                sa.insert(kb_documents).values(values).returning(kb_documents.c.id)
            )
            added.append(document.document_id)
        elif _same_chunks(row, item):
            if row["source"] != document.source:
                await _update(connection, row["id"], {"source": document.source})
            if row["title"] == document.title and row["metadata"] == document.metadata:
                unchanged.append(document.document_id)
            else:
                await _update(
                    connection,
                    row["id"],
                    {
                        "title": document.title,
                        "metadata": document.metadata,
                        "updated_at": sa.func.current_timestamp(),
                    },
                )
                updated.append(document.document_id)
            continue
        else:
            key = row["id"]
            await _update(connection, key, {**values, "updated_at": sa.func.current_timestamp()})
            await connection.execute(sa.delete(kb_chunks).where(kb_chunks.c.kb_document_id == key))
            updated.append(document.document_id)
        if item.chunks:
            await connection.execute(
                sa.insert(kb_chunks),
                [
                    {
                        "kb_document_id": key,
                        "ordinal": chunk.ordinal,
                        "text": chunk.text,
                        "start_char": chunk.start_char,
                        "end_char": chunk.end_char,
                    }
                    for chunk in item.chunks
                ],
            )
        written += len(item.chunks)
    return Outcome(tuple(added), tuple(updated), tuple(unchanged), written)


def _row(collection: int, item: Prepared) -> dict[str, Any]:
    document = item.document
    return {
        "collection_id": collection,
        "document_id": document.document_id,
        "title": document.title,
        "source": document.source,
        "sha256": document.sha256,
        "metadata": document.metadata,
        "chunk_words": item.chunk_words,
        "overlap_words": item.overlap_words,
    }


def _same_chunks(row: Stored, item: Prepared) -> bool:
    return bool(
        row["sha256"] == item.document.sha256
        and row["chunk_words"] == item.chunk_words
        and row["overlap_words"] == item.overlap_words
    )


async def _update(connection: AsyncConnection, key: int, values: dict[str, Any]) -> None:
    await connection.execute(sa.update(kb_documents).where(kb_documents.c.id == key).values(values))


async def _existing(
    connection: AsyncConnection, collection: int, document_ids: list[str]
) -> dict[str, Stored]:
    d = kb_documents.c
    found: dict[str, Stored] = {}
    for start in range(0, len(document_ids), _BATCH):
        batch = document_ids[start : start + _BATCH]
        result = await connection.execute(
            sa.select(
                d.id,
                d.document_id,
                d.title,
                d.source,
                d.sha256,
                d.metadata,
                d.chunk_words,
                d.overlap_words,
            ).where(d.collection_id == collection, d.document_id.in_(batch))
        )
        for row in result.mappings():
            found[row["document_id"]] = dict(row)
    return found
