"""Calibration reports: verdicts against the target, JSON, markdown, PNG, and drift."""

import json
from datetime import UTC, datetime

import pytest

from jurist.calibration import (
    CalibrationReport,
    CalibrationVerdict,
    Target,
    binary_report,
    compare_reports,
    pairwise_report,
    ratings_report,
)
from jurist.data import LabelledDataset, load_labelled, summeval_100

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
FAST = {"n_boot": 30, "seed": 0, "created_at": WHEN}

# Six documents with four summaries each; coherence and fluency vary within every document.
COHERENCE = [1, 2, 3, 4, 2, 3, 4, 5, 1, 3, 4, 5, 2, 2.5, 3.5, 5, 1.5, 2, 4, 4.5, 1, 3, 3.5, 5]
FLUENCY = [5, 4, 3, 2, 4, 5, 3, 1, 2, 5, 4, 3, 3, 4, 5, 1, 2, 3, 5, 4, 4, 2, 1, 3]


@pytest.fixture
def ratings(tmp_path) -> LabelledDataset:
    path = tmp_path / "ratings.jsonl"
    lines = [
        {
            "id": f"D{i // 4}-S{i % 4}",
            "doc_id": f"D{i // 4}",
            "source": f"document {i // 4}",
            "output": f"summary {i}",
            "human_scores": {"coherence": c, "fluency": f},
            "scale": [1, 5],
        }
        for i, (c, f) in enumerate(zip(COHERENCE, FLUENCY, strict=True))
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return load_labelled(path)


def _perfect_coherence_reversed_fluency(
    dataset: LabelledDataset,
) -> dict[str, dict[str, float | None]]:
    return {
        item.id: {
            "coherence": item.human_scores["coherence"],
            "fluency": 6 - item.human_scores["fluency"],
        }
        for item in dataset.ratings
    }


def test_a_judge_that_matches_the_humans_passes_with_intervals_and_a_verdict_line(ratings):
    scores = {item.id: {"coherence": item.human_scores["coherence"]} for item in ratings.ratings}
    report = ratings_report(ratings, scores, judge="copycat", model="none", **FAST)
    assert list(report.dimensions) == ["coherence"]  # the only dimension the judge scored
    result = report.dimensions["coherence"]
    assert result.verdict is CalibrationVerdict.PASS
    assert result.correlations.per_group is not None
    assert result.correlations.per_group.groups_used == 6
    assert result.agreement.kappa.value == pytest.approx(1.0)
    assert result.agreement.alpha.value == pytest.approx(1.0)
    assert report.verdict is CalibrationVerdict.PASS
    markdown = report.to_markdown()
    assert "+1.00 [+1.00, +1.00]" in markdown
    assert "**Verdict: PASS** (Pearson (pooled) >= 0.70)" in markdown
    assert "| coherence | per document (6 used, 0 skipped) | 6 |" in markdown


def test_one_failing_dimension_fails_the_report_and_is_named(ratings):
    scores = _perfect_coherence_reversed_fluency(ratings)
    report = ratings_report(ratings, scores, judge="half", model="m", **FAST)
    assert report.dimensions["coherence"].verdict is CalibrationVerdict.PASS
    assert report.dimensions["fluency"].verdict is CalibrationVerdict.FAIL
    assert report.verdict is CalibrationVerdict.FAIL
    assert report.reason == "fluency: Pearson (pooled) -1.00 < 0.70"
    assert "**Verdict: FAIL**" in report.to_markdown()


def test_the_target_can_name_another_coefficient_level_and_the_lower_bound(ratings):
    scores = {item.id: {"coherence": item.human_scores["coherence"]} for item in ratings.ratings}
    strict = Target(metric="kendall", level="per_group", threshold=0.99, use_lower_bound=True)
    report = ratings_report(ratings, scores, judge="j", model="m", target=strict, **FAST)
    assert report.verdict is CalibrationVerdict.PASS
    assert report.target.describe() == "lower bound of Kendall (per document) >= 0.99"
    with pytest.raises(ValueError, match=r"target\.metric: 'auc' is not one of pearson"):
        ratings_report(ratings, scores, judge="j", model="m", target=Target(metric="auc"))


def test_an_undefined_correlation_fails_with_its_reason(ratings):
    scores = {item.id: {"coherence": 3.0} for item in ratings.ratings}
    report = ratings_report(ratings, scores, judge="flat", model="m", **FAST)
    assert report.verdict is CalibrationVerdict.FAIL
    assert "the judge scores are constant" in report.reason
    assert "NaN" not in report.to_json()


def test_missing_judge_scores_are_counted_and_shown(ratings):
    scores = _perfect_coherence_reversed_fluency(ratings)
    scores[ratings.ratings[0].id]["coherence"] = None
    del scores[ratings.ratings[1].id]
    report = ratings_report(ratings, scores, judge="j", model="m", dimensions=["coherence"], **FAST)
    found = report.dimensions["coherence"].correlations
    assert (found.n, found.missing) == (22, 2)
    assert "| coherence | pooled | 22 (2 missing) |" in report.to_markdown()


def test_judge_answers_must_match_the_dataset(ratings):
    with pytest.raises(ValueError, match=r"judge_scores: ids not in .*'nope'"):
        ratings_report(ratings, {"nope": {"coherence": 1.0}}, judge="j", model="m")
    stray = {ratings.ratings[0].id: {"coherance": 1.0}}
    with pytest.raises(ValueError, match=r"dimensions \['coherance'\] are not among"):
        ratings_report(ratings, stray, judge="j", model="m")


def test_a_report_round_trips_through_json(ratings):
    report = ratings_report(
        ratings,
        _perfect_coherence_reversed_fluency(ratings),
        judge="j",
        model="m",
        latencies=[0.5, 1.5, 2.5],
        **FAST,
    )
    text = report.to_json()
    assert CalibrationReport.from_json(text) == report
    data = json.loads(text)
    assert data["dataset"]["sha256"] == ratings.sha256
    assert data["latency"]["verdict"] == "PASS"
    assert data["created_at"].startswith("2026-01-02T03:04:05")


def test_ratings_plot_writes_a_png(ratings, tmp_path):
    report = ratings_report(
        ratings, _perfect_coherence_reversed_fluency(ratings), judge="j", model="m", **FAST
    )
    path = report.plot(tmp_path / "plots" / "ratings.png")
    assert path.read_bytes()[:8] == PNG_MAGIC


@pytest.fixture
def binary(tmp_path) -> LabelledDataset:
    path = tmp_path / "binary.jsonl"
    labels = [True, False, True, True, False, False, True, False, True, False]
    path.write_text(
        "".join(
            json.dumps({"id": f"b{i}", "context": "c", "output": "o", "label": label}) + "\n"
            for i, label in enumerate(labels)
        ),
        encoding="utf-8",
    )
    return load_labelled(path)


def test_binary_report_judges_balanced_accuracy_and_plots_a_confusion_matrix(binary, tmp_path):
    predictions = {item.id: item.label for item in binary.binary}
    predictions["b0"] = False
    probabilities = {item.id: 0.9 if item.label else 0.1 for item in binary.binary}
    report = binary_report(binary, predictions, probabilities, judge="j", model="m", **FAST)
    assert report.binary is not None
    assert report.binary.auc.value == pytest.approx(1.0)
    assert report.binary.balanced_accuracy.value == pytest.approx((4 / 5 + 1) / 2)
    assert report.verdict is CalibrationVerdict.PASS
    assert report.agreement is not None
    assert report.agreement.alpha_level == "nominal"
    markdown = report.to_markdown()
    assert "| balanced accuracy | 0.90 [" in markdown
    assert "**Verdict: PASS** (balanced accuracy >= 0.70)" in markdown
    assert report.plot(tmp_path / "binary.png").read_bytes()[:8] == PNG_MAGIC
    assert CalibrationReport.from_json(report.to_json()) == report


@pytest.fixture
def pairwise(tmp_path) -> LabelledDataset:
    path = tmp_path / "pairs.jsonl"
    labels = ["A", "B", "tie", "A", "B", "A", "B", "A"]
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"p{i}",
                    "instruction": "i",
                    "output_a": "x",
                    "output_b": "y",
                    "label": label,
                }
            )
            + "\n"
            for i, label in enumerate(labels)
        ),
        encoding="utf-8",
    )
    return load_labelled(path)


