"""`jurist kb`: the knowledge base of trusted sources that `jurist facts` checks against."""

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from jurist.cli._inputs import BadInput, exit_bad_input
from jurist.cli._render import output_console
from jurist.core import run_sync, to_json_text
from jurist.knowledge import IngestError, KnowledgeBase
from jurist.store import StoreError

kb_app = typer.Typer(
    help="The knowledge base: add documents to collections, list them, search them.",
    no_args_is_help=True,
)

DatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database",
        help="Store URL (default: JURIST_DATABASE_URL, else SQLite under JURIST_HOME).",
    ),
]


async def open_knowledge(database: str | None) -> KnowledgeBase:
    try:
        return await KnowledgeBase.open(database)
    except StoreError as exc:
        raise BadInput(f"--database: {exc}") from exc


@kb_app.command("add")
def add(
    path: Annotated[Path, typer.Argument(help="A .txt, .md or .jsonl file, or a directory.")],
    *,
    collection: Annotated[
        str, typer.Option("--collection", "-c", help="The collection to add to.")
    ],
    chunk_words: Annotated[
        int, typer.Option("--chunk-words", help="Words per chunk.", min=20)
    ] = 200,
    overlap_words: Annotated[
        int, typer.Option("--overlap-words", help="Words shared by neighbouring chunks.", min=0)
    ] = 40,
    database: DatabaseOption = None,
) -> None:
    """Ingest documents into a collection, chunked with overlap and indexed for search.

    Re-adding an unchanged document does nothing; a changed one replaces its chunks. A bad
    file or JSONL line stops the whole ingest and writes nothing.
    """

    async def ingest() -> str:
        async with await open_knowledge(database) as knowledge:
            report = await knowledge.add(
                path, collection, chunk_words=chunk_words, overlap_words=overlap_words
            )
        lines = [report.summary()]
        lines += [f"  skipped {s.location}: {s.reason}" for s in report.skipped]
        return "\n".join(lines)

    try:
        typer.echo(run_sync(ingest))
    except (BadInput, IngestError, StoreError, ValueError) as exc:
        exit_bad_input(exc)


@kb_app.command("list")
def list_collections(
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the collections as JSON.")] = False,
) -> None:
    """The collections, with their numbers of documents and chunks."""

    async def collections() -> list[tuple[str, int, int]]:
        async with await open_knowledge(database) as knowledge:
            return [(c.name, c.documents, c.chunks) for c in await knowledge.collections()]

    try:
        found = run_sync(collections)
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    if as_json:
        rows = [{"name": n, "documents": d, "chunks": c} for n, d, c in found]
        typer.echo(to_json_text(rows))
        return
    if not found:
        typer.echo("no collections yet: add one with `jurist kb add PATH --collection NAME`")
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("collection", "documents", "chunks"):
        table.add_column(column)
    for name, documents, chunks in found:
        table.add_row(name, str(documents), str(chunks))
    output_console().print(table)


@kb_app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    *,
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", "-c", help="Search only this collection (repeatable)."),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Passages to show.", min=1)] = 5,
    rerank: Annotated[
        bool | None,
        typer.Option(
            "--rerank/--no-rerank",
            help="Re-rank with MiniLM embeddings (default: when the embeddings extra is there).",
        ),
    ] = None,
    database: DatabaseOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the passages found as JSON.")
    ] = False,
) -> None:
    """Full-text search (BM25), re-ranked with embeddings when they are installed."""
    if not query.strip():
        exit_bad_input(BadInput("QUERY: empty; give words to search for"))

    async def find() -> list[dict[str, object]]:
        async with await open_knowledge(database) as knowledge:
            passages = await knowledge.search(
                query, collections=collection or None, limit=limit, rerank=rerank
            )
        return [
            {
                "collection": p.collection,
                "document": p.document,
                "chunk": p.chunk,
                "score": p.score,
                **{k: v for k, v in p.metadata.items() if k in ("bm25", "cosine")},
                "text": p.text,
            }
            for p in passages
        ]

    try:
        found = run_sync(find)
    except (BadInput, StoreError, ValueError, LookupError) as exc:
        exit_bad_input(exc)
    if as_json:
        typer.echo(to_json_text(found))
        return
    console = output_console()
    if not found:
        console.print("no passage matches")
    for rank, row in enumerate(found, 1):
        console.print(
            Text.assemble(
                (f"{rank}. {row['collection']}/{row['document']}", "bold"),
                (f"  chunk {row['chunk']}  score {float(str(row['score'])):.3g}", "dim"),
            )
        )
        console.print(Text(str(row["text"])), soft_wrap=True)
