"""Calibration: how well a judge agrees with human ratings, and how long it takes.

The statistics are pure and model-free: read a dataset of human judgments
(`jurist.data.load_labelled`), hand in the
judge's answers, and get statistics with bootstrap intervals, a report with a verdict, and
alignments that map judge signals to human scores. `calibrate` runs a judge over a ratings
dataset as a batch run (`jurist.runner`), scoring each item by a method (`method_named`:
the plain rubric, claims, coverage, sentences, anchored, sampled), and keeps the report in
the stored run. Needs the `calibration` extra (numpy, scipy, scikit-learn, krippendorff,
matplotlib).

    dataset = load_labelled("summeval-100.jsonl")
    report = ratings_report(dataset, judge_scores, judge="geval-coherence", model="qwen2.5")
    print(report.to_markdown())         # Pearson per dimension, pooled and per document
    report.plot("calibration.png")

    done = await calibrate(calibration_dataset("summeval-100.jsonl"), "summarization")
"""

from jurist.calibration._align import Alignment, AlignmentValidation, fit_alignment
from jurist.calibration._anchored import Anchor, Anchored, AnchoredJudge
from jurist.calibration._calibrate import (
    REPORT_KEY,
    Calibration,
    calibrate,
    calibration_dataset,
    cost_of,
    cost_per_item,
    fit_rubric_alignment,
    judge_scores,
    rubric_dimensions,
    stored_report,
)
from jurist.calibration._choose import FoldChoice, choose_out_of_fold
from jurist.calibration._decomposed import SentenceChecks
from jurist.calibration._estimates import (
    BinaryMetrics,
    CalibrationVerdict,
    ConfusionCounts,
    Correlations,
    CorrelationSet,
    Estimate,
    GroupCorrelations,
    LatencySummary,
    PairwiseMetrics,
)
from jurist.calibration._method_names import METHODS, method_named
from jurist.calibration._methods import (
    CalibrationMethod,
    ClaimConsistency,
    Coverage,
    Focus,
    MethodScores,
    PlainRubric,
    RubricMethod,
    chosen_dimensions,
    seconds_of,
)
from jurist.calibration._position import (
    PositionLabel,
    PositionPair,
    PositionReport,
    PositionStats,
    calibrate_out_of_fold,
    fit_offset,
    out_of_fold_offsets,
    position_report,
)
from jurist.calibration._report import (
    SIGNED_STATISTICS,
    STATISTIC_TITLES,
    Agreement,
    CalibrationReport,
    CostPerItem,
    DatasetInfo,
    DimensionResult,
    Point,
    Target,
    default_target,
)
from jurist.calibration._report_builders import (
    binary_report,
    pairwise_report,
    ratings_report,
)
from jurist.calibration._report_compare import (
    Change,
    ReportComparison,
    compare_reports,
)
from jurist.calibration._sampled import RubricSample, Sampled, SampledJudge, SampledRubricReport
from jurist.calibration._saved_alignments import (
    AlignedJudge,
    FittedAlignment,
    aligned_scores,
    alignment_path,
    item_signals,
    load_alignment,
    with_saved_alignments,
)
from jurist.calibration._stats import (
    binary_metrics,
    cohen_kappa,
    correlations,
    krippendorff_alpha,
    latency_summary,
    pairwise_metrics,
)

__all__ = [
    "METHODS",
    "REPORT_KEY",
    "SIGNED_STATISTICS",
    "STATISTIC_TITLES",
    "Agreement",
    "AlignedJudge",
    "Alignment",
    "AlignmentValidation",
    "Anchor",
    "Anchored",
    "AnchoredJudge",
    "BinaryMetrics",
    "Calibration",
    "CalibrationMethod",
    "CalibrationReport",
    "CalibrationVerdict",
    "Change",
    "ClaimConsistency",
    "ConfusionCounts",
    "CorrelationSet",
    "Correlations",
    "CostPerItem",
    "Coverage",
    "DatasetInfo",
    "DimensionResult",
    "Estimate",
    "FittedAlignment",
    "Focus",
    "FoldChoice",
    "GroupCorrelations",
    "LatencySummary",
    "MethodScores",
    "PairwiseMetrics",
    "PlainRubric",
    "Point",
    "PositionLabel",
    "PositionPair",
    "PositionReport",
    "PositionStats",
    "ReportComparison",
    "RubricMethod",
    "RubricSample",
    "Sampled",
    "SampledJudge",
    "SampledRubricReport",
    "SentenceChecks",
    "Target",
    "aligned_scores",
    "alignment_path",
    "binary_metrics",
    "binary_report",
    "calibrate",
    "calibrate_out_of_fold",
    "calibration_dataset",
    "choose_out_of_fold",
    "chosen_dimensions",
    "cohen_kappa",
    "compare_reports",
    "correlations",
    "cost_of",
    "cost_per_item",
    "default_target",
    "fit_alignment",
    "fit_offset",
    "fit_rubric_alignment",
    "item_signals",
    "judge_scores",
    "krippendorff_alpha",
    "latency_summary",
    "load_alignment",
    "method_named",
    "out_of_fold_offsets",
    "pairwise_metrics",
    "pairwise_report",
    "position_report",
    "ratings_report",
    "rubric_dimensions",
    "seconds_of",
    "stored_report",
    "with_saved_alignments",
]
