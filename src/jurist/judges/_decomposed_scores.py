"""A decomposed judgment on the 1-5 scale of a rubric criterion (and of human ratings).

The claims, coverage, focus and sentence judges answer many small questions, each read as a
probability; one number per dimension comes out: 1 + 4 x an aggregate of those
probabilities. The rubric judge scores its decomposed criteria with these readings, and
calibration's methods read their judgments with the very same ones, so what is measured is
what judges.
"""

from dataclasses import dataclass, field

from jurist.judges._coverage import CoverageReport
from jurist.judges._focus import FocusReport
from jurist.judges._grounding import ClaimsReport
from jurist.judges._sentences import SentencesReport
from jurist.judges._support import Support

CONSISTENCY = "consistency"
RELEVANCE = "relevance"
# How the claims' P(supported) become one number: the least (one unsupported claim makes a
# summary inconsistent, which is how raters read it), the mean, or the share supported.
CLAIM_AGGREGATES = ("min", "mean", "share")


@dataclass(frozen=True)
class DimensionScores:
    """A score per dimension on 1..5 (None: the judgment cannot tell, e.g. an output with
    no claim to check) and the signals behind it, named `DIMENSION.signal`, that an
    alignment may map."""

    scores: dict[str, float | None]
    signals: dict[str, float] = field(default_factory=dict)


def on_scale(probability: float) -> float:
    """A probability (0..1) on the 1-5 scale: 1 + 4 x p."""
    return 1.0 + 4.0 * probability


def claims_scores(
    report: ClaimsReport | None, aggregate: str = "min", *, dimension: str = CONSISTENCY
) -> DimensionScores:
    """Consistency from the output's claims checked against the source: 1 + 4 x the least
    P(supported) (or the mean, or the share of claims supported)."""
    if aggregate not in CLAIM_AGGREGATES:
        raise ValueError(f"aggregate must be one of {CLAIM_AGGREGATES}, got {aggregate!r}")
    if report is None or report.total_claims == 0:
        return DimensionScores({dimension: None})
    total, supported = report.total_claims, report.supported_claims
    signals: dict[str, float] = {f"{dimension}.claims": float(total)}
    if report.p_supported_min is not None:
        signals[f"{dimension}.p_min"] = report.p_supported_min
    if report.p_supported_mean is not None:
        signals[f"{dimension}.p_mean"] = report.p_supported_mean
    signals[f"{dimension}.share"] = supported / total
    signals[f"{dimension}.unsupported"] = float(total - supported)
    # The sharpest evidence a claim check gives: the model said "contradicted", or quoted a
    # sentence the source does not hold.
    signals[f"{dimension}.invented_quotes"] = float(report.invented_quotes)
    signals[f"{dimension}.contradicted"] = float(
        sum(1 for c in report.claims if c.verdict is Support.CONTRADICTED)
    )
    key = f"{dimension}.share" if aggregate == "share" else f"{dimension}.p_{aggregate}"
    value = signals.get(key)
    return DimensionScores({dimension: None if value is None else on_scale(value)}, signals)


def focus_signals(
    report: FocusReport | CoverageReport, dimension: str = RELEVANCE
) -> dict[str, float]:
    """The focus a report holds (FocusJudge's, or CoverageJudge's with off_topic)."""
    focus, statements = report.p_on_topic_mean, report.statements
    if focus is None or statements is None:
        return {}
    signals = {f"{dimension}.focus": focus, f"{dimension}.statements": float(len(statements))}
    if report.off_topic_statements is not None:
        signals[f"{dimension}.off_topic"] = float(report.off_topic_statements)
    return signals


def coverage_scores(
    report: CoverageReport | None, *, dimension: str = RELEVANCE
) -> DimensionScores:
    """Relevance from the source's key facts the output covers: 1 + 4 x the mean
    P(covered), or with the off-topic check 1 + 4 x its harmonic mean with the focus."""
    if report is None or report.p_covered_mean is None:
        return DimensionScores({dimension: None})
    coverage, facts = report.p_covered_mean, report.key_facts
    signals = {f"{dimension}.coverage": coverage, f"{dimension}.key_facts": float(facts)}
    if report.covered_facts is not None:
        signals[f"{dimension}.covered_share"] = report.covered_facts / facts
    signals |= focus_signals(report, dimension)
    value = report.relevance if report.relevance is not None else coverage
    return DimensionScores({dimension: on_scale(value)}, signals)


def focus_scores(report: FocusReport | None, *, dimension: str = RELEVANCE) -> DimensionScores:
    """Relevance from focus alone: 1 + 4 x the mean P(on topic) of the output's claims."""
    signals = focus_signals(report, dimension) if report is not None else {}
    focus = signals.get(f"{dimension}.focus")
    return DimensionScores({dimension: None if focus is None else on_scale(focus)}, signals)


def sentence_scores(report: SentencesReport | None) -> DimensionScores:
    """Coherence and fluency, whichever were asked, each 1 + 4 x the mean P(yes) of its
    sentence checks (None for a dimension not every check of which was answered)."""
    scores: dict[str, float | None] = {}
    signals: dict[str, float] = {}
    if report is None:
        return DimensionScores(scores, signals)
    for dimension in report.dimensions:
        result = report.dimension(dimension)
        if result is None:
            scores[dimension] = None
            continue
        scores[dimension] = on_scale(result.p_mean)
        signals[f"{dimension}.p_mean"] = result.p_mean
        signals[f"{dimension}.p_min"] = result.p_min
        signals[f"{dimension}.checks"] = float(result.checks)
    return DimensionScores(scores, signals)
