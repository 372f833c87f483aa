"""Grounding judges: does the output say only what its context supports?

Both judges decompose: the output's claims are extracted, then each is checked against the
context (the retrieved passages or source documents) with a checked quote and P(supported).
`HallucinationJudge` reports each unsupported claim as an issue; `FaithfulnessJudge` scores
the share of claims supported.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jurist.core import (
    MAX_CLAIMS,
    BaseJudge,
    Cause,
    Check,
    Context,
    Count,
    JudgeKind,
    Judgment,
    MinScore,
    Name,
    NonNegative,
    NumericScore,
    Report,
    Status,
    Threshold,
    Usage,
    min_score_of,
)
from jurist.judges import rag
from jurist.judges._ask import ModelRef
from jurist.judges._claims import ClaimExtractor, Claims, Extraction
from jurist.judges._common import ReportedIssue, omitted_when_none
from jurist.judges._criteria import short_name
from jurist.judges._evidence import QuoteMatch
from jurist.judges._support import (
    ClaimCheck,
    ClaimRow,
    ClaimVerifier,
    Support,
    SupportOptions,
    SupportReport,
    VerifyMode,
)
from jurist.llm import Model

UNSUPPORTED = "unsupported_claim"


class ClaimIssue(ReportedIssue):
    """A claim the context does not support, as the hallucination judge reports it."""

    claim: str
    evidence: str
    verdict: Support | None
    p_supported: float | None
    quote_found: bool


class ClaimsReport(Report, kind="claims"):
    """The output's claims checked against its context (hallucination, faithfulness).

    `mode` says how the claims were asked (one call each, or all in one call) and
    `reasked_claims` why claims of a one-call answer were asked again alone.
    `extraction` says how the claims were found; `extraction_fallback` and
    `extraction_error` why the sentences stood in, when they did; `untraceable_claims` what
    the model listed that the output does not say (left out, not checked). The counts are over
    `claims`; the P(supported) figures are over the claims checked (None when none has
    one). The hallucination judge adds `hallucination_count` and `issues`, the faithfulness
    judge its `min_score`.
    """

    mode: VerifyMode
    reasked_claims: tuple[str, ...] | None = omitted_when_none()
    extraction: Extraction
    extraction_fallback: Cause | None = omitted_when_none()
    extraction_error: str | None = omitted_when_none()
    total_claims: int
    supported_claims: int
    unsupported_claims: int
    errored_claims: int
    invented_quotes: int
    p_supported_mean: float | None
    p_supported_min: float | None
    claims: tuple[ClaimRow, ...]
    untraceable_claims: tuple[str, ...] | None = omitted_when_none()
    hallucination_count: int | None = omitted_when_none()
    issues: tuple[ClaimIssue, ...] | None = omitted_when_none()
    min_score: float | None = omitted_when_none()


@dataclass(frozen=True)
class Grounding:
    """An output's claims and their checks against one context."""

    claims: Claims
    report: SupportReport
    source: str

    @property
    def checks(self) -> tuple[ClaimCheck, ...]:
        return self.report.checks

    @property
    def checked(self) -> list[ClaimCheck]:
        return [check for check in self.checks if check.checked]

    @property
    def unsupported(self) -> list[ClaimCheck]:
        return [check for check in self.checked if not check.supported]

    @property
    def errored(self) -> list[ClaimCheck]:
        return [check for check in self.checks if not check.checked]

    @property
    def usage(self) -> Usage | None:
        return Usage.total([self.claims.usage, self.report.usage])

    def metadata(
        self,
        judge: str,
        *,
        hallucination_count: int | None = None,
        issues: tuple[ClaimIssue, ...] | None = None,
        min_score: float | None = None,
    ) -> dict[str, Any]:
        """The judgment's metadata: the judge, the (first) verification call, and the claims
        report with the judge's own fields."""
        probabilities = [c.p_supported for c in self.checked if c.p_supported is not None]
        fallback = self.claims.fallback_cause
        report = ClaimsReport(
            mode=self.report.mode,
            reasked_claims=self.report.reasked or None,
            extraction=self.claims.extraction,
            extraction_fallback=fallback,
            extraction_error=self.claims.fallback_reason if fallback else None,
            total_claims=len(self.checks),
            supported_claims=len(self.checked) - len(self.unsupported),
            unsupported_claims=len(self.unsupported),
            errored_claims=len(self.errored),
            invented_quotes=sum(1 for c in self.checked if c.invented_quote),
            p_supported_mean=sum(probabilities) / len(probabilities) if probabilities else None,
            p_supported_min=min(probabilities) if probabilities else None,
            claims=tuple(check.row() for check in self.checks),
            untraceable_claims=self.claims.untraceable or None,
            hallucination_count=hallucination_count,
            issues=issues,
            min_score=min_score,
        )
        return {"judge": judge, **self.report.call, **report.to_metadata()}


