"""FactChecker: the output's claims checked against trusted sources in a knowledge base.

Unlike the grounding judges, the context is not given: for each claim the retriever finds
passages in the trusted sources the request names, and the claim is checked against those.
A claim the passages do not support with P(supported) >= the threshold is an unverified
fact, reported with what was searched.
"""

import functools
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
    Name,
    NumericScore,
    Report,
    Steps,
    Threshold,
    Usage,
    checked,
    gather_ordered,
)
from jurist.judges import rag
from jurist.judges._ask import ModelRef
from jurist.judges._claims import ClaimExtractor, Claims, Extraction
from jurist.judges._common import ReportedIssue, ReportRow, omitted_when_none
from jurist.judges._criteria import short_name
from jurist.judges._evidence import QuoteMatch, match_quote, normalise
from jurist.judges._retrieval import Passage, Retriever, UnknownSource
from jurist.judges._support import ClaimCheck, ClaimRow, ClaimVerifier, Support, SupportOptions
from jurist.llm import Model
from jurist.settings import get_settings

SOURCES_KEY = "trusted_sources"
UNVERIFIED = "unverified_fact"


class PassageRow(ReportRow):
    """Where a passage found for a claim came from, and the retriever's score of it."""

    collection: str
    document: str
    chunk: int
    score: float


class FactRow(ClaimRow):
    """A claim's check against the passages found for it; `evidence_document` is the
    collection/document its quote came from, when the quote was found."""

    verified: bool
    evidence_document: str | None
    passages: tuple[PassageRow, ...]


class FactSearch(ReportRow):
    """What was searched for an unverified fact: the sources, the query, the documents."""

    sources: str
    query: str
    documents: tuple[str, ...]


class FactIssue(ReportedIssue):
    """A claim the trusted sources do not verify."""

    claim: str
    evidence: str
    searched: FactSearch


class FactsReport(Report, kind="facts"):
    """The output's claims checked against trusted sources: the `sources` searched (none:
    every collection), the `threshold` P(supported) a claim needed, how the claims were
    found, the counts, every claim's row and an issue per unverified claim."""

    threshold: float
    sources: tuple[str, ...]
    extraction: Extraction
    extraction_fallback: Cause | None = omitted_when_none()
    total_claims: int
    verified_claims: int
    unverified_claims: int
    errored_claims: int
    claims: tuple[FactRow, ...]
    issues: tuple[FactIssue, ...]


@dataclass(frozen=True)
class FactCheck:
    """One claim, the passages found for it and how it was checked against them."""

    check: ClaimCheck
    passages: tuple[Passage, ...]

    @property
    def verified(self) -> bool:
        return self.check.checked and self.check.supported

    @functools.cached_property
    def evidence_document(self) -> str | None:
        if not self.check.quote_found:
            return None
        for passage in self.passages:
            if match_quote(self.check.quote, passage.text) is not QuoteMatch.NONE:
                return f"{passage.collection}/{passage.document}"
        return None

    def row(self) -> FactRow:
        return FactRow(
            **dict(self.check.row()),
            verified=self.verified,
            evidence_document=self.evidence_document,
            passages=tuple(
                PassageRow(
                    collection=p.collection, document=p.document, chunk=p.chunk, score=p.score
                )
                for p in self.passages
            ),
        )


