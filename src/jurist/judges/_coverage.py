"""CoverageJudge: how much of what matters in a source does an output keep?

The source's key facts are extracted once per source (four summaries of one article pay
for one extraction) and each is checked against the output as if the output were the
source: a fact the output states, with a quote from the output, is covered. The score is
the mean P(covered): relevance measured by coverage instead of one holistic question.
"""

import hashlib
from typing import Any

from jurist.core import BaseJudge, Context, JudgeKind, Judgment, NumericScore, Usage
from jurist.judges import rag
from jurist.judges._claims import ClaimExtractor, Claims
from jurist.judges._model import ModelRef
from jurist.judges._support import ClaimVerifier
from jurist.llm import Model

KEY_FACTS = 8  # a short summary keeps a handful; more would reward long outputs


class CoverageJudge(BaseJudge):
    """Score = mean P(covered) over the source's key facts; PASS when it reaches `min_score`.
    ABSTAIN without a source or an output, or when no key fact could be found; ERROR when
    a fact could not be checked."""

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        facts: int = KEY_FACTS,
        min_score: float = 0.5,
        name: str | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name or "coverage", description)
        if not 0.0 <= min_score <= 1.0:
            raise ValueError(f"min_score must lie between 0 and 1, not {min_score}")
        reference = ModelRef(model)
        self.extractor = ClaimExtractor(reference, max_claims=facts, template="key_facts")
        self.verifier = ClaimVerifier(reference)
        self.min_score = min_score
        # Key facts by the source's sha256: one extraction per source in this process.
        self._facts: dict[str, Claims] = {}

    async def key_facts(self, source: str, goal: str = "") -> Claims:
        key = hashlib.sha256(f"{goal}\0{source}".encode()).hexdigest()
        found = self._facts.get(key)
        if found is None:
            found = self._facts[key] = await self.extractor.extract(source, goal=goal)
            return found
        return Claims(found.claims, found.extraction, None, found.fallback_cause)

    async def judge(self, ctx: Context) -> Judgment:
        inputs = rag.require(ctx, "passages", "answer", judge=self.name)
        if isinstance(inputs, Judgment):
            return inputs
        facts = await self.key_facts(inputs.context, inputs.question)
        usage_parts: list[Usage | None] = [facts.usage]
        if not facts.claims:
            return Judgment.abstain(
                "no key fact could be found in the source", usage=Usage.total(usage_parts)
            )
        report = await self.verifier.verify(facts.claims, inputs.answer)
        usage_parts.append(report.usage)
        usage = Usage.total(usage_parts)
        metadata: dict[str, Any] = {
            "judge": self.name,
            "key_facts": len(facts.claims),
            "extraction": facts.extraction.value,
            "facts": [check.as_dict() for check in report.checks],
        }
        failed = [check for check in report.checks if check.cause is not None]
        if failed:
            return Judgment.error(
                f"{len(failed)} of {len(report.checks)} key facts could not be checked: "
                f"{failed[0].error}",
                usage=usage,
                metadata={**metadata, "cause": failed[0].cause},
            )
        probabilities = [
            check.p_supported if check.p_supported is not None else float(check.supported)
            for check in report.checks
        ]
        coverage = sum(probabilities) / len(probabilities)
        covered = sum(1 for check in report.checks if check.supported)
        metadata |= {"covered_facts": covered, "p_covered_mean": coverage}
        reasoning = (
            f"the output covers {covered} of the source's {len(report.checks)} key facts "
            f"(mean P(covered) {coverage:.2f})"
        )
        decide = Judgment.ok if coverage >= self.min_score else Judgment.fail
        return decide(
            reasoning,
            score=NumericScore(coverage),
            confidence=None,
            usage=usage,
            metadata=metadata,
        )
