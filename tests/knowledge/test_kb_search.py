"""Searching the knowledge base: ranking, hostile queries, scopes, sources, re-ranking."""

import math
from collections.abc import Sequence

import pytest

from jurist.judges import Retriever, UnknownSource
from jurist.knowledge import KnowledgeBase
from jurist.knowledge._rerank import VectorCache
from jurist.llm import embedder_available
from jurist.store import StoreError

DOCUMENTS = {
    "krakatoa": "The Krakatoa eruption of 1883 was heard nearly five thousand kilometres away.",
    "cats": "Cats sleep most of the day. The day of a cat is long, and the night is longer.",
    "weather": "The weather today is sunny with a light breeze from the west.",
    "tambora": "Tambora erupted in 1815; the eruption was the largest in recorded history.",
    "bread": "Bread rises because yeast makes gas. The oven is hot and the day is warm.",
}


@pytest.fixture
async def filled(knowledge) -> KnowledgeBase:
    for name, text in DOCUMENTS.items():
        collection = "volcanoes" if name in {"krakatoa", "tambora"} else "everyday"
        await knowledge.add_text(text, collection, name)
    return knowledge


async def test_the_passage_sharing_the_querys_rare_words_ranks_first(filled):
    passages = await filled.search("on which day was the Krakatoa eruption heard", limit=5)
    assert passages[0].document == "krakatoa"
    # OR semantics: passages sharing only a common word ("day") are still found, lower.
    documents = [p.document for p in passages]
    assert "cats" in documents
    assert documents.index("cats") > 0
    scores = [p.score for p in passages]
    assert scores == sorted(scores, reverse=True)
    assert all(p.metadata["bm25"] == p.score for p in passages)


async def test_a_passage_knows_where_it_came_from(filled):
    [passage] = await filled.search("Tambora", limit=1)
    assert (passage.collection, passage.document, passage.chunk) == ("volcanoes", "tambora", 0)
    assert passage.text == DOCUMENTS["tambora"]
    assert (passage.metadata["start_char"], passage.metadata["end_char"]) == (
        0,
        len(DOCUMENTS["tambora"]),
    )


async def test_stemming_matches_other_forms_of_a_word(filled):
    found = {p.document for p in await filled.search("erupting")}
    assert found == {"krakatoa", "tambora"}


@pytest.mark.parametrize(
    "query",
    [
        '"Krakatoa',
        "Krakatoa AND OR NOT",
        "NEAR(Krakatoa eruption, 2)",
        "text:Krakatoa",
        "Krak* Krakatoa",
        "Krakatoa & !zebra | <-> :*",
        "'; DROP TABLE kb_chunks; -- Krakatoa",
        "^Krakatoa + -(zebra) {a b}",
    ],
)
async def test_search_syntax_in_a_query_is_just_text(filled, query):
    passages = await filled.search(query)
    assert passages[0].document == "krakatoa"
    assert len(await filled.collections()) == 2


@pytest.mark.parametrize("query", ["", "   ", '"" * : ( ) -', "___"])
async def test_a_query_without_words_finds_nothing(filled, query):
    assert await filled.search(query) == []


async def test_limit_caps_the_results_and_must_be_positive(filled):
    assert len(await filled.search("the day", limit=2)) == 2
    with pytest.raises(ValueError, match="limit must be at least 1"):
        await filled.search("day", limit=0)


async def test_search_within_collections_and_documents(filled):
    in_everyday = await filled.search("eruption day", collections=["everyday"])
    assert {p.collection for p in in_everyday} == {"everyday"}
    only_tambora = await filled.search("eruption day", documents=["volcanoes/tambora"])
    assert [p.document for p in only_tambora] == ["tambora"]
    both = await filled.search("eruption day", collections=["everyday"], documents=["tambora"])
    assert {p.document for p in both} == {"tambora", "cats", "bread"}


async def test_unknown_or_empty_collections_in_a_search_are_errors(filled):
    with pytest.raises(UnknownSource) as caught:
        await filled.search("day", collections=["everyday", "nope"])
    assert caught.value.source == "nope"
    assert caught.value.known == ("everyday", "volcanoes")
    with pytest.raises(ValueError, match="collection name"):
        await filled.search("day", collections=[""])


async def test_the_knowledge_base_is_a_retriever_over_collections_and_documents(filled):
    assert isinstance(filled, Retriever)
    by_collection = await filled.retrieve("eruption", ["volcanoes"], 5)
    assert {p.document for p in by_collection} == {"krakatoa", "tambora"}
    by_document = await filled.retrieve("eruption", ["volcanoes/krakatoa"], 5)
    assert [p.document for p in by_document] == ["krakatoa"]
    by_bare_id = await filled.retrieve("eruption", ["tambora"], 5)
    assert [p.document for p in by_bare_id] == ["tambora"]
    everywhere = await filled.retrieve("day", [], 10)
    assert {p.document for p in everywhere} == {"cats", "bread"}


async def test_unknown_sources_are_named_with_the_known_collections(filled):
    await filled.check_sources(["volcanoes", "everyday/cats", "cats"])
    for source in ["encyclopedia", "volcanoes/cats", "everyday/"]:
        with pytest.raises(UnknownSource) as caught:
            await filled.check_sources(["volcanoes", source])
        assert caught.value.source == source
        assert "volcanoes" in str(caught.value)
        with pytest.raises(UnknownSource):
            await filled.retrieve("eruption", [source], 3)


