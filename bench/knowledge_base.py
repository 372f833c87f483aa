"""How fast the knowledge base ingests, and how often its search finds the right document,
on SQLite and on PostgreSQL.

The 25 source articles of the shipped SummEval calibration set go into one
collection (one document each, id = doc_id, default chunking); printed: seconds to ingest,
seconds to ingest them again unchanged, and the number of chunks.

Then each sentence of 5+ words of the 100 summaries is a query, asked the way FactChecker
asks (3 passages, the whole collection as the source); the right answer is its summary's
article. Printed per backend, for full text alone (BM25 on SQLite, ts_rank_cd on PostgreSQL)
and with MiniLM re-ranking: recall@1 and recall@3 (a passage of the article is among the top
k), MRR over the 3 passages, and milliseconds per query. The embedder is loaded before the
timing; each backend's knowledge base starts with an empty vector cache, so its re-ranked
pass pays for embedding every chunk it meets once.

PostgreSQL is the tests' throwaway server (tests/postgres.py), started and removed here.

Run: uv run python bench/knowledge_base.py [--backends sqlite,postgresql]
"""

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jurist.data import summeval_100_path
from jurist.judges import Passage, split_sentences
from jurist.knowledge import KnowledgeBase
from jurist.llm import get_embedder

DATA = summeval_100_path()  # the calibration set shipped in the package
TESTS = Path(__file__).parents[1] / "tests"
COLLECTION = "summeval"
MIN_QUERY_WORDS = 5
# FactChecker's default number of passages per claim.
PASSAGES = 3
BACKENDS = ("sqlite", "postgresql")


@dataclass(frozen=True)
class Query:
    text: str
    document: str


@dataclass(frozen=True)
class Quality:
    recall_1: float
    recall_3: float
    mrr: float
    ms_per_query: float


def load_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text("utf-8").splitlines() if line.strip()]


def articles(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Each distinct source article by its doc_id."""
    return {row["doc_id"]: row["source"] for row in rows}


def queries(rows: list[dict[str, Any]]) -> list[Query]:
    """Every summary sentence of MIN_QUERY_WORDS words or more, with its article's id."""
    return [
        Query(sentence, row["doc_id"])
        for row in rows
        for sentence in split_sentences(row["output"])
        if len(sentence.split()) >= MIN_QUERY_WORDS
    ]


def write_jsonl(documents: dict[str, str], directory: Path) -> Path:
    path = directory / "articles.jsonl"
    lines = (json.dumps({"id": key, "text": text}) for key, text in documents.items())
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


@contextlib.contextmanager
def postgres() -> Iterator[tuple[str, float]]:
    """The URL of a throwaway PostgreSQL server and its start time in seconds."""
    sys.path.insert(0, str(TESTS))
    from postgres import postgres_server

    # The pytest fixture is a plain generator underneath: run it as a context manager.
    with contextlib.contextmanager(postgres_server.__wrapped__)() as server:
        yield server.url(), server.start_seconds


async def ingest(knowledge: KnowledgeBase, path: Path, count: int) -> tuple[float, float, int]:
    """Seconds to ingest, seconds to ingest again unchanged, chunks written."""
    started = time.perf_counter()
    first = await knowledge.add(path, COLLECTION)
    ingest_s = time.perf_counter() - started
    started = time.perf_counter()
    again = await knowledge.add(path, COLLECTION)
    again_s = time.perf_counter() - started
    if len(first.added) != count or len(again.unchanged) != count or again.chunks:
        raise SystemExit(f"unexpected ingest: {first.summary()}; then {again.summary()}")
    return ingest_s, again_s, first.chunks


def rank_of(passages: list[Passage], document: str) -> int | None:
    """The 1-based rank of the first passage from `document`, if any."""
    for rank, passage in enumerate(passages, start=1):
        if passage.document == document:
            return rank
    return None


async def retrieval(knowledge: KnowledgeBase, asked: list[Query], rerank: bool) -> Quality:
    ranks = []
    started = time.perf_counter()
    for query in asked:
        passages = await knowledge.search(
            query.text, collections=[COLLECTION], limit=PASSAGES, rerank=rerank
        )
        ranks.append(rank_of(passages, query.document))
    seconds = time.perf_counter() - started
    found = [rank for rank in ranks if rank is not None]
    return Quality(
        recall_1=sum(1 for rank in found if rank == 1) / len(asked),
        recall_3=sum(1 for rank in found if rank <= 3) / len(asked),
        mrr=sum(1 / rank for rank in found) / len(asked),
        ms_per_query=seconds * 1000 / len(asked),
    )


async def bench_backend(
    name: str, url: str, path: Path, count: int, asked: list[Query]
) -> list[str]:
    """The table lines of one backend."""
    async with await KnowledgeBase.open(url) as knowledge:
        ingest_s, again_s, chunks = await ingest(knowledge, path, count)
        lines = []
        for rerank in (False, True):
            quality = await retrieval(knowledge, asked, rerank)
            ranking = "bm25+minilm" if rerank else "bm25"
            lines.append(
                f"{name:<11}{ranking:<13}{quality.recall_1:>6.3f}{quality.recall_3:>6.3f}"
                f"{quality.mrr:>7.3f}{quality.ms_per_query:>9.1f}"
                f"{ingest_s:>9.2f}{again_s:>9.2f}{chunks:>7}"
            )
        return lines


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default=",".join(BACKENDS))
    args = parser.parse_args()
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    unknown = sorted(set(backends) - set(BACKENDS))
    if unknown or not backends:
        parser.error(f"--backends: expected some of {','.join(BACKENDS)}, got {args.backends!r}")

    rows = load_rows()
    documents = articles(rows)
    asked = queries(rows)
    started = time.perf_counter()
    await get_embedder().embed(["warm up"])
    print(
        f"{len(documents)} articles, {len(asked)} queries; embedder loaded in "
        f"{time.perf_counter() - started:.2f} s"
    )

    header = (
        f"{'backend':<11}{'ranking':<13}{'R@1':>6}{'R@3':>6}{'MRR@3':>7}{'ms/query':>9}"
        f"{'ingest s':>9}{'again s':>9}{'chunks':>7}"
    )
    lines = []
    with tempfile.TemporaryDirectory(prefix="jurist-kb-bench-") as directory:
        path = write_jsonl(documents, Path(directory))
        for name in backends:
            if name == "sqlite":
                url = f"sqlite:///{directory}/knowledge.db"
                lines += await bench_backend(name, url, path, len(documents), asked)
            else:
                with postgres() as (url, start_s):
                    print(f"PostgreSQL server started in {start_s:.2f} s")
                    lines += await bench_backend(name, url, path, len(documents), asked)
    print(header, *lines, sep="\n")


if __name__ == "__main__":
    asyncio.run(main())