def _sources(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or not all(isinstance(s, str) for s in value):
        raise ValueError(f"{SOURCES_KEY} must be a list of collection names or document ids")
    names = [s.strip() for s in value]
    if any(not s for s in names):
        raise ValueError(f"{SOURCES_KEY} holds an empty name")
    return names


class FactChecker(BaseJudge):
    """Checks each factual claim of the output against trusted sources.

    The sources are the context's metadata `trusted_sources` when given, else the ones this
    checker was built with (collection names or document ids; none means every collection).
    For each claim, `passages` passages are retrieved and the claim is verified against
    them. PASS when every claim is verified; each unverified claim is a warning issue (type
    unverified_fact) naming the claim and what was searched. An unknown source is an ERROR
    (cause "unknown_source") that names it. Score and confidence are the share verified.
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        retriever: Retriever,
        model: Model | str | None = None,
        *,
        sources: Sequence[str] = (),
        threshold: Threshold | None = None,
        passages: Count = 3,
        max_claims: Count = MAX_CLAIMS,
        require_quote: bool = True,
        exact_checks: bool = True,
        extractor: ClaimExtractor | None = None,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        checked(passages, Count, "passages")
        self.retriever = retriever
        self.sources = tuple(_sources(list(sources)))
        self.threshold = get_settings().fact_check_threshold if threshold is None else threshold
        self.passages = passages
        self.model = ModelRef(model)
        # A given extractor (shared with other judges of one request) replaces the own one.
        self.extractor = extractor or ClaimExtractor(self.model, max_claims=max_claims)
        self.verifier = ClaimVerifier(
            self.model,
            SupportOptions(self.threshold, require_quote=require_quote, exact=exact_checks),
        )

    async def judge(self, ctx: Context) -> Judgment:
        base = {"judge": self.name, "threshold": self.threshold}
        try:
            sources = _sources(ctx.metadata.get(SOURCES_KEY, list(self.sources)))
            answer = rag.answer(ctx)
        except ValueError as exc:
            return Judgment.error(str(exc), exc, metadata={**base, "cause": Cause.BAD_INPUT})
        base["sources"] = sources
        try:
            await self.retriever.check_sources(sources)
        except UnknownSource as exc:
            return Judgment.error(
                str(exc),
                exc,
                metadata={**base, "cause": Cause.UNKNOWN_SOURCE, "source": exc.source},
            )
        if not answer:
            return Judgment.abstain("no output to fact-check", metadata=base)
        claims = await self.extractor.extract(answer, goal=rag.question(ctx))
        results = await gather_ordered(
            (self._check(claim, sources) for claim in claims.claims),
            steps=Steps("claim", len(claims.claims)),
        )
        facts = [fact for fact, _ in results]
        usage = Usage.total([claims.usage, *(u for _, u in results)])
        return self._judgment(facts, claims, sources=sources, usage=usage)

    async def _check(self, claim: str, sources: list[str]) -> tuple[FactCheck, Usage | None]:
        passages = tuple(await self.retriever.retrieve(claim, sources, self.passages))
        if not passages:
            nothing = ClaimCheck(claim, None, None, False, method="none")
            return FactCheck(nothing, ()), None
        source = "\n\n".join(p.text for p in passages)
        report = await self.verifier.verify([claim], source)
        return FactCheck(report.checks[0], passages), report.usage

    def _judgment(
        self, facts: list[FactCheck], claims: Claims, *, sources: list[str], usage: Usage | None
    ) -> Judgment:
        searched = ", ".join(sources) if sources else "every collection"
        unverified = [f for f in facts if f.check.checked and not f.verified]
        errored = [f for f in facts if not f.check.checked]
        report = FactsReport(
            threshold=self.threshold,
            sources=tuple(sources),
            extraction=claims.extraction,
            extraction_fallback=claims.fallback_cause,
            total_claims=len(facts),
            verified_claims=sum(1 for f in facts if f.verified),
            unverified_claims=len(unverified),
            errored_claims=len(errored),
            claims=tuple(f.row() for f in facts),
            issues=tuple(self._issue(f, searched) for f in unverified),
        )
        metadata = {"judge": self.name, **report.to_metadata()}
        checks = [self._row(f) for f in facts]
        if not facts:
            return Judgment.ok(
                "the output makes no factual claim to check",
                score=NumericScore(1.0),
                confidence=1.0,
                usage=usage,
                metadata=metadata,
            )
        verified = len(facts) - len(unverified) - len(errored)
        if errored and not unverified:
            causes = sorted({f.check.cause for f in errored if f.check.cause is not None})
            return Judgment.error(
                f"{len(errored)} of {len(facts)} claims could not be checked "
                f"({', '.join(causes)}): {errored[0].check.error}",
                checks=checks,
                usage=usage,
                metadata={**metadata, "cause": causes[0] if len(causes) == 1 else Cause.MIXED},
            )
        share = verified / len(facts)
        if unverified:
            return Judgment.fail(
                f"{len(unverified)} of {len(facts)} claims not verified in {searched}: "
                + "; ".join(short_name(f.check.claim) for f in unverified),
                score=NumericScore(share),
                checks=checks,
                confidence=share,
                usage=usage,
                metadata=metadata,
            )
        return Judgment.ok(
            (f"all {len(facts)} claims" if len(facts) > 1 else "the claim")
            + f" verified in {searched}",
            score=NumericScore(1.0),
            checks=checks,
            confidence=1.0,
            usage=usage,
            metadata=metadata,
        )

    def _issue(self, fact: FactCheck, searched: str) -> FactIssue:
        check = fact.check
        if not fact.passages:
            why = "no passage in the trusted sources matches it"
        elif check.verdict is Support.CONTRADICTED:
            why = "the trusted sources contradict it"
        elif check.invented_quote:
            why = "the quote given as evidence is not in the passages"
        else:
            why = "the passages found do not support it"
        p = f", P(supported) = {check.p_supported:.2f}" if check.p_supported is not None else ""
        return FactIssue(
            severity="warning",
            type=UNVERIFIED,
            message=f"Cannot verify fact: {check.claim} ({why}{p})",
            claim=check.claim,
            evidence=check.evidence,
            searched=FactSearch(
                sources=searched,
                query=normalise(check.claim),
                documents=tuple(f"{p.collection}/{p.document}" for p in fact.passages),
            ),
            suggestion="Provide a source or mark the statement as unverified",
        )

    def _row(self, fact: FactCheck) -> Check:
        check = fact.check
        name = short_name(check.claim)
        if not check.checked:
            return Check(name, False, f"ERROR ({check.cause}): {check.error}")
        if not fact.passages:
            return Check(name, False, "nothing found in the trusted sources")
        p = f"P(supported) = {check.p_supported:.2f}" if check.p_supported is not None else "stated"
        where = fact.evidence_document
        return Check(
            name, fact.verified, f"{p}" + (f"; quote from {where}" if where else "; no quote found")
        )