def claim_issue(check: ClaimCheck) -> ClaimIssue:
    """An issue, in the validation service's shape, for a claim the source does not support."""
    if check.exact:
        why = "; ".join(finding.reason for finding in check.exact)
    elif check.verdict is Support.CONTRADICTED:
        why = "the source contradicts it"
    elif check.invented_quote:
        why = "the quote given as evidence is not in the source"
    elif check.verdict is Support.SUPPORTED:
        why = "the source does not clearly support it"
    else:
        why = "the source does not mention it"
    p = f" (P(supported) = {check.p_supported:.2f})" if check.p_supported is not None else ""
    return ClaimIssue(
        severity="warning",
        type=UNSUPPORTED,
        message=f"Unsupported claim: {check.claim} ({why}){p}",
        claim=check.claim,
        evidence=check.evidence,
        verdict=check.verdict,
        p_supported=check.p_supported,
        quote_found=check.quote_found,
        suggestion="Remove the claim or cite a source that supports it",
    )


def claim_checks(grounding: Grounding) -> list[Check]:
    checks = []
    for check in grounding.checks:
        if not check.checked:
            checks.append(
                Check(short_name(check.claim), False, f"ERROR ({check.cause}): {check.error}")
            )
            continue
        p = f"P(supported) = {check.p_supported:.2f}; " if check.p_supported is not None else ""
        quote = {
            QuoteMatch.EXACT: "quote found",
            QuoteMatch.CLOSE: "quote found, a word or two changed",
        }.get(check.quote_match, "quote NOT in source" if check.quote else "no quote")
        verdict = check.verdict.value if check.verdict is not None else "?"
        checks.append(Check(short_name(check.claim), check.supported, f"{verdict}: {p}{quote}"))
    return checks


