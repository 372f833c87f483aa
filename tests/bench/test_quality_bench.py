"""bench/quality.py's out-of-fold rows: the method each document is scored by is chosen on
the other documents, and the alignment is scored out of fold."""

import importlib.util
import json
import sys
from pathlib import Path

from jurist.calibration import DatasetKind, load_dataset, ratings_report

_PATH = Path(__file__).parents[2] / "bench" / "quality.py"
_SPEC = importlib.util.spec_from_file_location("bench_quality", _PATH)
assert _SPEC is not None
assert _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench
_SPEC.loader.exec_module(bench)

DOCS = [f"D{d}" for d in range(6)]
HUMAN = [1.0, 2.5, 4.0, 5.0]


def dataset(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "ratings.jsonl"
    rows = [
        {
            "id": f"{doc}-S{i}",
            "doc_id": doc,
            "source": f"Article {doc}.",
            "output": f"Summary {i} of {doc}.",
            "human_scores": {"coherence": h + 0.1 * d, "fluency": 3.0},
            "scale": [1, 6],
        }
        for d, doc in enumerate(DOCS)
        for i, h in enumerate(HUMAN)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return load_dataset(path, DatasetKind.RATINGS)


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
