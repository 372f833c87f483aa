"""The calibration plot keeps its titles inside the figure, however long the judge's name or
the dataset's file name, for the scatter plots and the confusion matrix alike."""

import json
import re
from pathlib import Path

import pytest

from jurist.calibration import binary_report, ratings_report
from jurist.data import LabelledDataset, load_labelled

FAST = {"n_boot": 30, "seed": 0}
LONG_NAME = "summeval-development-draw-of-one-hundred-rated-by-three-annotators"
LONG_JUDGE = "rubric:summarization, aligned (coherence, consistency, fluency, relevance)"
COHERENCE = [1, 2, 3, 4, 2, 3, 4, 5, 1, 3, 4, 5]


def _ratings(tmp_path: Path, dimensions: list[str]) -> LabelledDataset:
    path = tmp_path / f"{LONG_NAME}.jsonl"
    lines = [
        {
            "id": f"D{i // 4}-S{i % 4}",
            "doc_id": f"D{i // 4}",
            "source": "s",
            "output": f"summary {i}",
            "human_scores": dict.fromkeys(dimensions, score),
            "scale": [1, 5],
        }
        for i, score in enumerate(COHERENCE)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return load_labelled(path)


def _binary(tmp_path: Path) -> LabelledDataset:
    path = tmp_path / f"{LONG_NAME}.jsonl"
    labels = [True, False, True, True, False, False, True, False]
    path.write_text(
        "".join(
            json.dumps({"id": f"b{i}", "context": "c", "output": "o", "label": label}) + "\n"
            for i, label in enumerate(labels)
        ),
        encoding="utf-8",
    )
    return load_labelled(path)


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("dimensions", [["coherence"], ["coherence", "fluency", "relevance"]])
def test_long_titles_of_the_scatter_plots_stay_inside_the_figure(tmp_path, dimensions):
    dataset = _ratings(tmp_path, dimensions)
    scores = {item.id: dict(item.human_scores) for item in dataset.ratings}
    report = ratings_report(dataset, scores, judge=LONG_JUDGE, model="m", **FAST)
    _assert_titles_inside(report.figure(), expected=f"{LONG_JUDGE} vs humans on {LONG_NAME}")
    assert report.plot(tmp_path / "ratings.png").stat().st_size > 0


def test_a_long_title_of_the_confusion_matrix_stays_inside_the_figure(tmp_path):
    dataset = _binary(tmp_path)
    predictions = {item.id: item.label for item in dataset.binary}
    report = binary_report(dataset, predictions, judge=LONG_JUDGE, model="m", **FAST)
    _assert_titles_inside(report.figure(), expected=f"{LONG_JUDGE} vs humans on {LONG_NAME}")


def _assert_titles_inside(figure, *, expected: str) -> None:
    figure.canvas.draw()  # the constrained layout places everything as it is saved
    renderer = figure.canvas.get_renderer()
    edges = figure.bbox
    suptitle = figure.get_suptitle()
    assert _squeezed(suptitle) == _squeezed(f"{expected}.jsonl")  # wrapped, nothing lost
    titles = [figure._suptitle] + [ax.title for ax in figure.axes if ax.get_visible()]
    shown = [title for title in titles if title.get_text()]
    assert len(shown) >= 2
    for title in shown:
        box = title.get_window_extent(renderer)
        assert edges.contains(box.x0, box.y0), (title.get_text(), box, edges)
        assert edges.contains(box.x1, box.y1), (title.get_text(), box, edges)