class GroundingJudge(BaseJudge):
    """What the grounding judges share: inputs from `rag`, claim extraction, verification.

    `together` (default None: chosen from the model) asks about every claim in one call,
    so a verdict costs two calls whatever the number of claims; the embedded model, which
    runs in this process, asks one call per claim instead (see `SupportOptions`). True or
    False forces the mode.
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        threshold: Threshold = 0.5,
        together: bool | None = None,
        quote_first: bool = False,
        require_quote: bool = True,
        exact_checks: bool = True,
        max_claims: Count = MAX_CLAIMS,
        extractor: ClaimExtractor | None = None,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.model = ModelRef(model)
        self.options = SupportOptions(
            threshold, together, quote_first, require_quote, exact=exact_checks
        )
        # A given extractor (shared with other judges of one request) replaces the own one.
        self.extractor = extractor or ClaimExtractor(self.model, max_claims=max_claims)
        self.verifier = ClaimVerifier(self.model, self.options)

    async def ground(self, ctx: Context) -> Grounding | Judgment:
        """The output's claims checked against its context, or an ABSTAIN naming what is
        missing."""
        inputs = rag.require(ctx, "passages", "answer", judge=self.name)
        if isinstance(inputs, Judgment):
            return inputs
        source, answer, question = inputs.context, inputs.answer, inputs.question
        claims = await self.extractor.extract(answer, goal=question)
        report = await self.verifier.verify(claims.claims, source)
        return Grounding(claims, report, source)


def _errored(
    grounding: Grounding, judge: str, metadata: dict[str, Any], checks: Sequence[Check]
) -> Judgment:
    causes = sorted({c.cause for c in grounding.errored if c.cause is not None})
    first = grounding.errored[0]
    return Judgment.error(
        f"{len(grounding.errored)} of {len(grounding.checks)} claims could not be checked "
        f"({', '.join(causes)}): {first.error}",
        checks=checks,
        usage=grounding.usage,
        metadata={**metadata, "cause": causes[0] if len(causes) == 1 else Cause.MIXED},
    )


class HallucinationJudge(GroundingJudge):
    """Does the output contain claims its context does not support?

    Each unsupported claim is an issue (severity warning, type unsupported_claim) with the
    nearest evidence. FAIL when more than `max_unsupported` claims are unsupported; ABSTAIN
    without a context; ERROR when claims could not be checked and none was found
    unsupported. Confidence is 1 - unsupported / total claims, as the validation API defines it;
    the score is the share of claims supported.
    """

    def __init__(
        self, model: Model | str | None = None, *, max_unsupported: NonNegative = 0, **options: Any
    ) -> None:
        super().__init__(model, **options)
        if max_unsupported < 0:
            raise ValueError(f"max_unsupported must be 0 or more, not {max_unsupported}")
        self.max_unsupported = max_unsupported

    async def judge(self, ctx: Context) -> Judgment:
        grounding = await self.ground(ctx)
        if isinstance(grounding, Judgment):
            return grounding
        total = len(grounding.checks)
        unsupported = grounding.unsupported
        metadata = grounding.metadata(
            self.name,
            hallucination_count=len(unsupported),
            issues=tuple(claim_issue(check) for check in unsupported),
        )
        checks = claim_checks(grounding)
        if total == 0:
            return Judgment.ok(
                "the output makes no factual claim to check",
                score=NumericScore(1.0),
                confidence=1.0,
                usage=grounding.usage,
                metadata=metadata,
            )
        confidence = 1.0 - len(unsupported) / total
        if len(unsupported) <= self.max_unsupported and grounding.errored:
            return _errored(grounding, self.name, metadata, checks)
        checked = len(grounding.checked)
        score = NumericScore((checked - len(unsupported)) / checked)
        if len(unsupported) > self.max_unsupported:
            listed = "; ".join(short_name(c.claim) for c in unsupported)
            return Judgment.fail(
                f"{len(unsupported)} of {total} claims unsupported by the context: {listed}",
                score=score,
                checks=checks,
                confidence=confidence,
                usage=grounding.usage,
                metadata=metadata,
            )
        allowed = f"within the allowed {self.max_unsupported}"
        return Judgment.ok(
            (f"all {total} claims" if total > 1 else "the claim") + " supported by the context"
            if not unsupported
            else f"{len(unsupported)} of {total} claims unsupported, {allowed}",
            score=score,
            checks=checks,
            confidence=confidence,
            usage=grounding.usage,
            metadata=metadata,
        )


class FaithfulnessJudge(GroundingJudge):
    """How much of the output does its context support? Score = supported / total claims.

    PASS when the score reaches `min_score`. ABSTAIN without a context, without an output,
    or when the output makes no factual claim (there is nothing to be faithful about). The
    mean P(supported) is kept in metadata as a finer-grained signal for calibration.
    """

    def __init__(
        self, model: Model | str | None = None, *, min_score: MinScore = 0.8, **options: Any
    ) -> None:
        super().__init__(model, **options)
        self.min_score = min_score_of(min_score)

    async def judge(self, ctx: Context) -> Judgment:
        grounding = await self.ground(ctx)
        if isinstance(grounding, Judgment):
            return grounding
        metadata = grounding.metadata(self.name, min_score=self.min_score)
        checks = claim_checks(grounding)
        if not grounding.checks:
            return Judgment.abstain(
                "the output makes no factual claim", usage=grounding.usage, metadata=metadata
            )
        if grounding.errored:
            return _errored(grounding, self.name, metadata, checks)
        total = len(grounding.checks)
        supported = total - len(grounding.unsupported)
        score = supported / total
        decided = [
            c.p_supported if c.supported else 1.0 - c.p_supported
            for c in grounding.checks
            if c.p_supported is not None
        ]
        status = Status.PASS if score >= self.min_score else Status.FAIL
        return Judgment(
            status,
            NumericScore(score),
            f"{supported} of {total} claims supported by the context",
            tuple(checks),
            confidence=sum(decided) / len(decided) if decided else None,
            usage=grounding.usage,
            metadata=metadata,
        )
