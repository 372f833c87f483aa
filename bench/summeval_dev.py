"""The SummEval development set as the benches read it: the file, the task the summaries
were written for, and a seeded draw of whole articles with some summaries of each."""

import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "summeval-dev.jsonl"
GOAL = "Summarise the article."


def rows(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def items(path: Path, articles: int, per_article: int, seed: int) -> list[dict[str, Any]]:
    """`per_article` summaries of each of `articles` articles, both drawn with `seed`."""
    by_article: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows(path):
        by_article[str(row["doc_id"])].append(row)
    rng = random.Random(seed)
    chosen = rng.sample(sorted(by_article), articles)
    return [row for doc in chosen for row in rng.sample(by_article[doc], per_article)]
