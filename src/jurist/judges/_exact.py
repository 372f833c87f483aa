"""Exact checks of a claim against its source: what a program decides better than a model.

A 1.5B model judges "The 40 million dollar project" supported by "a 4 million dollar
project" because the words match. These checks compare what can be compared exactly:
numbers with their scale and unit, years and months, names, negation, who did what to
whom, and arithmetic and counts a program computes. Each mismatch is a `Finding` naming
the two values; a claim with one is contradicted whatever the model says. The checks are
built to be silent when unsure: a finding should be right nearly always, since it
overrides the model.
"""

import re
from dataclasses import dataclass
from enum import StrEnum

from jurist.judges._computed import miscalculations
from jurist.judges._quantities import MONTHS, NUMBER_WORDS, Quantity, months, quantities


class Check(StrEnum):
    NUMBER = "number"
    MONTH = "month"
    NAME = "name"
    NEGATION = "negation"
    ROLE = "role"
    ARITHMETIC = "arithmetic"
    COUNT = "count"


@dataclass(frozen=True)
class Finding:
    """One exact mismatch: the claim says `claimed`, the source says `found` ("" when the
    source says nothing of the kind)."""

    check: Check
    claimed: str
    found: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {
            "check": self.check.value,
            "claimed": self.claimed,
            "found": self.found,
            "reason": self.reason,
        }


_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019.-]*[A-Za-z]|[A-Za-z]")
_NEGATIONS = frozenset(
    {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "without"}
)
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "which",
        "who",
        "will",
        "with",
        "would",
        "after",
        "before",
        "over",
        "said",
        "says",
        "also",
        "than",
        "up",
        "out",
        "about",
    }
)
# Capitalised words that are not names even mid-sentence.
_NOT_NAMES = frozenset(
    {
        "i",
        "mr",
        "mrs",
        "ms",
        "dr",
        "sir",
        "the",
        "a",
        "an",
        "in",
        "on",
        "at",
        "of",
        "and",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    }
    | set(MONTHS)
)


def _bare(word: str) -> str:
    """A word without its possessive and edge punctuation: "Jones's" -> "jones"."""
    word = word.casefold().strip(".'\u2019")
    for suffix in ("'s", "\u2019s"):
        word = word.removesuffix(suffix)
    return word


def _lower_words(text: str) -> list[str]:
    return [_bare(w) for w in _WORD.findall(text)]


def _stem(word: str) -> str:
    word = word.casefold()
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    # "approve" and "approved" (or "approving") share the stem "approv".
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


# -- numbers and months --------------------------------------------------------------------


def _stated(claimed: Quantity, source: list[Quantity], source_words: set[str]) -> bool:
    if any(claimed.restates(found) or found.restates(claimed) for found in source):
        return True
    # "3 goals" restates "three goals".
    value = claimed.value
    return value == value.to_integral() and any(
        NUMBER_WORDS.get(word) == value for word in source_words
    )


def number_findings(claim: str, evidence: str, source: str) -> list[Finding]:
    """Each number of the claim that the source states nowhere (rounding to the claim's or
    the source's precision allowed), with the evidence's number of the same kind when it
    has one."""
    in_source = quantities(source)
    words = set(_lower_words(source))
    near = quantities(evidence)
    findings: list[Finding] = []
    for claimed in quantities(claim):
        if _stated(claimed, in_source, words):
            continue
        rival = next((q for q in near if q.kind is claimed.kind), None) or next(iter(near), None)
        if rival is not None:
            reason = f"the claim says {claimed.text}; the source says {rival.text}"
        else:
            reason = f"the claim says {claimed.text}; the source states no such number"
        findings.append(Finding(Check.NUMBER, claimed.text, rival.text if rival else "", reason))
    return findings


def month_findings(claim: str, evidence: str, source: str) -> list[Finding]:
    """Each month the claim names that the source does not."""
    named = set(months(source)) | {m for m in MONTHS if m != "may" and m in source.casefold()}
    findings = []
    for month in months(claim):
        if month in named:
            continue
        rival = next(iter(months(evidence)), "")
        said = f"; the source says {rival.title()}" if rival else "; the source names no such month"
        findings.append(
            Finding(
                Check.MONTH, month.title(), rival.title(), f"the claim says {month.title()}{said}"
            )
        )
    return findings


# -- names -----------------------------------------------------------------------------------


