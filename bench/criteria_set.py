"""A labelled set of acceptance criteria whose labels come from a program, not a model.

Real outputs (both outputs of the pairwise dev sets, and SummEval summaries) are read from
bench/data by path. Each chosen output gets four criteria of checkable shapes, two
met and two not, each labelled by a few lines of code written here (independently of the
judge's own exact checks): length in words or characters, a quoted keyword, a list of at
least three items, a number in digits, a percentage, valid JSON, a Markdown heading first,
the language. The set is rebuilt the same way from a seed on every run.
"""

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).parent / "data"  # the development sets, see data/README.md
FILES = ("pairwise-llmeval2.jsonl", "pairwise-autoj-dev.jsonl", "summeval-dev.jsonl")
SUMMARY_GOAL = "Summarise the news article in a few sentences."
MAX_WORDS = 220
_STOPWORDS = frozenset(
    {"the", "a", "an", "and", "of", "to", "in", "is", "are", "was", "were", "it", "that"}
    | {"this", "for", "on", "with", "as", "be", "by", "not", "or", "you", "i"}
)
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+\S", re.MULTILINE)
_PERCENT = re.compile(r"\d\s*(?:%|percent\b|per cent\b)", re.IGNORECASE)


@dataclass(frozen=True)
class Item:
    criterion: str
    family: str
    label: bool


@dataclass
class Case:
    """One output and the criteria asked about it, each with the program's label."""

    id: str
    goal: str
    output: str
    items: list[Item] = field(default_factory=list)


def _english(text: str) -> bool | None:
    """True for English, False for clearly another language, None when unsure."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    cjk = sum("\u4e00" <= c <= "\u9fff" or "\u3040" <= c <= "\u30ff" for c in letters)
    if cjk / len(letters) > 0.3:
        return False
    tokens = re.findall(r"[a-z]+", text.lower())
    if len(tokens) < 8:
        return None
    share = sum(t in _STOPWORDS for t in tokens) / len(tokens)
    ascii_share = sum(c.isascii() for c in letters) / len(letters)
    if share > 0.15 and ascii_share > 0.97:
        return True
    if share < 0.03:
        return False
    return None


def _json(text: str) -> bool:
    try:
        json.loads(text.strip())
    except ValueError:
        return False
    return True


def fixed_labels(text: str) -> dict[str, tuple[str, bool]]:
    """The criteria whose label the output fixes, by family, where the program is sure."""
    labels = {
        "list": ("The output gives at least 3 items as a list.", len(_BULLET.findall(text)) >= 3),
        "digits": (
            "The output contains a number written in digits.",
            re.search(r"\d", text) is not None,
        ),
        "json": ("The output is valid JSON.", _json(text)),
        "heading": (
            "The output starts with a Markdown heading.",
            re.match(r"\s*#{1,6}\s+\S", text) is not None,
        ),
    }
    percent = _PERCENT.search(text) is not None
    if percent or not re.search(r"%|per ?cent", text, re.IGNORECASE):
        labels["percentage"] = ("The output states a percentage.", percent)
    english = _english(text)
    if english is not None:
        labels["language"] = ("The output is written in English.", english)
    return labels


def _content_words(text: str) -> list[str]:
    return sorted({w for w in re.findall(r"[A-Za-z]{6,}", text) if w.lower() not in _STOPWORDS})


def _present(term: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE) is not None


def controlled(text: str, other: str, want: bool, family: str, rng: random.Random) -> Item | None:
    """A criterion of a family whose label the bench sets by choosing its parameter."""
    if family == "words":
        count = len(text.split())
        limit = max(count + rng.randint(3, 30), int(count * 1.3)) if want else count // 2
        if limit < 1:
            return None
        return Item(f"The output is at most {limit} words long.", family, count <= limit)
    if family == "chars":
        count = len(text)
        limit = int(count * rng.uniform(1.2, 1.6)) if want else int(count * rng.uniform(0.4, 0.7))
        return Item(f"The output is at most {limit} characters long.", family, count <= limit)
    words = _content_words(text) if want else _content_words(other)
    words = [w for w in words if _present(w, text) == want]
    if not words:
        return None
    term = rng.choice(words).lower()
    return Item(f'The output mentions "{term}".', "keyword", _present(term, text))


def outputs(data: Path) -> list[tuple[str, str, str, str]]:
    """(id, goal, output, another output of the same task) for every usable output."""
    found = []
    for name in FILES:
        rows = [json.loads(line) for line in (data / name).read_text("utf-8").splitlines()]
        for row in rows:
            if "output_a" in row:
                pair = (row["output_a"], row["output_b"])
                for side, (mine, theirs) in zip("ab", (pair, pair[::-1]), strict=True):
                    found.append((f"{row['id']}-{side}", row["instruction"], mine, theirs))
            else:
                found.append((row["id"], SUMMARY_GOAL, row["output"], row["source"][:2000]))
    return [f for f in found if 5 <= len(f[2].split()) <= MAX_WORDS and f[2].strip()]


def build(count: int, *, seed: int = 7, data: Path = DATA) -> list[Case]:
    """`count` outputs, each with two met and two unmet criteria.

    Outputs with a rare shape (a list, JSON, a heading, a percentage, another language) are
    drawn first so every family has met and unmet cases; the rest at random.
    """
    rng = random.Random(seed)
    pool = outputs(data)
    rng.shuffle(pool)
    rare = [o for o in pool if _rare(o[2])]
    chosen, seen = [], set()
    for entry in rare[: count // 2] + pool:
        if entry[2] in seen:
            continue
        seen.add(entry[2])
        chosen.append(entry)
        if len(chosen) == count:
            break
    cases = []
    for index, (case_id, goal, text, other) in enumerate(chosen):
        case = Case(case_id, goal, text)
        labels = fixed_labels(text)
        for want in (True, False):
            families = [f for f, (_, label) in labels.items() if label == want]
            # The rarer shapes first, so "written in English" does not fill the set.
            families.sort(key=lambda f: (f in ("language", "digits"), rng.random()))
            if families:
                criterion, label = labels[families[0]]
                case.items.append(Item(criterion, families[0], label))
        for want in (True, False):
            families = ["words", "chars", "keyword"]
            rng.shuffle(families)
            for family in families:
                item = controlled(text, other, want, family, rng)
                if item is not None and all(i.family != item.family for i in case.items):
                    case.items.append(item)
                    break
        rng.shuffle(case.items)
        if index % 2:
            case.items.reverse()
        cases.append(case)
    return cases


def _rare(text: str) -> bool:
    labels = fixed_labels(text)
    return any(
        labels.get(f, ("", False))[1] for f in ("list", "json", "heading", "percentage")
    ) or (labels.get("language", ("", True))[1] is False)
