"""Quotes found in the source they quote: each claim's quote located in the item's passages,
and the passages cut into segments, each marked with the claims whose quotes cover it.

A judge's quote is evidence only where the source holds it, and the source is what the user
reads: the quote is looked up in it first character for character, then word for word the
way the judges check a quote (case, spacing, punctuation, quote marks and dashes aside; an
ellipsis stands for omitted text), so what is marked is the source's own text."""

import itertools
import re
from collections.abc import Sequence

from pydantic import BaseModel

_TYPOGRAPHY = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_ELLIPSIS = re.compile(r"\.\.\.|\u2026|\[\.\.\.\]")
_TOKENS = re.compile(r"[^\W_]+")

Span = tuple[int, int]


class Segment(BaseModel):
    """A run of a passage's text; `claims` the numbers (from 1) of the claims whose quotes
    cover it (none: unmarked), `supported` False when any of them is unsupported."""

    text: str
    claims: list[int] = []
    supported: bool = True


class Passage(BaseModel):
    """One passage of the item's source, cut into segments."""

    index: int
    segments: list[Segment]


class Located(BaseModel):
    """Where one claim's quote is: the passage (from 0) and the character spans in it."""

    passage: int
    spans: list[Span]


def locate(quote: str, passages: Sequence[str]) -> Located | None:
    """The first passage holding `quote` and where; None when none does (or no quote)."""
    if not quote.strip():
        return None
    for index, text in enumerate(passages):
        at = _whole(quote, text)
        if at is not None:
            return Located(passage=index, spans=[(at, at + len(quote))])
    for index, text in enumerate(passages):
        spans = _word_for_word(quote, text)
        if spans:
            return Located(passage=index, spans=spans)
    return None


def _whole(quote: str, text: str) -> int | None:
    """Where `text` holds `quote` as it is, on word boundaries ("lane" is not in "lanes")."""
    at = text.find(quote)
    while at >= 0:
        end = at + len(quote)
        cuts_before = at > 0 and text[at - 1].isalnum() and quote[0].isalnum()
        cuts_after = end < len(text) and text[end].isalnum() and quote[-1].isalnum()
        if not cuts_before and not cuts_after:
            return at
        at = text.find(quote, at + 1)
    return None


def _word_for_word(quote: str, text: str) -> list[Span] | None:
    # The typography map changes no length, so positions in it are positions in `text`.
    found = [
        (m.start(), m.end(), m.group().casefold())
        for m in _TOKENS.finditer(text.translate(_TYPOGRAPHY))
    ]
    words = [token for _, _, token in found]
    spans: list[Span] = []
    position = 0
    for piece in _ELLIPSIS.split(quote.translate(_TYPOGRAPHY)):
        wanted = [token.casefold() for token in _TOKENS.findall(piece)]
        if not wanted:
            continue
        start = _find(words, wanted, position)
        if start is None:
            return None
        end = start + len(wanted) - 1
        spans.append((found[start][0], found[end][1]))
        position = end + 1
    return spans or None


def _find(words: list[str], wanted: list[str], position: int) -> int | None:
    last = len(words) - len(wanted)
    for start in range(position, last + 1):
        if words[start : start + len(wanted)] == wanted:
            return start
    return None


def marked(passages: Sequence[str], quotes: Sequence[tuple[Located | None, bool]]) -> list[Passage]:
    """The passages cut where the located quotes begin and end; `quotes` holds each
    claim's location (claim k+1 is quotes[k]) and whether the claim is supported."""
    result: list[Passage] = []
    for index, text in enumerate(passages):
        covering: list[tuple[int, int, int, bool]] = [
            (start, end, number, supported)
            for number, (where, supported) in enumerate(quotes, 1)
            if where is not None and where.passage == index
            for start, end in where.spans
        ]
        cuts = sorted(
            {0, len(text), *(s for s, _, _, _ in covering), *(e for _, e, _, _ in covering)}
        )
        segments: list[Segment] = []
        for start, end in itertools.pairwise(cuts):
            over = [(n, ok) for s, e, n, ok in covering if s <= start and end <= e]
            segments.append(
                Segment(
                    text=text[start:end],
                    claims=sorted({n for n, _ in over}),
                    supported=all(ok for _, ok in over),
                )
            )
        result.append(Passage(index=index, segments=segments))
    return result
