"""Calibration: how well a judge agrees with human ratings (issue #7, spec QV-03/QV-04).

Pure and model-free: read a dataset of human judgments, hand in the judge's answers, and
get statistics with bootstrap intervals, a report with a verdict, and alignments that map
judge signals to human scores. Needs the `calibration` extra (numpy, scipy, scikit-learn,
krippendorff, matplotlib).

    dataset = load_dataset("summeval-100.jsonl")
    report = ratings_report(dataset, judge_scores, judge="geval-coherence", model="qwen2.5")
    print(report.to_markdown())         # Pearson per dimension, pooled and per document
    report.plot("calibration.png")
"""

from jurist.calibration._align import Alignment, AlignmentValidation, fit_alignment
from jurist.calibration._choose import FoldChoice, choose_out_of_fold
from jurist.calibration._datasets import (
    BinaryItem,
    Dataset,
    DatasetError,
    DatasetItem,
    DatasetKind,
    PairwiseItem,
    RatingItem,
    load_dataset,
)
from jurist.calibration._position import (
    PositionPair,
    PositionReport,
    PositionStats,
    calibrate_out_of_fold,
    fit_offset,
    out_of_fold_offsets,
    position_report,
)
from jurist.calibration._report import (
    Agreement,
    CalibrationReport,
    Change,
    CostPerItem,
    DatasetInfo,
    DimensionResult,
    Point,
    ReportComparison,
    Target,
    binary_report,
    compare_reports,
    default_target,
    pairwise_report,
    ratings_report,
)
from jurist.calibration._stats import (
    BinaryMetrics,
    ConfusionCounts,
    Correlations,
    CorrelationSet,
    Estimate,
    GroupCorrelations,
    LatencySummary,
    PairwiseMetrics,
    Verdict,
    binary_metrics,
    cohen_kappa,
    correlations,
    krippendorff_alpha,
    latency_summary,
    pairwise_metrics,
)

__all__ = [
    "Agreement",
    "Alignment",
    "AlignmentValidation",
    "BinaryItem",
    "BinaryMetrics",
    "CalibrationReport",
    "Change",
    "ConfusionCounts",
    "CorrelationSet",
    "Correlations",
    "CostPerItem",
    "Dataset",
    "DatasetError",
    "DatasetInfo",
    "DatasetItem",
    "DatasetKind",
    "DimensionResult",
    "Estimate",
    "FoldChoice",
    "GroupCorrelations",
    "LatencySummary",
    "PairwiseItem",
    "PairwiseMetrics",
    "Point",
    "PositionPair",
    "PositionReport",
    "PositionStats",
    "RatingItem",
    "ReportComparison",
    "Target",
    "Verdict",
    "binary_metrics",
    "binary_report",
    "calibrate_out_of_fold",
    "choose_out_of_fold",
    "cohen_kappa",
    "compare_reports",
    "correlations",
    "default_target",
    "fit_alignment",
    "fit_offset",
    "krippendorff_alpha",
    "latency_summary",
    "load_dataset",
    "out_of_fold_offsets",
    "pairwise_metrics",
    "pairwise_report",
    "position_report",
    "ratings_report",
]
