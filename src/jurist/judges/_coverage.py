"""CoverageJudge: how much of what matters in a source does an output keep?

The source's key facts are extracted once per source (four summaries of one article pay
for one extraction) and each is checked against the output as if the output were the
source: P(covered) is read at the verdict's token. The model writes the verdict alone, no
quote: on human relevance ratings of SummEval development summaries the verdict alone
ranked as well as with a quote copied from the output (per-article Spearman +0.50 against
+0.42, bench/coverage_quotes.py) in under half the time; `quotes=True` asks for the quote
and requires it. The score is the mean P(covered): relevance measured by coverage instead
of one holistic question.

With `off_topic=True` the output's own statements are also asked whether they are about
those key facts (`jurist.judges._focus`), and the score is the harmonic mean of coverage
and focus: recall and precision of the important content, as ROUGE-F or BERTScore-F
combine theirs, so neither a summary that keeps the key facts among padding nor a focused
one that misses most of them scores well.
"""

from typing import Any

from jurist.core import (
    KEY_FACTS,
    BaseJudge,
    Cause,
    Context,
    Count,
    JudgeKind,
    Judgment,
    MinScore,
    Name,
    NumericScore,
    Report,
    Usage,
    min_score_of,
)
from jurist.judges._ask import ModelRef
from jurist.judges._claims import Extraction
from jurist.judges._common import omitted_when_none
from jurist.judges._focus import (
    FocusCheck,
    KeyFacts,
    OffTopicIssue,
    StatementRow,
    Statements,
    failed_judgment,
    focus_rows,
)
from jurist.judges._support import ClaimRow, ClaimVerifier, SupportOptions
from jurist.llm import Model


class CoverageReport(Report, kind="coverage"):
    """How many key facts the source gave and how they were found, each fact's check against
    the output (as a claim checked against a source), how many are covered and the mean
    P(covered); `cause` when a fact or a statement could not be checked.

    With the off-topic check, also the focus report's statements, their count off-topic,
    mean P(on topic) and threshold, an issue per off-topic statement, and the relevance
    (the harmonic mean of coverage and focus)."""

    key_facts: int
    extraction: Extraction
    facts: tuple[ClaimRow, ...]
    covered_facts: int | None = omitted_when_none()
    p_covered_mean: float | None = omitted_when_none()
    statements_from: str | None = omitted_when_none()
    statements: tuple[StatementRow, ...] | None = omitted_when_none()
    off_topic_statements: int | None = omitted_when_none()
    # Written whenever the statements were checked, None included (no statement to check).
    p_on_topic_mean: float | None = None
    on_topic_threshold: float | None = omitted_when_none()
    issues: tuple[OffTopicIssue, ...] | None = omitted_when_none()
    relevance: float | None = omitted_when_none()
    cause: Cause | None = omitted_when_none()

    def to_metadata(self) -> dict[str, Any]:
        written = super().to_metadata()
        if self.statements is None:
            del written["p_on_topic_mean"]
        return written


def relevance_f1(coverage: float, focus: float) -> float:
    """The harmonic mean of coverage (recall of the key facts) and focus (the share of
    the output on them); 0 when either is 0."""
    if coverage <= 0.0 or focus <= 0.0:
        return 0.0
    return 2.0 * coverage * focus / (coverage + focus)


class CoverageJudge(BaseJudge):
    """Score = mean P(covered) over the source's key facts, or with `off_topic` its
    harmonic mean with the focus (mean P(on topic) of the output's statements); PASS when
    it reaches `min_score`. ABSTAIN without a source or an output, or when no key fact
    could be found; ERROR when a fact or a statement could not be checked."""

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        facts: Count = KEY_FACTS,
        min_score: MinScore = 0.5,
        off_topic: bool = False,
        statements: Statements = "claims",
        key_facts: KeyFacts | None = None,
        quotes: bool = False,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name or "coverage", description)
        reference = ModelRef(model)
        self.key_facts = key_facts or KeyFacts(reference, facts)
        # A key fact the output leaves out is uncovered, not contradicted: the exact checks,
        # which treat a number or name the text lacks as a mismatch, are for claims.
        # `quotes=False` asks for each fact's verdict alone: the quote from the output is
        # most of the tokens a check decodes, and no exact check reads it here.
        self.verifier = ClaimVerifier(reference, SupportOptions(exact=False, quote=quotes))
        self.focus = FocusCheck(reference, statements=statements) if off_topic else None
        self.min_score = min_score_of(min_score)

    async def judge(self, ctx: Context) -> Judgment:
        found = await self.key_facts.for_context(ctx, judge=self.name)
        if isinstance(found, Judgment):
            return found
        inputs, facts = found
        usage_parts: list[Usage | None] = [facts.usage]
        verified = await self.verifier.verify(facts.claims, inputs.answer)
        usage_parts.append(verified.usage)
        report = CoverageReport(
            key_facts=len(facts.claims),
            extraction=facts.extraction,
            facts=tuple(check.row() for check in verified.checks),
        )
        failed = [check for check in verified.checks if check.cause is not None]
        if failed:
            return Judgment.error(
                f"{len(failed)} of {len(verified.checks)} key facts could not be checked: "
                f"{failed[0].error}",
                usage=Usage.total(usage_parts),
                metadata={
                    "judge": self.name,
                    **report.model_copy(update={"cause": failed[0].cause}).to_metadata(),
                },
            )
        probabilities = [
            check.p_supported if check.p_supported is not None else float(check.supported)
            for check in verified.checks
        ]
        coverage = sum(probabilities) / len(probabilities)
        covered = sum(1 for check in verified.checks if check.supported)
        report = report.model_copy(update={"covered_facts": covered, "p_covered_mean": coverage})
        reasoning = (
            f"the output covers {covered} of the source's {len(verified.checks)} key facts "
            f"(mean P(covered) {coverage:.2f})"
        )
        score, checks = coverage, []
        if self.focus is not None:
            focused = await self.focus.check(
                inputs.answer, facts.claims, inputs.question, judge=self.name
            )
            usage_parts.append(focused.usage)
            report = report.model_copy(update=focused.fields())
            if focused.failed:
                return failed_judgment(focused, Usage.total(usage_parts), self.name, report)
            checks = focus_rows(focused)
            if focused.focus is not None:
                score = relevance_f1(coverage, focused.focus)
                off = len(focused.off_topic)
                reasoning += (
                    f"; {off} of its {len(focused.checks)} statements are off-topic (mean "
                    f"P(on topic) {focused.focus:.2f}); relevance {score:.2f}"
                )
            report = report.model_copy(update={"relevance": score})
        decide = Judgment.ok if score >= self.min_score else Judgment.fail
        return decide(
            reasoning,
            score=NumericScore(score),
            confidence=None,
            checks=checks,
            usage=Usage.total(usage_parts),
            metadata={"judge": self.name, **report.to_metadata()},
        )
