"""First-stage search: the database's own full-text index, ranked by BM25 on SQLite (FTS5)
and by cover density on PostgreSQL (tsvector), and the scopes a search is limited to.

A query becomes its words, OR-ed, so a passage sharing only some of a claim's words is
still found. Only runs of letters and digits reach the index, each quoted or joined by the
code here, so quotes, operators and column filters in user text can never change the query.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from jurist.judges import UnknownSource
from jurist.store import FTS_TABLE, SEARCH_VECTOR, kb_chunks, kb_collections, kb_documents

_TERM = re.compile(r"[^\W_]+")
# Enough for a long claim; more only slows the index down.
MAX_TERMS = 64


@dataclass(frozen=True)
class Scope:
    """Collections and documents (by row id) a search may return passages from."""

    collections: frozenset[int] = frozenset()
    documents: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    ordinal: int
    text: str
    start_char: int
    end_char: int
    collection: str
    document: str
    title: str | None
    source: str | None
    document_metadata: dict[str, Any]
    score: float


def query_terms(query: str) -> list[str]:
    """The query's distinct words, lower-cased, in order, at most MAX_TERMS."""
    return list(dict.fromkeys(term.lower() for term in _TERM.findall(query)))[:MAX_TERMS]


def fts5_match(terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression for any of `terms` (each one `[^\\W_]+`, so quoting is safe)."""
    return " OR ".join(f'"{term}"' for term in terms)


def tsquery_text(terms: Sequence[str]) -> str:
    """A to_tsquery expression for any of `terms`."""
    return " | ".join(terms)


async def fulltext(
    connection: AsyncConnection, terms: Sequence[str], scope: Scope | None, limit: int
) -> list[Hit]:
    """The `limit` best chunks for `terms` within `scope` (None: everywhere), best first."""
    if not terms:
        return []
    c, d, col = kb_chunks.c, kb_documents.c, kb_collections.c
    joined = kb_chunks.join(kb_documents, d.id == c.kb_document_id).join(
        kb_collections, col.id == d.collection_id
    )
    matches: sa.ColumnElement[bool]
    score: sa.ColumnElement[float]
    if connection.dialect.name == "postgresql":
        query = sa.func.to_tsquery(sa.literal_column("'english'::regconfig"), tsquery_text(terms))
        vector: sa.ColumnElement[Any] = sa.literal_column(f"{kb_chunks.name}.{SEARCH_VECTOR}")
        matches = vector.op("@@")(query)
        # Normalisation 1 divides by 1 + log(length): long chunks do not win on length alone.
        score = sa.func.ts_rank_cd(vector, query, 1)
    else:
        index = sa.table(FTS_TABLE, sa.column("rowid"))
        joined = index.join(joined, c.id == index.c.rowid)
        matches = sa.literal_column(FTS_TABLE).op("MATCH")(fts5_match(terms))
        # bm25() is lower for better matches.
        score = -sa.func.bm25(sa.literal_column(FTS_TABLE))
    statement = (
        sa.select(
            c.id,
            c.ordinal,
            c.text,
            c.start_char,
            c.end_char,
            col.name,
            d.document_id,
            d.title,
            d.source,
            d.metadata,
            score.label("score"),
        )
        .select_from(joined)
        .where(matches)
        .order_by(sa.desc("score"), c.id)
        .limit(limit)
    )
    if scope is not None:
        within = []
        if scope.collections:
            within.append(d.collection_id.in_(sorted(scope.collections)))
        if scope.documents:
            within.append(d.id.in_(sorted(scope.documents)))
        statement = statement.where(sa.or_(*within) if within else sa.false())
    rows = await connection.execute(statement)
    return [
        Hit(
            chunk_id=row.id,
            ordinal=row.ordinal,
            text=row.text,
            start_char=row.start_char,
            end_char=row.end_char,
            collection=row.name,
            document=row.document_id,
            title=row.title,
            source=row.source,
            document_metadata=dict(row.metadata or {}),
            score=float(row.score),
        )
        for row in rows
    ]


async def collection_ids(connection: AsyncConnection) -> dict[str, int]:
    rows = await connection.execute(sa.select(kb_collections.c.name, kb_collections.c.id))
    return {row.name: row.id for row in rows}


async def resolve(
    connection: AsyncConnection,
    *,
    sources: Sequence[str] = (),
    collections: Sequence[str] = (),
    documents: Sequence[str] = (),
) -> Scope:
    """The scope named by `sources` (each a collection name or a document id),
    `collections` (names only) and `documents` (ids only). A document id is
    `collection/id` or a bare id (which may match in several collections). A name the
    knowledge base does not hold raises `UnknownSource`."""
    known = await collection_ids(connection)
    chosen: set[int] = set()
    picked: set[int] = set()
    for name in collections:
        _check_name(name, "collection name")
        if name not in known:
            raise UnknownSource(name, sorted(known))
        chosen.add(known[name])
    for source in sources:
        _check_name(source, "source")
        if source in known:
            chosen.add(known[source])
        else:
            picked.update(await _document_rows(connection, source, known))
    for reference in documents:
        _check_name(reference, "document id")
        picked.update(await _document_rows(connection, reference, known))
    return Scope(frozenset(chosen), frozenset(picked))


async def _document_rows(
    connection: AsyncConnection, reference: str, known: dict[str, int]
) -> list[int]:
    d = kb_documents.c
    prefix, slash, rest = reference.partition("/")
    if slash and prefix in known:
        rows = await connection.scalars(
            sa.select(d.id).where(d.collection_id == known[prefix], d.document_id == rest)
        )
        found = list(rows)
        if found:
            return found
    # Ids made from paths hold slashes themselves, so a bare id is tried whole as well.
    found = list(await connection.scalars(sa.select(d.id).where(d.document_id == reference)))
    if not found:
        raise UnknownSource(reference, sorted(known))
    return found


def _check_name(name: str, what: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a {what} must be a non-empty string, got {name!r}")
