"""Ingesting documents into the knowledge base, on SQLite and PostgreSQL."""

import asyncio
import json

import pytest
import sqlalchemy as sa

from jurist.knowledge import CollectionInfo, IngestError, KnowledgeBase

VOLCANO = "The Krakatoa eruption of 1883 was heard nearly five thousand kilometres away."


def _jsonl(path, *records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


async def _chunks(knowledge: KnowledgeBase) -> list[tuple[str, int, str]]:
    async with knowledge.engine.connect() as connection:
        rows = await connection.execute(
            sa.text(
                "SELECT d.document_id, c.ordinal, c.text FROM kb_chunks c "
                "JOIN kb_documents d ON d.id = c.kb_document_id ORDER BY d.document_id, c.ordinal"
            )
        )
        return [tuple(row) for row in rows]


async def _index_matches_chunks(knowledge: KnowledgeBase, word: str) -> None:
    """On SQLite, the FTS index (external content, kept by triggers) holds exactly the live
    chunks that contain `word`: no entry of a deleted or replaced chunk lingers."""
    if knowledge.engine.dialect.name != "sqlite":
        return  # PostgreSQL's tsvector is a generated column, in step by construction
    async with knowledge.engine.connect() as connection:
        indexed = await connection.scalars(
            sa.text("SELECT rowid FROM kb_chunks_fts WHERE kb_chunks_fts MATCH :word"),
            {"word": f'"{word}"'},
        )
        live = await connection.scalars(
            sa.text("SELECT id FROM kb_chunks WHERE lower(text) LIKE :pattern"),
            {"pattern": f"%{word.lower()}%"},
        )
        assert sorted(indexed) == sorted(live)


async def test_a_text_file_becomes_one_document_named_after_the_file(knowledge, tmp_path):
    (tmp_path / "volcano.txt").write_text(VOLCANO, encoding="utf-8")
    report = await knowledge.add(tmp_path / "volcano.txt", "geology")
    assert report.added == ("volcano.txt",)
    assert report.chunks == 1
    assert await _chunks(knowledge) == [("volcano.txt", 0, VOLCANO)]
    [passage] = await knowledge.search("Krakatoa")
    assert passage.metadata["title"] is None
    assert passage.metadata["source"] == str((tmp_path / "volcano.txt").resolve())


async def test_markdown_keeps_its_text_and_takes_the_first_heading_as_title(knowledge, tmp_path):
    text = "Preamble.\n\n# Krakatoa ##\n\nIt erupted in 1883.\n\n# Later heading\n"
    (tmp_path / "k.md").write_text(text, encoding="utf-8")
    await knowledge.add(tmp_path / "k.md", "geology")
    [passage] = await knowledge.search("erupted")
    assert passage.metadata["title"] == "Krakatoa"
    assert passage.text == text.strip()


async def test_jsonl_records_are_documents_with_their_ids_titles_and_metadata(knowledge, tmp_path):
    path = _jsonl(
        tmp_path / "facts.jsonl",
        {"id": "k1", "title": "Krakatoa", "text": VOLCANO, "url": "https://example.org/k"},
        {"id": 7, "text": "Mount Tambora erupted in 1815."},
        {"text": "Vesuvius buried Pompeii in 79 AD."},
    )
    report = await knowledge.add(path, "geology")
    assert report.added[:2] == ("k1", "7")
    assert len(report.added[2]) == 16  # a content hash
    [krakatoa] = await knowledge.search("Krakatoa")
    assert krakatoa.document == "k1"
    assert krakatoa.metadata["title"] == "Krakatoa"
    assert krakatoa.metadata["document_metadata"] == {"url": "https://example.org/k"}
    assert krakatoa.metadata["source"].endswith("facts.jsonl:1")
    # The id of a record without one is stable: adding the file again changes nothing.
    again = await knowledge.add(path, "geology")
    assert again.unchanged == report.added


async def test_a_directory_is_read_recursively_in_order_without_hidden_or_other_files(
    knowledge, tmp_path
):
    (tmp_path / "b.txt").write_text("Bravo text.", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("# Alpha\nAlpha text.", encoding="utf-8")
    (tmp_path / "sub" / "notes.pdf").write_bytes(b"%PDF-1.4 not text")
    (tmp_path / ".hidden.txt").write_text("Hidden text.", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.txt").write_text("Hidden text.", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("  \n", encoding="utf-8")
    report = await knowledge.add(tmp_path, "docs")
    assert report.added == ("b.txt", "sub/a.md")
    assert [s.location for s in report.skipped] == [str(tmp_path / "empty.txt")]
    assert report.skipped[0].reason == "empty"
    assert await knowledge.search("hidden") == []


async def test_adding_the_same_content_again_is_reported_unchanged(knowledge, tmp_path):
    (tmp_path / "v.txt").write_text(VOLCANO, encoding="utf-8")
    await knowledge.add(tmp_path, "geology")
    before = await _chunks(knowledge)
    report = await knowledge.add(tmp_path, "geology")
    assert report.unchanged == ("v.txt",)
    assert (report.added, report.updated, report.chunks) == ((), (), 0)
    assert await _chunks(knowledge) == before


async def test_changed_content_replaces_the_old_chunks_and_their_index_entries(knowledge, tmp_path):
    (tmp_path / "v.txt").write_text(VOLCANO, encoding="utf-8")
    await knowledge.add(tmp_path, "geology")
    (tmp_path / "v.txt").write_text("Tambora erupted in 1815, the largest in history.")
    report = await knowledge.add(tmp_path, "geology")
    assert report.updated == ("v.txt",)
    assert await knowledge.search("Krakatoa") == []
    assert [p.document for p in await knowledge.search("Tambora")] == ["v.txt"]
    assert await knowledge.collections() == [CollectionInfo("geology", 1, 1)]
    await _index_matches_chunks(knowledge, "Krakatoa")
    await _index_matches_chunks(knowledge, "Tambora")


async def test_other_chunk_sizes_rechunk_an_unchanged_document(knowledge):
    text = " ".join(f"word{i}" for i in range(120))
    await knowledge.add_text(text, "c", "doc", chunk_words=100, overlap_words=10)
    report = await knowledge.add_text(text, "c", "doc", chunk_words=50, overlap_words=10)
    assert report.updated == ("doc",)
    assert len(await _chunks(knowledge)) == 3


async def test_a_new_title_or_metadata_updates_the_document_without_rechunking(knowledge):
    await knowledge.add_text(VOLCANO, "c", "doc", title="Old", metadata={"year": 1883})
    report = await knowledge.add_text(VOLCANO, "c", "doc", title="New", metadata={"year": 1883})
    assert (report.updated, report.chunks) == (("doc",), 0)
    [passage] = await knowledge.search("Krakatoa")
    assert passage.metadata["title"] == "New"


async def test_a_bad_jsonl_line_names_file_and_line_and_nothing_is_written(knowledge, tmp_path):
    (tmp_path / "a_good.txt").write_text(VOLCANO, encoding="utf-8")
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"id": 1, "text": "fine"}\n{"id": 2, "body": "no text"}\n', encoding="utf-8")
    with pytest.raises(IngestError, match=r"b\.jsonl:2: the object has no `text` field"):
        await knowledge.add(tmp_path, "geology")
    assert await knowledge.collections() == []
    assert await _chunks(knowledge) == []


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object, got an array"),
        ('{"text": 5}', "`text` must be a string, got a number"),
        ('{"text": "x", "id": true}', "`id` must be a string or an integer, got a boolean"),
        ('{"text": "x", "title": ["t"]}', "`title` must be a string, got an array"),
    ],
)
async def test_each_kind_of_bad_jsonl_record_is_explained(knowledge, tmp_path, line, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "fine"}\n\n' + line + "\n", encoding="utf-8")
    with pytest.raises(IngestError) as caught:
        await knowledge.add(path, "c")
    assert caught.value.location == f"{path}:3"
    assert problem in caught.value.problem


