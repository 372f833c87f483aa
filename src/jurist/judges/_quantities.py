"""Quantities in text: numbers with their scale and unit, years, ordinals and months.

A small model reads "40 million" and "4 million" as the same fact; a program does not. Each
quantity keeps the value it stands for (scale applied), what kind of number it is (money,
percent, year, ordinal, plain) and its precision, so a rounded restatement ("about 4 million"
for 4.2 million) is told apart from a different number (40 million).
"""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum


class Kind(StrEnum):
    MONEY = "money"
    PERCENT = "percent"
    YEAR = "year"
    ORDINAL = "ordinal"
    PLAIN = "plain"


_SCALES = {
    "thousand": 3,
    "k": 3,
    "million": 6,
    "millions": 6,
    "m": 6,
    "mn": 6,
    "mln": 6,
    "billion": 9,
    "billions": 9,
    "bn": 9,
    "b": 9,
    "trillion": 12,
    "tn": 12,
}
# English number words and their values: the one table the exact checks read numbers by.
NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
}
_ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_CURRENCY = r"(?P<currency>[$\u00a3\u20ac\u00a5]|us\$|usd|eur|gbp)?"
_NUMBER = r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_SCALE = r"(?:\s?(?P<scale>" + "|".join(sorted(_SCALES, key=len, reverse=True)) + r")\b)?"
_UNIT = (
    r"(?:\s?(?P<unit>%|per\s?cent\b|percent\b|dollars?\b|pounds?\b|euros?\b|"
    r"st\b|nd\b|rd\b|th\b))?"
)
# A number is not part of a longer one: "2000" is not inside "20000" or "2000.5".
_DIGITS = re.compile(
    r"(?<![\w.,])" + _CURRENCY + r"\s?" + _NUMBER + r"(?![\d]|\.\d|,\d)" + _SCALE + _UNIT,
    re.IGNORECASE,
)
_SPELLED = "|".join(NUMBER_WORDS)
_WRITTEN = re.compile(
    r"\b(?P<word>" + _SPELLED + r")(?:[\s-](?P<word2>" + _SPELLED + r"))?"
    r"\s(?P<scale>thousand|million|billion|trillion)\b",
    re.IGNORECASE,
)
_ORDINAL = re.compile(r"\b(?P<word>" + "|".join(_ORDINAL_WORDS) + r")\b", re.IGNORECASE)
_MONTH = re.compile(r"\b(?P<month>" + "|".join(MONTHS) + r")\b", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """One number as the text states it. `step` is the size of its last stated digit
    (4.5 million: 100,000), what a rounded restatement may differ by."""

    text: str
    value: Decimal
    kind: Kind
    step: Decimal

    def restates(self, other: "Quantity") -> bool:
        """Whether this quantity states `other`, exactly or rounded to this one's precision,
        and of a compatible kind (a year is never a sum of money)."""
        if not _compatible(self.kind, other.kind):
            return False
        if self.value == other.value:
            return True
        return abs(self.value - other.value) <= self.step / 2


def _compatible(a: Kind, b: Kind) -> bool:
    # A plain number may be any kind left unsaid ("4 million" for "$4 million", "2,000" for
    # a year-like 2000); two stated kinds must agree (a year is never a sum of money).
    return a is b or Kind.PLAIN in (a, b)


def _step(number: str, exponent: int) -> Decimal:
    digits = number.replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    if decimals == 0 and exponent == 0:
        # "4,000" says thousands exactly, "4000" likely too: trailing zeros are digits here.
        return Decimal(1)
    return Decimal(10) ** (exponent - decimals)


def _kind(
    number: str, currency: str | None, unit: str | None, value: Decimal, scaled: bool
) -> Kind:
    unit = (unit or "").casefold().replace(" ", "")
    if currency or unit.startswith(("dollar", "pound", "euro")):
        return Kind.MONEY
    if unit in {"%", "percent"} or unit.startswith("per"):
        return Kind.PERCENT
    if unit in {"st", "nd", "rd", "th"}:
        return Kind.ORDINAL
    if not scaled and number.isdigit() and 1800 <= value <= 2100:
        return Kind.YEAR
    return Kind.PLAIN


def quantities(text: str) -> list[Quantity]:
    """Every quantity `text` states, in order of appearance."""
    found: list[tuple[int, Quantity]] = []
    taken: list[range] = []
    for match in _DIGITS.finditer(text):
        number = match["number"]
        try:
            base = Decimal(number.replace(",", ""))
        except InvalidOperation:
            continue
        scale = (match["scale"] or "").casefold()
        # A one-letter scale stands for one only after money ("$4m"); "4 m" is a distance.
        if scale in {"m", "b", "k"} and not match["currency"]:
            scale = ""
        exponent = _SCALES.get(scale, 0)
        value = base * (Decimal(10) ** exponent)
        kind = _kind(number, match["currency"], match["unit"], value, bool(exponent))
        found.append(
            (match.start(), Quantity(match[0].strip(), value, kind, _step(number, exponent)))
        )
        taken.append(range(match.start(), match.end()))
    for match in _WRITTEN.finditer(text):
        if any(match.start() in span for span in taken):
            continue
        words = [match["word"].casefold()] + ([match["word2"].casefold()] if match["word2"] else [])
        base = Decimal(sum(NUMBER_WORDS[w] for w in words))
        exponent = _SCALES[match["scale"].casefold()]
        value = base * (Decimal(10) ** exponent)
        found.append(
            (match.start(), Quantity(match[0], value, Kind.PLAIN, Decimal(10) ** exponent))
        )
    for match in _ORDINAL.finditer(text):
        value = Decimal(_ORDINAL_WORDS[match["word"].casefold()])
        found.append((match.start(), Quantity(match[0], value, Kind.ORDINAL, Decimal(1))))
    return [quantity for _, quantity in sorted(found, key=lambda pair: pair[0])]


def months(text: str) -> list[str]:
    """The months `text` names, lower-cased, in order ("May" only where it is capitalised,
    since "may" is mostly the verb)."""
    named: list[str] = []
    for match in _MONTH.finditer(text):
        word = match["month"]
        if word.casefold() == "may" and not word[0].isupper():
            continue
        named.append(word.casefold())
    return named
