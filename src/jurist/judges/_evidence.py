"""Evidence in the source: is a quote really there, and which sentence is nearest a claim.

A model's quote is evidence only if the source holds it; jurist checks that itself instead of
trusting the model. Whitespace, typographic quotes and dashes, and case are normalised; an
ellipsis may stand for omitted text, so each piece must occur, in order.
"""

import re

from jurist.judges._claims import split_sentences

_TYPOGRAPHY = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_ELLIPSIS = re.compile(r"\.\.\.|\u2026|\[\.\.\.\]")
_EDGES = " \t\n\"'.,;:"
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "he", "her"}
    | {"his", "i", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their"}
    | {"they", "this", "to", "was", "were", "will", "with"}
)


def normalise(text: str) -> str:
    return " ".join(text.translate(_TYPOGRAPHY).casefold().split())


def quote_in_source(quote: str, source: str) -> bool:
    """Whether `quote` occurs in `source` (normalised). An empty quote is not evidence."""
    pieces = [normalise(piece).strip(_EDGES) for piece in _ELLIPSIS.split(quote)]
    pieces = [piece for piece in pieces if piece]
    if not pieces:
        return False
    haystack = normalise(source)
    position = 0
    for piece in pieces:
        found = haystack.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def _content_words(text: str) -> set[str]:
    return {word for word in _WORD.findall(normalise(text)) if word not in _STOPWORDS}


def nearest_sentence(claim: str, source: str) -> str:
    """The sentence of `source` sharing the most content words with `claim` (by overlap over
    the claim's words), or "" when none shares any."""
    wanted = _content_words(claim)
    if not wanted:
        return ""
    best, best_overlap = "", 0.0
    for sentence in split_sentences(source):
        shared = len(wanted & _content_words(sentence))
        overlap = shared / len(wanted)
        if overlap > best_overlap:
            best, best_overlap = sentence, overlap
    return best
