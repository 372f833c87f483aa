"""Chunking: sizes, overlap, breaks at paragraph and sentence ends, and offsets."""

import itertools

import pytest

from jurist.knowledge import chunk_text


def _words(count: int, start: int = 0) -> list[str]:
    return [f"w{i}" for i in range(start, start + count)]


def test_every_chunk_is_the_document_slice_its_offsets_name():
    text = "  Intro line.\n\n" + " ".join(_words(500)) + "\n\nLast paragraph here.  "
    chunks = chunk_text(text, chunk_words=50, overlap_words=10)
    assert len(chunks) > 5
    for ordinal, chunk in enumerate(chunks):
        assert chunk.ordinal == ordinal
        assert text[chunk.start_char : chunk.end_char] == chunk.text
        assert chunk.text == chunk.text.strip()
    assert chunks[0].start_char == text.index("Intro")
    assert chunks[-1].end_char == text.rindex("here.") + len("here.")


def test_consecutive_chunks_share_exactly_the_overlap_and_cover_every_word():
    words = _words(437)
    chunks = chunk_text(" ".join(words), chunk_words=60, overlap_words=15)
    seen: list[str] = []
    for previous, current in itertools.pairwise(chunks):
        assert previous.text.split()[-15:] == current.text.split()[:15]
    for chunk in chunks:
        assert len(chunk.text.split()) <= 60
        seen.extend(w for w in chunk.text.split() if w not in seen)
    assert seen == words


def test_a_short_text_is_one_chunk_and_a_blank_text_none():
    assert [c.text for c in chunk_text("One two three.", chunk_words=10, overlap_words=2)] == [
        "One two three."
    ]
    assert chunk_text(" \n\t ") == []


def test_a_chunk_ends_at_a_nearby_paragraph_end_rather_than_mid_paragraph():
    first = " ".join(_words(45)) + "."
    second = " ".join(_words(40, start=100))
    chunks = chunk_text(f"{first}\n\n{second}", chunk_words=50, overlap_words=5)
    assert chunks[0].text == first


def test_a_chunk_ends_at_a_nearby_sentence_end_when_no_paragraph_is_close():
    sentence = " ".join(_words(46)) + "."
    rest = " ".join(_words(40, start=100))
    chunks = chunk_text(f"{sentence} {rest}", chunk_words=50, overlap_words=5)
    assert chunks[0].text == sentence
    assert chunks[1].text.split()[:5] == sentence.split()[-5:]


def test_a_sentence_end_too_far_back_does_not_shorten_the_chunk():
    # The only sentence end is after word 10 of 50: far more than a fifth of the chunk back.
    text = " ".join(_words(10)) + ". " + " ".join(_words(80, start=100))
    chunks = chunk_text(text, chunk_words=50, overlap_words=5)
    assert len(chunks[0].text.split()) == 50


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, -1), (5, 9)])
def test_impossible_sizes_are_refused(size, overlap):
    with pytest.raises(ValueError, match=r"chunk_words|overlap_words"):
        chunk_text("some words here", chunk_words=size, overlap_words=overlap)


def test_zero_overlap_partitions_the_words():
    words = _words(100)
    chunks = chunk_text(" ".join(words), chunk_words=30, overlap_words=0)
    assert [w for c in chunks for w in c.text.split()] == words