async def test_document_ids_made_from_paths_can_be_named_bare_or_with_their_collection(
    knowledge, tmp_path
):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "k.txt").write_text(DOCUMENTS["krakatoa"], encoding="utf-8")
    await knowledge.add(tmp_path, "files")
    for source in ["sub/k.txt", "files/sub/k.txt"]:
        [passage] = await knowledge.retrieve("Krakatoa", [source], 3)
        assert passage.document == "sub/k.txt"


class KeywordEmbedder:
    """A fake embedder: a text's vector says whether it mentions any of `keywords`."""

    name = "keyword-fake"
    dimensions = 2

    def __init__(self, *keywords: str) -> None:
        self.keywords = keywords
        self.calls: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [
            [1.0, 0.0] if any(k in t.lower() for k in self.keywords) else [0.0, 1.0] for t in texts
        ]


async def test_reranking_lets_meaning_overturn_a_pure_word_count(database_url):
    embedder = KeywordEmbedder("fruit", "pear")
    async with await KnowledgeBase.open(database_url, embedder=embedder) as knowledge:
        await knowledge.add_text("Orchard report: orchard orchard orchard rows.", "c", "wordy")
        await knowledge.add_text("The orchard grows pears.", "c", "apt")
        await knowledge.add_text("A city report on traffic.", "c", "filler")
        lexical = await knowledge.search("orchard fruit", rerank=False, limit=2)
        ranked = await knowledge.search("orchard fruit", limit=2)
    assert [p.document for p in lexical] == ["wordy", "apt"]
    assert [p.document for p in ranked] == ["apt", "wordy"]
    assert ranked[0].metadata["cosine"] == pytest.approx(1.0)
    assert ranked[1].metadata["cosine"] == pytest.approx(0.0)
    assert ranked[0].metadata["embedder"] == "keyword-fake"
    assert all(p.metadata["bm25"] > 0 for p in ranked)


async def test_rerank_false_keeps_the_full_text_order_and_embeds_nothing(database_url):
    embedder = KeywordEmbedder("fruit")
    async with await KnowledgeBase.open(database_url, embedder=embedder) as knowledge:
        await knowledge.add_text("Orchard report: orchard orchard orchard rows.", "c", "wordy")
        await knowledge.add_text("The orchard grows fruit.", "c", "apt")
        lexical = await knowledge.search("orchard", rerank=False)
    assert [p.document for p in lexical] == ["wordy", "apt"]
    assert "cosine" not in lexical[0].metadata
    assert embedder.calls == []


async def test_vectors_are_remembered_across_searches(tmp_path):
    embedder = KeywordEmbedder("fruit")
    url = f"sqlite:///{tmp_path / 'kb.sqlite3'}"
    async with await KnowledgeBase.open(url, embedder=embedder) as knowledge:
        await knowledge.add_text("The orchard grows fruit.", "c", "apt")
        await knowledge.add_text("Orchard report: orchard rows.", "c", "wordy")
        first = await knowledge.search("orchard fruit")
        second = await knowledge.search("orchard fruit")
    assert first == second
    assert len(embedder.calls) == 1
    assert sorted(embedder.calls[0]) == sorted(
        ["orchard fruit", "The orchard grows fruit.", "Orchard report: orchard rows."]
    )


async def test_asking_to_rerank_without_an_embedder_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr("jurist.llm.embedder_available", lambda: False)
    url = f"sqlite:///{tmp_path / 'kb.sqlite3'}"
    async with await KnowledgeBase.open(url) as knowledge:
        await knowledge.add_text("The orchard grows fruit.", "c", "apt")
        with pytest.raises(StoreError, match=r"jurist\[embeddings\]"):
            await knowledge.search("orchard", rerank=True)
        [passage] = await knowledge.search("orchard")  # None: re-rank only when available
    assert "cosine" not in passage.metadata


@pytest.mark.skipif(not embedder_available(), reason="needs the embeddings extra")
async def test_the_real_embedder_prefers_the_passage_that_answers(database_url):
    async with await KnowledgeBase.open(database_url, rerank=True) as knowledge:
        await knowledge.add_text("A spider has eight legs and spins silk webs.", "c", "legs")
        await knowledge.add_text(
            "Spider solitaire is a card game played with two decks of spider cards.", "c", "game"
        )
        passages = await knowledge.search("how many legs does a spider have", limit=2)
    cosines = {p.document: p.metadata["cosine"] for p in passages}
    assert passages[0].document == "legs"
    assert cosines["legs"] > cosines["game"]
    assert all(math.isfinite(c) and -1.0 <= c <= 1.0 for c in cosines.values())


async def test_the_vector_cache_stays_within_its_size_and_answers_in_order():
    embedder = KeywordEmbedder("fruit")
    cache = VectorCache(size=2)
    texts = ["fruit one", "plain two", "fruit three"]
    assert await cache.embed(embedder, texts) == [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    assert len(cache._vectors) == 2
    assert await cache.embed(embedder, ["fruit three"]) == [[1.0, 0.0]]
    assert len(embedder.calls) == 1  # the most recent texts were kept