def test_pairwise_report_with_position_consistency(pairwise, tmp_path):
    ab = {item.id: item.label for item in pairwise.pairwise}
    ab["p0"] = "B"
    always_a = dict.fromkeys(ab, "A")  # a judge that always prefers whatever comes first
    report = pairwise_report(pairwise, ab, always_a, judge="j", model="m", **FAST)
    assert report.pairwise is not None
    assert report.pairwise.accuracy.value == pytest.approx(6 / 7)
    assert report.pairwise.position_consistency is not None
    assert report.pairwise.position_consistency.value == pytest.approx(4 / 8)  # its B answers
    assert report.verdict is CalibrationVerdict.PASS
    assert "| position consistency | 0.50 [" in report.to_markdown()
    assert report.plot(tmp_path / "pairs.png").read_bytes()[:8] == PNG_MAGIC


def test_compare_reports_shows_drift_and_whether_intervals_overlap(ratings):
    good = ratings_report(
        ratings, _perfect_coherence_reversed_fluency(ratings), judge="j", model="v1", **FAST
    )
    worse_scores = _perfect_coherence_reversed_fluency(ratings)
    for item in ratings.ratings[::2]:
        worse_scores[item.id]["coherence"] = 6 - item.human_scores["coherence"]
    worse = ratings_report(ratings, worse_scores, judge="j", model="v2", **FAST)
    comparison = compare_reports(good, worse)
    assert comparison.same_dataset
    pooled_pearson = next(
        c
        for c in comparison.changes
        if (c.dimension, c.level, c.metric) == ("coherence", "pooled", "pearson")
    )
    assert pooled_pearson.change is not None
    assert pooled_pearson.change < -0.5
    assert pooled_pearson.overlap is False
    unchanged = next(
        c
        for c in comparison.changes
        if (c.dimension, c.level, c.metric) == ("fluency", "pooled", "pearson")
    )
    assert unchanged.change == pytest.approx(0.0)
    assert unchanged.overlap is True
    markdown = comparison.to_markdown()
    assert "# Calibration drift: j (v1, 2026-01-02) -> j (v2, 2026-01-02)" in markdown
    assert "| coherence | pooled | Pearson | +1.00 [+1.00, +1.00] |" in markdown
    assert "**disjoint**" in markdown


