"""bench/pairwise.py: the pairs it builds from human ratings, and the whole run (judged in
both orders, stored, resumed, reported before and after calibration) with a scripted model
that prefers whatever it is shown first."""

import importlib.util
import json
import math
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from jurist.data import summeval_100_path
from jurist.llm import Request, Response
from jurist.store import RecordStore
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

_PATH = Path(__file__).parents[2] / "bench" / "pairwise.py"
_SPEC = importlib.util.spec_from_file_location("bench_pairwise", _PATH)
assert _SPEC is not None
assert _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)

WORDS = ("alpha", "bravo", "charlie", "delta")
# Human means of each document's four summaries, in file order.
MEANS = {
    "D0": (4.0, 3.0, 1.0, 3.5),
    "D1": (2.0, 2.0, 4.99997, 1.5),
    "D2": (1.0, 1.99997, 5.0, 5.0),
    "D3": (1.0, 5.0, 1.0, 1.0),
}


def summary(doc: str, index: int) -> str:
    return f"The {WORDS[index]} summary of article {doc}."


def article(doc: str) -> str:
    return f"Article {doc}: a long story about {doc.lower()} and its consequences."


@pytest.fixture
def ratings(tmp_path: Path) -> Path:
    path = tmp_path / "ratings.jsonl"
    lines = [
        {
            "id": f"{doc}-S{index}",
            "doc_id": doc,
            "source": article(doc),
            "output": summary(doc, index),
            # Four dimensions whose mean is the wanted one.
            "human_scores": dict.fromkeys(("coherence", "consistency", "fluency", "relevance"), m),
            "scale": [1, 5],
        }
        for doc, means in MEANS.items()
        for index, m in enumerate(means)
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


@pytest.fixture
def database(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite3'}"


def quality_of(ratings: Path) -> dict[str, float]:
    out = {}
    for line in ratings.read_text().splitlines():
        record = json.loads(line)
        scores = record["human_scores"]
        out[record["output"]] = sum(scores.values()) / len(scores)
    return out


def shown(prompt: str, qualities: dict[str, float]) -> tuple[str, str]:
    """The summaries shown as Response 1 and Response 2."""
    first = prompt[prompt.index("Response 1:") : prompt.index("Response 2:")]
    second = prompt[prompt.index("Response 2:") :]
    one = [text for text in qualities if text in first]
    two = [text for text in qualities if text in second]
    assert len(one) == 1, prompt
    assert len(two) == 1, prompt
    return one[0], two[0]


def first_position_model(
    qualities: dict[str, float],
    *,
    calls: int,
    bias: float = 2.0,
    without_probabilities: Collection[str] = (),
) -> ScriptedModel:
    """A model whose logit for "response 1 is better" is `bias` plus a third of the humans'
    score difference (at most 4/3 here, so it always picks the first shown), answering with token
    probabilities, except for pairs showing a summary in `without_probabilities`."""

    def step(request: Request) -> Response:
        one, two = shown(request.messages[-1].content, qualities)
        p_first = 1.0 / (1.0 + math.exp(-(bias + (qualities[one] - qualities[two]) / 3)))
        if one in without_probabilities or two in without_probabilities:
            return answer(json.dumps({"reason": "first", "better": "1"}))
        return with_logprobs(
            '{"reason": "',
            "compared",
            '", "better": "',
            ("1" if p_first >= 0.5 else "2", {"1": p_first, "2": 1.0 - p_first}),
            '"}',
        )

    return ScriptedModel("test:first-position", [step] * calls, capabilities=LOGPROB_CAPABILITIES)


def test_pairs_differ_by_the_margin_and_alternate_which_is_a(ratings: Path) -> None:
    pairs = bench.build_pairs(ratings, docs=3, margin=1.0)
    # (doc, index of A, index of B, label): the preferred one is A, then B, then A, ...
    assert [
        (p.doc_id, WORDS.index(p.output_a.split()[1]), WORDS.index(p.output_b.split()[1]), p.label)
        for p in pairs
    ] == [
        ("D0", 0, 1, "A"),  # 4.0 vs 3.0: exactly the margin is enough
        ("D0", 2, 0, "B"),
        ("D0", 1, 2, "A"),
        ("D0", 2, 3, "B"),
        ("D1", 2, 0, "A"),
        ("D1", 1, 2, "B"),
        ("D1", 2, 3, "A"),
        ("D2", 0, 1, "B"),  # 1.0 vs 1.99997: short of the margin by rounding only
        ("D2", 2, 0, "A"),
        ("D2", 0, 3, "B"),
        ("D2", 2, 1, "A"),
        ("D2", 1, 3, "B"),
    ]
    assert pairs[7].difference == pytest.approx(0.99997)
    assert all(p.article == article(p.doc_id) for p in pairs)
    assert pairs[1].id == "D0-S2-vs-D0-S0"
    assert len({p.id for p in pairs}) == len(pairs)


def test_the_first_documents_are_taken_in_file_order(ratings: Path) -> None:
    assert {p.doc_id for p in bench.build_pairs(ratings, docs=2)} == {"D0", "D1"}
    # D1: S2 vs S3 (3.49997, by rounding); D2: S0 vs S2 and S3 (4.0).
    assert len(bench.build_pairs(ratings, docs=3, margin=3.5)) == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"docs": 0}, r"--docs must be at least 1, got 0"),
        ({"margin": 0.0}, r"--margin must be above 0"),
    ],
)
def test_bad_options_name_the_option(ratings: Path, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bench.build_pairs(ratings, **options)


def test_the_run_name_says_model_documents_and_margin() -> None:
    assert bench.run_name("local:qwen2.5-1.5b", 10, 1.0) == (
        "pairwise-local-qwen2.5-1.5b-docs10-margin1"
    )
    assert (
        bench.run_name("openai:GPT-4o mini", 3, 0.5)
        == "pairwise-openai-gpt-4o-mini-docs3-margin0.5"
    )


async def test_the_whole_bench_stores_resumes_and_calibrates(ratings: Path, database: str) -> None:
    qualities = quality_of(ratings)
    pairs = bench.build_pairs(ratings, docs=3)
    model = first_position_model(qualities, calls=2 * len(pairs))
    result = await bench.run_bench(
        data=ratings, docs=3, margin=1.0, model=model, database=database, n_boot=50
    )

    assert result.run.name == "pairwise-test-first-position-docs3-margin1"
    assert model.calls == 2 * len(pairs)
    assert model.max_in_flight <= 2  # one pair at a time, its two orders together
    prompt = model.requests[0].messages[-1].content
    assert "Summarise the article." in prompt
    assert "A reference answer" not in prompt
    assert (
        prompt.index("Source material") < prompt.index(article("D0")) < prompt.index("Response 1")
    )
    assert result.skipped == {}

    report = result.report
    assert report.pairs == len(pairs) == 12
    assert report.groups == 3
    assert report.before.first_position_rate.value == 1.0
    assert report.before.position_consistency.value == 0.0
    assert report.after.position_consistency.value == 1.0
    assert report.after.accuracy_a_first.value == 1.0
    assert report.before.accuracy_both_orders.value == 1.0
    # Each pair's two logits are 2 + d/3 and 2 - d/3: every fold's offset is 2.
    assert report.offsets == pytest.approx({"D0": 2.0, "D1": 2.0, "D2": 2.0})

    text = bench.render(result, model=model.name, docs=3, margin=1.0)
    assert "12 pairs, test:first-position, run pairwise-test-first-position-docs3-margin1" in text
    assert "| position consistency: both orders choose the same output | 0.00" in text

    async with await RecordStore.open(database) as store:
        stored = await store.get_run(result.run.name)
        assert stored is not None
        assert stored.status == "done"
        assert stored.spec is not None
        assert stored.spec["model"] == "test:first-position"
        assert len(await store.run_judgments(stored.id)) == 12

    # A rerun resumes the stored run: nothing is asked again, the report is the same.
    silent = first_position_model(qualities, calls=0)
    again = await bench.run_bench(
        data=ratings, docs=3, margin=1.0, model=silent, database=database, n_boot=50
    )
    assert silent.calls == 0
    assert again.run.run_id == result.run.run_id
    assert again.report == report


async def test_pairs_without_probabilities_are_left_out_with_the_reason(
    ratings: Path, database: str
) -> None:
    qualities = quality_of(ratings)
    pairs = bench.build_pairs(ratings, docs=3)
    model = first_position_model(
        qualities, calls=2 * len(pairs), without_probabilities={summary("D0", 3)}
    )
    result = await bench.run_bench(data=ratings, docs=3, model=model, database=database, n_boot=0)
    assert set(result.skipped) == {"D0-S2-vs-D0-S3"}
    assert "p_a: missing" in result.skipped["D0-S2-vs-D0-S3"]
    assert result.report.pairs == 11
    assert "Left out 1 pairs:\n- D0-S2-vs-D0-S3: orders[0].p_a: missing" in bench.render(
        result, model=model.name, docs=3, margin=1.0
    )


async def test_pairs_from_one_document_are_refused_before_judging(
    ratings: Path, database: str
) -> None:
    model = first_position_model(quality_of(ratings), calls=0)
    with pytest.raises(ValueError, match=r"--docs 1 --margin 1: the pairs come from 1 document"):
        await bench.run_bench(data=ratings, docs=1, model=model, database=database)
    assert model.calls == 0


def test_the_summeval_pairs_of_the_default_bench() -> None:
    pairs = bench.build_pairs(summeval_100_path())
    assert len(pairs) == 23
    assert len({p.doc_id for p in pairs}) == 8
    assert [p.label for p in pairs] == ["A", "B"] * 11 + ["A"]
    assert all(p.difference >= 1.0 - 1e-3 for p in pairs)