async def test_one_id_with_two_different_texts_is_refused(knowledge, tmp_path):
    path = _jsonl(tmp_path / "d.jsonl", {"id": "x", "text": "one"}, {"id": "x", "text": "two"})
    with pytest.raises(IngestError, match=r"d\.jsonl:2: document id 'x' is also used by .*:1"):
        await knowledge.add(path, "c")
    assert await knowledge.collections() == []


async def test_paths_that_cannot_be_ingested_are_explained(knowledge, tmp_path):
    (tmp_path / "page.html").write_text("<p>hi</p>", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "nothing").mkdir()
    cases = [
        (tmp_path / "page.html", "unsupported file type '.html'"),
        (tmp_path / "latin1.txt", "not UTF-8 text"),
        (tmp_path / "missing.txt", "no such file or directory"),
        (tmp_path / "nothing", "no .jsonl, .markdown, .md, .txt files"),
    ]
    for path, problem in cases:
        with pytest.raises(IngestError, match=problem):
            await knowledge.add(path, "c")


async def test_collections_list_names_with_their_document_and_chunk_counts(knowledge):
    long_text = " ".join(f"w{i}" for i in range(90))
    await knowledge.add_text(long_text, "zeta", "long", chunk_words=40, overlap_words=5)
    await knowledge.add_text(VOLCANO, "alpha", "one", description="Volcanoes")
    await knowledge.add_text(VOLCANO, "alpha", "two")
    assert await knowledge.collections() == [
        CollectionInfo("alpha", 2, 2, "Volcanoes"),
        CollectionInfo("zeta", 1, 3),
    ]


async def test_add_text_skips_an_empty_text_and_refuses_bad_names(knowledge):
    report = await knowledge.add_text("  ", "c", "doc")
    assert report.added == ()
    assert [s.reason for s in report.skipped] == ["empty"]
    for name in ["", "  ", "a/b", " padded"]:
        with pytest.raises(ValueError, match="collection name"):
            await knowledge.add_text(VOLCANO, name, "doc")
    with pytest.raises(ValueError, match="document_id"):
        await knowledge.add_text(VOLCANO, "c", " ")


async def test_add_text_refuses_metadata_that_is_not_json(knowledge):
    with pytest.raises(ValueError, match="metadata of c/doc is not JSON"):
        await knowledge.add_text(VOLCANO, "c", "doc", metadata={"when": object()})
    assert await knowledge.collections() == []


async def test_writers_on_two_engines_share_one_sqlite_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    async with (
        await KnowledgeBase.open(url, rerank=False) as first,
        await KnowledgeBase.open(url, rerank=False) as second,
    ):
        await asyncio.gather(
            *(
                writer.add_text(f"{VOLCANO} Copy {i}.", "shared", f"{name}-{i}")
                for i in range(10)
                for name, writer in (("first", first), ("second", second))
            )
        )
        assert await first.collections() == [CollectionInfo("shared", 20, 20)]


async def test_deleting_a_collection_removes_its_documents_chunks_and_index_entries(knowledge):
    await knowledge.add_text(VOLCANO, "gone", "k")
    await knowledge.add_text(VOLCANO, "kept", "k")
    async with knowledge.engine.begin() as connection:
        await connection.execute(sa.text("DELETE FROM kb_collections WHERE name = 'gone'"))
    await _index_matches_chunks(knowledge, "Krakatoa")
    assert await knowledge.collections() == [CollectionInfo("kept", 1, 1)]
    assert [p.collection for p in await knowledge.search("Krakatoa")] == ["kept"]
