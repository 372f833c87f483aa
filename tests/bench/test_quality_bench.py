"""bench/quality.py's out-of-fold rows: the method each document is scored by is chosen on
the other documents, and the alignment is scored out of fold."""

import importlib.util
import json
import sys
from pathlib import Path

from jurist.calibration import ratings_report
from jurist.data import DatasetKind, load_labelled

_PATH = Path(__file__).parents[2] / "bench" / "quality.py"
_SPEC = importlib.util.spec_from_file_location("bench_quality", _PATH)
assert _SPEC is not None
assert _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)

DOCS = [f"D{d}" for d in range(6)]
HUMAN = [1.0, 2.5, 4.0, 5.0]


def ratings(tmp_path: Path, human_scores, scale: list[int]):  # type: ignore[no-untyped-def]
    """A ratings dataset of four summaries per document, rated by `human_scores(d, i)`."""
    path = tmp_path / "ratings.jsonl"
    rows = [
        {
            "id": f"{doc}-S{i}",
            "doc_id": doc,
            "source": f"Article {doc}.",
            "output": f"Summary {i} of {doc}.",
            "human_scores": human_scores(d, i),
            "scale": scale,
        }
        for d, doc in enumerate(DOCS)
        for i in range(len(HUMAN))
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return load_labelled(path, DatasetKind.RATINGS)


def dataset(tmp_path: Path):  # type: ignore[no-untyped-def]
    return ratings(tmp_path, lambda d, i: {"coherence": HUMAN[i] + 0.1 * d, "fluency": 3.0}, [1, 6])


def scored(data, method: str, values: dict[str, float]):  # type: ignore[no-untyped-def]
    scores = {item_id: {"coherence": v} for item_id, v in values.items()}
    signals = {
        item_id: {"coherence.p": v, "coherence.twice": 2 * v} for item_id, v in values.items()
    }
    report = ratings_report(
        data, scores, judge=method, model="m", dimensions=["coherence"], n_boot=20
    )
    return bench.Scored(method, report, scores, signals)


def test_each_document_is_scored_by_the_method_the_other_documents_favour(tmp_path: Path) -> None:
    data = dataset(tmp_path)
    items = data.ratings
    good = scored(data, "good", {it.id: it.human_scores["coherence"] for it in items})
    bad = scored(data, "bad", {it.id: -it.human_scores["coherence"] for it in items})
    chosen, aligned = bench.out_of_fold(data, [bad, good], "m")

    assert "'coherence': {'good': 6}" in chosen.judge
    points = chosen.dimensions["coherence"].points
    assert [p.judge for p in points] == [it.human_scores["coherence"] for it in items]
    # Fluency is rated but no method scores it: no row for it, not a row of zeros.
    assert "fluency" not in chosen.dimensions
    # The alignment's predictions come from folds that never saw the item's document, so
    # they are not the in-sample fit; on this exactly linear signal they still rank right.
    fitted = [p.judge for p in aligned.dimensions["coherence"].points]
    assert all(value is not None for value in fitted)
    rho = aligned.dimensions["coherence"].correlations.pooled.spearman.value
    assert rho is not None
    assert rho > 0.9


def test_coverage_with_focus_scores_relevance_as_the_combined_judge_does(tmp_path: Path) -> None:
    from jurist import Judgment, Usage
    from jurist.judges import CoverageReport, Extraction, FocusReport, StatementRow, relevance_f1

    statement = StatementRow(statement="s", p_on_topic=0.5, reason="", method="logprobs")

    data = ratings(tmp_path, lambda d, i: {"relevance": 1.0 + i}, [1, 5])
    items = data.ratings
    coverage_of = {it.id: 0.2 + 0.2 * int(it.id[-1]) for it in items}
    focus_of = {it.id: 0.9 - 0.1 * int(it.id[-1]) for it in items}
    coverage_judgments = {
        it.id: Judgment.ok(
            metadata=CoverageReport(
                key_facts=5,
                extraction=Extraction.MODEL,
                facts=(),
                covered_facts=2,
                p_covered_mean=coverage_of[it.id],
            ).to_metadata(),
            usage=Usage(calls=6, latency_ms=30000.0),
        )
        for it in items
    }
    # One item the focus run did not reach: it gets no combined score, not a guess.
    missing = items[0].id
    focus_judgments = {
        it.id: Judgment.ok(
            metadata=FocusReport(
                key_facts=5,
                extraction=Extraction.MODEL,
                statements_from="model",
                statements=(statement,) * 3,
                off_topic_statements=1,
                p_on_topic_mean=focus_of[it.id],
                on_topic_threshold=0.5,
                issues=(),
            ).to_metadata(),
            usage=Usage(calls=4, latency_ms=8000.0),
        )
        for it in items
        if it.id != missing
    }
    coverage = bench.scored("coverage", _run(coverage_judgments), data, "m", "coverage")
    focus = bench.scored("focus", _run(focus_judgments), data, "m", "focus")
    both = bench.coverage_with_focus(coverage, focus, data, "m")

    assert both is not None
    assert missing not in both.scores
    for it in items[1:]:
        expected = 1 + 4 * relevance_f1(coverage_of[it.id], focus_of[it.id])
        assert both.scores[it.id]["relevance"] == expected
    assert both.report.cost is not None
    assert both.report.cost.calls == 10
    assert both.report.latency is not None
    assert both.report.latency.mean == 38.0
    assert both.signals[items[1].id]["relevance.focus"] == focus_of[items[1].id]


def _run(judgments):  # type: ignore[no-untyped-def]
    from jurist.runner import RunResult, RunSummary

    return RunResult(None, None, "j", judgments, RunSummary.of(judgments.values()))