def test_reports_of_different_kinds_do_not_compare(ratings, binary):
    rated = ratings_report(
        ratings, _perfect_coherence_reversed_fluency(ratings), judge="j", model="m", **FAST
    )
    labelled = binary_report(
        binary, {item.id: item.label for item in binary.binary}, judge="j", model="m", **FAST
    )
    with pytest.raises(ValueError, match="a binary report cannot be compared with a ratings one"):
        compare_reports(rated, labelled)


def test_a_report_builder_refuses_the_wrong_kind_of_dataset(binary):
    with pytest.raises(ValueError, match="is a binary dataset, not ratings"):
        ratings_report(binary, {}, judge="j", model="m")


def test_summeval_with_a_perfect_judge_reaches_the_target_on_every_dimension():
    dataset = summeval_100()
    scores = {item.id: dict(item.human_scores) for item in dataset.ratings}
    report = ratings_report(
        dataset, scores, judge="oracle", model="none", n_boot=20, created_at=WHEN
    )
    assert report.verdict is CalibrationVerdict.PASS
    assert report.dataset.n == 100
    assert list(report.dimensions) == ["coherence", "consistency", "fluency", "relevance"]


def test_the_top_of_the_scale_is_told_apart_by_auc_and_balanced_accuracy(ratings):
    # Coherence: 4 items are rated 5. The copycat ranks them first (AUC 1) and rounds them
    # to 5 (balanced accuracy 1); the reversed fluency judge ranks the 3 top-rated last.
    report = ratings_report(
        ratings, _perfect_coherence_reversed_fluency(ratings), judge="j", model="m", **FAST
    )
    coherence = report.dimensions["coherence"].top
    assert coherence is not None
    assert coherence.counts.true_positive + coherence.counts.false_negative == 4
    assert coherence.auc.value == pytest.approx(1.0)
    assert coherence.balanced_accuracy.value == pytest.approx(1.0)
    fluency = report.dimensions["fluency"].top
    assert fluency is not None
    assert fluency.auc.value == pytest.approx(0.0)
    assert "| coherence | 4 of 24 | 1.00" in report.to_markdown()
