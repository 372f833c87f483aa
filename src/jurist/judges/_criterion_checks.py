"""Acceptance criteria a program decides exactly: length, wording, lists, numbers, format.

A 1.5B model asked "is the answer at most 50 words?" guesses; counting does not. Each
shape here is recognised only when it is the whole criterion ("The answer is at most 50
words long."), never a part of a longer one, so a criterion that also asks something else
goes to the model. Where the program can only be sure one way (an unquoted "mentions
refunds" is met when the word is there, but a paraphrase may meet it too), it decides that
way and leaves the other to the model.
"""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from jurist.judges._quantities import NUMBER_WORDS

# "one" is left out of what counts as stating a number: "one of the reasons" states none.
_COUNTING_WORDS = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|thousand|million|billion|trillion|dozen"
)
_COUNT = r"(\d+|" + "|".join(NUMBER_WORDS) + r")"
_SUBJECT = r"(?:the\s+)?(?:output|answer|response|reply|summary|text|result|completion|message|it)"
_QUOTED = r"[\"'\u201c\u2018](?P<term>[^\"'\u201c\u201d\u2018\u2019]+)[\"'\u201d\u2019]"

_LIST_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+\S", re.MULTILINE)
_HEADING = re.compile(r"#{1,6}\s+\S")
_DIGITS = re.compile(r"\d")
_NUMBER_WORD = re.compile(rf"\b(?:{_COUNTING_WORDS})\b", re.IGNORECASE)
_PERCENT = re.compile(
    rf"(?:\d|\b(?:{_COUNTING_WORDS}|one)\b)\s*(?:%|percent\b|per\s+cent\b)", re.IGNORECASE
)
_PERCENT_WORD = re.compile(r"%|\bper\s*cent|\bpercentage", re.IGNORECASE)


@dataclass(frozen=True)
class ExactVerdict:
    """A criterion decided by a program: met or not, and what was counted or found."""

    met: bool
    shape: str
    found: str


def _count(token: str) -> int:
    return int(token) if token.isdigit() else NUMBER_WORDS[token.lower()]


def words(text: str) -> int:
    """Words as LengthJudge counts them: runs of non-space characters."""
    return len(text.split())


def list_items(text: str) -> int:
    """Lines that start a bulleted or numbered list item."""
    return len(_LIST_ITEM.findall(text))


def _bound(relation: str, limit: int, value: int) -> bool:
    relation = " ".join(relation.lower().split())
    if relation in ("at most", "no more than", "not more than", "up to", "or fewer", "or less"):
        return value <= limit
    if relation in ("fewer than", "less than", "under", "shorter than", "below"):
        return value < limit
    if relation in ("at least", "no fewer than", "no less than", "or more"):
        return value >= limit
    if relation in ("more than", "over", "longer than", "above"):
        return value > limit
    return value == limit  # exactly


_BEFORE = (
    r"(?P<relation>at most|no more than|not more than|up to|fewer than|less than|under|"
    r"shorter than|below|at least|no fewer than|no less than|more than|over|longer than|"
    r"above|exactly)"
)
_UNIT = r"(?P<unit>words?|characters?|chars?)"
_UNIT_AFTER = r"(?P<unit_after>words?|characters?|chars?)"
_LENGTH = (
    r"(?:is|has|uses|contains|stays|keeps\s+to|runs\s+to)?\s*"
    rf"(?:{_BEFORE}\s+(?P<limit>{_COUNT})\s+{_UNIT}"
    rf"|(?P<limit_after>\d+|{'|'.join(NUMBER_WORDS)})\s+{_UNIT_AFTER}\s+"
    r"(?:long\s+)?(?P<relation_after>or\s+fewer|or\s+less|or\s+shorter|or\s+more))"
    r"(?:\s+(?:long|in\s+length))?"
)


def _length(match: re.Match[str], output: str) -> ExactVerdict:
    if match["limit"] is not None:
        relation, limit, unit = match["relation"], match["limit"], match["unit"]
    else:
        relation, limit, unit = match["relation_after"], match["limit_after"], match["unit_after"]
        relation = "at least" if relation.endswith("more") else "at most"
    value, name = (words(output), "words") if unit.startswith("w") else (len(output), "chars")
    bound = _count(limit)
    met = _bound(relation, bound, value)
    return ExactVerdict(met, f"{name} {relation}", f"{value} {name}; the limit is {bound}")


def _term_found(term: str, output: str) -> bool:
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in term.split()) + r"(?!\w)"
    return re.search(pattern, output, re.IGNORECASE) is not None


