"""Cutting documents into overlapping chunks of words, at paragraph or sentence ends when
one is near, with each chunk's place in the document."""

import re
from dataclasses import dataclass

DEFAULT_CHUNK_WORDS = 200
DEFAULT_OVERLAP_WORDS = 40

_WORD = re.compile(r"\S+")
_SENTENCE_END = re.compile("[.!?\u2026][\"'\u201d\u2019)\\]]*$")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: `text == document[start_char:end_char]`."""

    ordinal: int
    text: str
    start_char: int
    end_char: int


def check_chunking(chunk_words: int, overlap_words: int) -> None:
    if chunk_words < 1:
        raise ValueError(f"chunk_words must be at least 1, got {chunk_words}")
    if not 0 <= overlap_words < chunk_words:
        raise ValueError(
            f"overlap_words must be at least 0 and less than chunk_words ({chunk_words}), "
            f"got {overlap_words}"
        )


def chunk_text(
    text: str,
    *,
    chunk_words: int = DEFAULT_CHUNK_WORDS,
    overlap_words: int = DEFAULT_OVERLAP_WORDS,
) -> list[Chunk]:
    """Chunks of at most `chunk_words` words, each starting `overlap_words` words before the
    previous one ended. A chunk ends early (by up to a fifth of its length) at a paragraph
    end, else at a sentence end, when there is one in reach. No words, no chunks."""
    check_chunking(chunk_words, overlap_words)
    words = [(match.start(), match.end()) for match in _WORD.finditer(text)]
    chunks: list[Chunk] = []
    start = 0
    while start < len(words):
        end = min(start + chunk_words, len(words))
        if end < len(words):
            # Never so early that the next chunk, starting overlap_words back, would not advance.
            earliest = max(start + overlap_words + 1, end - max(1, chunk_words // 5))
            end = _break_near(text, words, earliest, end)
        first, last = words[start][0], words[end - 1][1]
        chunks.append(Chunk(len(chunks), text[first:last], first, last))
        if end == len(words):
            break
        start = end - overlap_words
    return chunks


def _break_near(text: str, words: list[tuple[int, int]], earliest: int, end: int) -> int:
    """Where to end a chunk meant to end before word `end`: at the nearest paragraph end
    after word `earliest`, else the nearest sentence end there, else at `end`."""
    sentence = None
    for cut in range(end, earliest - 1, -1):
        previous_end, next_start = words[cut - 1][1], words[cut][0]
        if _PARAGRAPH_BREAK.search(text, previous_end, next_start):
            return cut
        if sentence is None and _SENTENCE_END.search(text, words[cut - 1][0], previous_end):
            sentence = cut
    return sentence or end
