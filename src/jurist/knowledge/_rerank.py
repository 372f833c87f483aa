"""Second-stage ranking: sentence embeddings of the query and of the full-text candidates,
combined with the candidates' full-text scores."""

from collections import OrderedDict
from collections.abc import Sequence

from jurist.knowledge._search import Hit
from jurist.llm import Embedder, cosine

# Half lexical, half semantic: BM25 alone misses paraphrase, embeddings alone miss the
# rare names and numbers a fact turns on.
FULLTEXT_WEIGHT = 0.5


class VectorCache:
    """The most recently used vectors, by embedder and text: fact-checking sends many
    claims against the same passages."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._vectors: OrderedDict[tuple[str, str], list[float]] = OrderedDict()

    async def embed(self, embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
        # Taken before awaiting: a concurrent search may evict entries meanwhile.
        known = {
            text: self._vectors[(embedder.name, text)]
            for text in texts
            if (embedder.name, text) in self._vectors
        }
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        if missing:
            vectors = await embedder.embed(missing)
            if len(vectors) != len(missing):
                raise ValueError(
                    f"embedder {embedder.name} returned {len(vectors)} vectors "
                    f"for {len(missing)} texts"
                )
            known.update(zip(missing, vectors, strict=True))
        for text, vector in known.items():
            self._vectors[(embedder.name, text)] = vector
            self._vectors.move_to_end((embedder.name, text))
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)
        return [known[text] for text in texts]


async def rerank(
    query: str, hits: Sequence[Hit], embedder: Embedder, cache: VectorCache
) -> list[tuple[Hit, float, float]]:
    """`hits` as (hit, combined score, cosine), best first. The full-text score is divided
    by the best one among the candidates, so both parts lie in about 0..1."""
    if not hits:
        return []
    vectors = await cache.embed(embedder, [query, *(hit.text for hit in hits)])
    best = max(hit.score for hit in hits)
    ranked = []
    for hit, vector in zip(hits, vectors[1:], strict=True):
        similarity = cosine(vectors[0], vector)
        lexical = hit.score / best if best > 0 else 0.0
        combined = FULLTEXT_WEIGHT * lexical + (1 - FULLTEXT_WEIGHT) * similarity
        ranked.append((hit, combined, similarity))
    ranked.sort(key=lambda entry: (-entry[1], entry[0].chunk_id))
    return ranked