def _mentions(match: re.Match[str], output: str) -> ExactVerdict | None:
    term = (match["term"] or match["bare"]).strip()
    negated = match["negation"] is not None
    found = _term_found(term, output)
    if not found and match["quoted"] is None:
        # An unquoted term may be met in other words: only its presence is certain.
        return None
    met = found != negated
    shape = "does not mention" if negated else "mentions"
    return ExactVerdict(met, shape, f"{term!r} {'found' if found else 'not found'}")


def _json(match: re.Match[str], output: str) -> ExactVerdict:
    kind = (match["kind"] or "").lower()
    try:
        value = json.loads(output.strip())
    except ValueError as exc:
        return ExactVerdict(False, "valid JSON", f"not valid JSON: {exc}")
    wanted = {"object": dict, "array": list}.get(kind)
    if wanted is not None and not isinstance(value, wanted):
        return ExactVerdict(False, f"valid JSON {kind}", f"valid JSON, not an {kind}")
    return ExactVerdict(True, f"valid JSON {kind}".strip(), "parses as JSON")


def _heading(match: re.Match[str], output: str) -> ExactVerdict | None:
    first = output.strip().split("\n", 1)[0]
    found = _HEADING.match(first) is not None
    if not found and match["markdown"] is None:
        # A plain title line may be a heading too: only a Markdown one is certain.
        return None
    return ExactVerdict(found, "starts with a heading", f"first line: {first[:60]!r}")


def _list(match: re.Match[str], output: str) -> ExactVerdict:
    needed = _count(match["least"]) if match["least"] else 2
    items = list_items(output)
    return ExactVerdict(
        items >= needed, "list items at least", f"{items} list items; at least {needed} asked"
    )


def _number(match: re.Match[str], output: str) -> ExactVerdict | None:
    if match["digits"]:
        found = _DIGITS.search(output) is not None
        return ExactVerdict(found, "a number in digits", "digits found" if found else "no digit")
    if _DIGITS.search(output) or _NUMBER_WORD.search(output):
        return ExactVerdict(True, "a number", "a number found")
    if re.search(r"\bone\b", output, re.IGNORECASE):
        return None
    return ExactVerdict(False, "a number", "no number in digits or words")


def _percentage(match: re.Match[str], output: str) -> ExactVerdict | None:
    if _PERCENT.search(output):
        return ExactVerdict(True, "a percentage", "a percentage found")
    if _PERCENT_WORD.search(output):
        return None
    return ExactVerdict(False, "a percentage", "no percentage")


_Check = Callable[[re.Match[str], str], ExactVerdict | None]
_SHAPES: tuple[tuple[re.Pattern[str], _Check], ...] = tuple(
    (re.compile(rf"^\s*{_SUBJECT}\s+{body}\s*\.?\s*$", re.IGNORECASE | re.DOTALL), check)
    for body, check in (
        (_LENGTH, _length),
        (r"is\s+(?:a\s+)?valid\s+JSON(?:\s+(?P<kind>object|array))?", _json),
        (
            r"(?:starts|begins|opens)\s+with\s+an?\s+(?P<markdown>markdown\s+)?"
            r"(?:heading|header|title)",
            _heading,
        ),
        (
            r"(?:gives|has|contains|includes|lists|presents|provides)\s+"
            rf"(?:at\s+least\s+(?P<least>{_COUNT})\s+(?:[\w-]+\s+){{0,2}}(?:as|in)\s+)?"
            r"an?\s+(?:bulleted\s+|numbered\s+|bullet(?:ed)?-point\s+)?list",
            _list,
        ),
        (
            r"(?:states|contains|includes|gives|mentions)\s+(?:at\s+least\s+)?an?\s+"
            r"(?:number|figure|numeric\s+value)(?P<digits>\s+(?:written\s+)?in\s+digits)?",
            _number,
        ),
        (r"(?:states|contains|includes|gives|mentions)\s+a\s+percentage", _percentage),
        # Last: "contains a list" and "mentions a percentage" are the shapes above.
        (
            r"(?P<negation>does\s+not\s+|doesn't\s+|never\s+)?"
            r"(?:mentions?|contains?|includes?|uses?|says?)\s+(?:the\s+(?:word|phrase|term)s?\s+)?"
            rf"(?:(?P<quoted>{_QUOTED})|(?P<bare>[\w-]+(?:\s+[\w-]+){{0,2}}))",
            _mentions,
        ),
    )
)


def exact_verdict(criterion: str, output: str) -> ExactVerdict | None:
    """The criterion decided by a program when its whole text is a recognised shape and the
    program is sure of the answer; None leaves it to the model."""
    for pattern, check in _SHAPES:
        match = pattern.match(criterion)
        if match is not None:
            return check(match, output)
    return None