def names(text: str, *, first: bool = False) -> list[str]:
    """Runs of capitalised words. The first word of a sentence is capitalised anyway, so a
    lone one counts only with `first` ("Smith visited Jones"); a longer run always does
    ("Manchester United won")."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        tokens = _WORD.findall(sentence)
        run: list[str] = []
        for index, token in enumerate([*tokens, ""]):
            capital = bool(token) and token[0].isupper() and token.casefold() not in _NOT_NAMES
            if capital:
                run.append(token)
                continue
            starts = index - len(run) == 0
            if run and (first or not starts or len(run) > 1):
                found.append(" ".join(run))
            run = []
    return found


def _acronym_of(acronym: str, source: str) -> bool:
    letters = acronym.replace(".", "").casefold()
    words = [w for w in _WORD.findall(source) if w[0].isupper()]
    initials = "".join(w[0].casefold() for w in words)
    return len(letters) >= 2 and letters in initials


def name_findings(claim: str, source: str) -> list[Finding]:
    """Each name of the claim none of whose words the source holds."""
    words = set(_lower_words(source))
    findings = []
    for name in names(claim):
        parts = [_bare(p) for p in name.split()]
        if any(p in words for p in parts if p not in _STOP):
            continue
        if name.replace(".", "").isupper() and _acronym_of(name, source):
            continue
        findings.append(
            Finding(Check.NAME, name, "", f"the name {name!r} appears nowhere in the source")
        )
    return findings


# -- negation and roles, against the evidence quote ------------------------------------------


def _content(words: list[str]) -> set[str]:
    return {_stem(w) for w in words if w not in _STOP and w not in _NEGATIONS}


def content_stems(text: str) -> set[str]:
    """The stems of the words of `text` that carry its content (no function words), and its
    numbers."""
    words = {_stem(w) for w in _lower_words(text) if w not in _STOP}
    return words | set(re.findall(r"\d+(?:[.,]\d+)*", text))


def _negated(words: list[str]) -> bool:
    return any(w in _NEGATIONS or w.endswith("n't") for w in words)


# How many words before the first shared word a negation still governs ("did not approve").
_NEGATION_REACH = 3


def _stated_part(quoted: list[str], wanted: set[str]) -> list[str]:
    """The words of the evidence that say what the claim says: from a few words before the
    first of the claim's content words to the last of them. A negation elsewhere in the
    sentence is about something else ("president X insisted they have no plans")."""
    at = [i for i, w in enumerate(quoted) if w not in _STOP and _stem(w) in wanted]
    if not at:
        return []
    return quoted[max(at[0] - _NEGATION_REACH, 0) : at[-1] + 1]


def negation_findings(claim: str, evidence: str) -> list[Finding]:
    """The claim and its evidence say the same words but one of them negates them."""
    said, quoted = _lower_words(claim), _lower_words(evidence)
    wanted = _content(said)
    if len(wanted) < 2 or not quoted:
        return []
    shared = len(wanted & _content(quoted)) / len(wanted)
    if shared < 0.75 or _negated(said) == _negated(_stated_part(quoted, wanted)):
        return []
    which = "the claim" if _negated(said) else "the source"
    return [
        Finding(
            Check.NEGATION, claim, evidence, f"{which} negates what the other says: {evidence!r}"
        )
    ]


_AUXILIARIES = frozenset({"has", "had", "have", "also", "then", "later", "did", "will", "would"})
_PASSIVE = re.compile(r"\b(?:was|were|been|being|is|are)\s+\w+(?:ed|en)\s+by\b", re.IGNORECASE)


def _acts(sentence: str, people: list[str]) -> dict[str, str]:
    """Each person directly followed by an action ("Smith visited", "Rooney has scored"):
    person -> the action's stem. An action followed by "by" names its doer after it, so it
    is skipped."""
    words = [_bare(w) for w in _WORD.findall(sentence)]
    acts: dict[str, str] = {}
    for person in people:
        parts = person.split()
        for start in range(len(words) - len(parts)):
            if words[start : start + len(parts)] != parts:
                continue
            rest = [w for w in words[start + len(parts) :]]
            while rest and rest[0] in _AUXILIARIES:
                rest = rest[1:]
            if rest and rest[0] not in _STOP and (len(rest) < 2 or rest[1] != "by"):
                acts.setdefault(person, _stem(rest[0]))
    return acts


def role_findings(claim: str, evidence: str) -> list[Finding]:
    """Who did what: the claim has a person do what the evidence says another person did,
    while the evidence names the first one too ("A visited B's camp" where the source says
    "B visited A's camp"; a goal credited to the player who assisted it)."""
    if _PASSIVE.search(claim) or _PASSIVE.search(evidence):
        return []
    in_claim, in_evidence = _people(claim), _people(evidence)
    if not in_claim or len(in_evidence) < 2:
        return []
    done = _acts(evidence, in_evidence)
    evidence_words = set(_lower_words(evidence))
    for person, act in _acts(claim, in_claim).items():
        doers = [other for other, theirs in done.items() if theirs == act and other != person]
        named_too = all(part in evidence_words for part in person.split())
        if doers and named_too and done.get(person) != act:
            return [
                Finding(
                    Check.ROLE,
                    person.title(),
                    doers[0].title(),
                    f"the claim has {person.title()} doing what the source says "
                    f"{doers[0].title()} did: {evidence!r}",
                )
            ]
    return []


def _people(text: str) -> list[str]:
    people = (" ".join(_bare(w) for w in n.split()) for n in names(text, first=True))
    return list(dict.fromkeys(people))


def source_findings(claim: str, evidence: str, source: str) -> list[Finding]:
    """The mismatches a program finds between `claim` and the whole `source` before any
    model is asked: numbers, months and names. `evidence` (the sentence nearest the claim)
    supplies the rival value a finding names."""
    found = number_findings(claim, evidence, source)
    found += month_findings(claim, evidence, source)
    found += name_findings(claim, source)
    found += computed_findings(claim, source)
    return found


def computed_findings(claim: str, source: str) -> list[Finding]:
    """Arithmetic the claim states wrongly, and counts over the source it gets wrong: the
    program computes them ("5 x 5 x 5 = 625" comes to 125)."""
    return [
        Finding(Check(wrong.kind), wrong.stated, wrong.computed, wrong.reason)
        for wrong in miscalculations(claim, source)
    ]


def evidence_findings(claim: str, evidence: str) -> list[Finding]:
    """The mismatches between `claim` and the passage it rests on (the model's checked
    quote): a negation flipped, or who did what swapped."""
    if not evidence:
        return []
    return negation_findings(claim, evidence) + role_findings(claim, evidence)


def findings(claim: str, evidence: str, source: str) -> list[Finding]:
    """Every exact mismatch of `claim` with `source`; `evidence` is the passage the claim
    rests on (the model's checked quote, or the source sentence nearest the claim)."""
    return source_findings(claim, evidence, source) + evidence_findings(claim, evidence)
