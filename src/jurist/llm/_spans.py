"""Spans of text to redact: their overlaps resolved, and long texts cut into windows that
Presidio analyses one at a time."""

import bisect
import dataclasses
import re
from collections.abc import Iterable

# Characters analysed at once, and how many consecutive windows share (see `windows`).
_WINDOW = 4000
_OVERLAP = 300
PEM_BLOCK = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.DOTALL
)


@dataclasses.dataclass(frozen=True)
class Span:
    """A stretch of text to replace, and what it is."""

    entity_type: str
    start: int
    end: int
    score: float


def trimmed(text: str, span: Span) -> Span:
    """The span without white space at its ends, which some of Presidio's patterns take in
    ("NINO AB 12 34 56 C" would read "NINO<UK_NINO>")."""
    start, end = span.start, span.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return dataclasses.replace(span, start=start, end=end)


def resolve_overlaps(text: str, findings: Iterable[Span]) -> list[Span]:
    """Non-overlapping spans from findings that may overlap, in text order.

    The surest finding wins (higher score, then longer): Presidio's URL pattern finds
    "john.do" and "example.com" inside "john.doe@example.com", and the e-mail (score 1.0)
    must be what replaces it. The parts of a losing finding outside the winners stay
    redacted when they hold a letter or digit, so nothing of a finding leaks because it
    overlapped another.
    """
    ranked = sorted(findings, key=lambda f: (-f.score, -(f.end - f.start), f.start))
    taken: list[Span] = []  # sorted by start; as they never overlap, by end too
    starts: list[int] = []
    for finding in ranked:
        for start, end in _uncovered(finding, taken, starts):
            if any(char.isalnum() for char in text[start:end]):
                index = bisect.bisect_left(starts, start)
                taken.insert(index, Span(finding.entity_type, start, end, finding.score))
                starts.insert(index, start)
    return taken


def _uncovered(finding: Span, taken: list[Span], starts: list[int]) -> list[tuple[int, int]]:
    """The pieces of the finding that no taken span covers."""
    first = last = bisect.bisect_left(starts, finding.end)
    while first > 0 and taken[first - 1].end > finding.start:
        first -= 1
    pieces = []
    position = finding.start
    for span in taken[first:last]:
        if position < span.start:
            pieces.append((position, span.start))
        position = max(position, span.end)
    if position < finding.end:
        pieces.append((position, finding.end))
    return pieces


def windows(text: str) -> list[tuple[int, int]]:
    """The stretches of text to analyse one at a time, overlapping a little.

    Presidio's context scoring takes time proportional to findings x words, so a long text
    full of findings would take minutes in one piece. Windows end at whitespace (URLs, keys
    and e-mail addresses have none), never inside a private-key block, and overlap by more
    than the longest finding with spaces in it (a card number, an IBAN), which therefore lies
    whole in one of them.
    """
    if len(text) <= _WINDOW:
        return [(0, len(text))]
    blocks = [match.span() for match in PEM_BLOCK.finditer(text)]
    windows = []
    start = 0
    while start + _WINDOW < len(text):
        end = start + _WINDOW
        cut = end
        while cut > start + _WINDOW // 2 and not text[cut - 1].isspace():
            cut -= 1
        end = cut if cut > start + _WINDOW // 2 else end
        end = max(
            [block_end for block_start, block_end in blocks if block_start < end < block_end]
            or [end]
        )
        windows.append((start, end))
        next_start = end - _OVERLAP
        while next_start < end and not text[next_start - 1].isspace():
            next_start += 1
        start = next_start if next_start < end else end - _OVERLAP
    windows.append((start, len(text)))
    return windows
