"""The development sets in bench/data are the bytes their README records, and every bench
reads its data from the repository by default."""

import hashlib
import json
import re
from pathlib import Path

import pytest

from jurist.data import summeval_100_path

BENCH = Path(__file__).parents[2] / "bench"
DATA = BENCH / "data"
README = (DATA / "README.md").read_text(encoding="utf-8")
FILES = {
    "summeval-dev.jsonl": (640, {"id", "doc_id", "source", "output", "human_scores", "scale"}),
    "pairwise-llmeval2.jsonl": (200, {"id", "instruction", "output_a", "output_b", "label"}),
    "pairwise-autoj-dev.jsonl": (688, {"id", "instruction", "output_a", "output_b", "label"}),
}


def _recorded_sha256(name: str) -> str:
    section = README.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"\*\*sha256:\*\* `([0-9a-f]{64})`", section)
    assert found, f"bench/data/README.md records no sha256 for {name}"
    return found.group(1)


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_development_set_is_the_recorded_bytes_and_rows(name):
    path = DATA / name
    assert hashlib.sha256(path.read_bytes()).hexdigest() == _recorded_sha256(name)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    count, fields = FILES[name]
    assert len(rows) == count
    assert all(fields <= set(row) for row in rows)
    assert len({row["id"] for row in rows}) == count


def test_no_summeval_article_is_in_both_the_development_and_the_calibration_set():
    def articles(path: Path) -> set[str]:
        lines = path.read_text(encoding="utf-8").splitlines()
        return {json.loads(line)["doc_id"] for line in lines}

    development = articles(DATA / "summeval-dev.jsonl")
    assert len(development) == 40
    assert not development & articles(summeval_100_path())


def test_every_bench_defaults_to_data_in_the_repository():
    # A bench that read its data from outside the clone would print figures no one else
    # can reproduce.
    for script in sorted(BENCH.glob("*.py")):
        text = script.read_text(encoding="utf-8")
        assert '"shared"' not in text, script.name
        for line in text.splitlines():
            if line.startswith("DATA = "):
                assert "summeval_100_path()" in line or 'Path(__file__).parent / "data"' in line
