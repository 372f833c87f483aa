"""Evidence in the source: is a quote really there, and which sentence is nearest a claim.

A model's quote is evidence only if the source holds it; jurist checks that itself instead of
trusting the model. The quote's words must occur in the source in order and whole; case,
spacing, punctuation, quote marks and dashes do not count; an ellipsis may stand for omitted
text, so each piece must occur, in order.

A quote can also be close: a long quote in which a model "corrected" a word of the source
("images shows" -> "images show", "his team" -> "their team") still points at a real
sentence. Close means at least 90% of the quote's words, in order, within one to three
consecutive source sentences, and none of the words that differ holds a digit or is a
capitalised name, since a changed number or name is exactly the hallucination to catch.
"""

import re
from difflib import SequenceMatcher
from enum import StrEnum

from jurist.judges._claims import split_sentences

_TYPOGRAPHY = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_ELLIPSIS = re.compile(r"\.\.\.|\u2026|\[\.\.\.\]")
_WORD = re.compile(r"[a-z0-9]+")
# Letters and digits of any script: the tokens a quote is matched on.
_TOKENS = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "he", "her"}
    | {"his", "i", "in", "is", "it", "its", "of", "on", "or", "she", "that", "the", "their"}
    | {"they", "this", "to", "was", "were", "will", "with"}
)


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
CLOSE_COVERAGE = 0.9
# Under ten words, one changed word is a tenth of the statement: short quotes must be exact.
MIN_CLOSE_WORDS = 10
MAX_WINDOW_SENTENCES = 3


class QuoteMatch(StrEnum):
    EXACT = "exact"
    CLOSE = "close"
    NONE = "none"


def normalise(text: str) -> str:
    return " ".join(text.translate(_TYPOGRAPHY).casefold().split())


def _token_line(text: str) -> str:
    """The text's words and numbers, lower-cased, one space apart and padded by one, so
    that a search for " x " matches whole tokens only."""
    return " " + " ".join(_TOKENS.findall(normalise(text))) + " "


def quote_in_source(quote: str, source: str) -> bool:
    """Whether `quote` occurs in `source`, word for word: case, spacing, punctuation, quote
    marks and hyphens aside (tokenized text writes "qpr 's 3-3 draw" for "QPR's 3-3 draw"),
    on token boundaries ("2000" is not found inside "20000"). An empty quote is not
    evidence."""
    pieces = [_token_line(piece) for piece in _ELLIPSIS.split(quote)]
    pieces = [piece for piece in pieces if piece.strip()]
    if not pieces:
        return False
    haystack = _token_line(source)
    position = 0
    for piece in pieces:
        found = haystack.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece) - 1
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


def _harmless(word: str, first: bool) -> bool:
    """A word a close quote may change: no number, and no name (a capital mid-sentence)."""
    return not any(ch.isdigit() for ch in word) and (first or not word[:1].isupper())


def _close(words: list[str], window: list[str]) -> bool:
    matcher = SequenceMatcher(
        None, [w.casefold() for w in words], [w.casefold() for w in window], autojunk=False
    )
    matched: set[int] = set()
    for block in matcher.get_matching_blocks():
        matched.update(range(block.a, block.a + block.size))
    if len(matched) < CLOSE_COVERAGE * len(words):
        return False
    return all(_harmless(w, i == 0) for i, w in enumerate(words) if i not in matched)


def match_quote(quote: str, source: str) -> QuoteMatch:
    """EXACT when the source holds the quote, CLOSE when it nearly does (see the module's
    note), else NONE."""
    if quote_in_source(quote, source):
        return QuoteMatch.EXACT
    words = _TOKEN.findall(quote.translate(_TYPOGRAPHY))
    if len(words) < MIN_CLOSE_WORDS:
        return QuoteMatch.NONE
    sentences = [_TOKEN.findall(s.translate(_TYPOGRAPHY)) for s in split_sentences(source)]
    for width in range(1, MAX_WINDOW_SENTENCES + 1):
        for start in range(len(sentences) - width + 1):
            window = [w for sentence in sentences[start : start + width] for w in sentence]
            if len(window) >= CLOSE_COVERAGE * len(words) and _close(words, window):
                return QuoteMatch.CLOSE
    return QuoteMatch.NONE
