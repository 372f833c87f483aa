"""Focus: does an output keep to what matters in its source, or wander off it?

Coverage (`CoverageJudge`) asks how many of the source's key facts an output keeps; it
cannot see what else the output says. Human relevance ratings also punish the rest: minor
details, background and padding where the important content should be. So each statement
of the output (its claims, or its sentences) is asked whether it is about one of the
source's key facts, one yes/no question read as P(yes). The focus is the mean P(on topic);
a statement under the threshold is an off-topic issue.

The key facts are the same ones coverage checks, extracted once per source (`KeyFacts`),
so coverage and focus together cost one extraction per source, the coverage checks, and
one short call per statement.
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from jurist.core import (
    KEY_FACTS,
    MAX_CLAIMS,
    BaseJudge,
    Check,
    Context,
    Count,
    JudgeKind,
    Judgment,
    MinScore,
    Name,
    NumericScore,
    SingleFlight,
    Status,
    Threshold,
    Usage,
    checked,
    gather_ordered,
    min_score_of,
    threshold_of,
)
from jurist.judges import rag
from jurist.judges._ask import CallPolicy, ModelRef
from jurist.judges._claims import ClaimExtractor, Claims, split_sentences
from jurist.judges._criteria import judge_criterion, short_name
from jurist.llm import Model
from jurist.prompts import PromptTemplate

ON_TOPIC = "The statement is about one of the source's important points"
OFF_TOPIC = "off_topic"
Statements = Literal["claims", "sentences"]
STATEMENTS: tuple[Statements, ...] = ("claims", "sentences")


def _unpaid(found: Claims) -> Claims:
    return Claims(found.claims, found.extraction, None, found.fallback_cause)


class KeyFacts:
    """The key facts of a source for a goal, extracted once per (goal, source) in this
    process: four summaries of one article pay for one extraction, and a coverage and a
    focus check of one summary share it."""

    def __init__(self, model: ModelRef, facts: Count = KEY_FACTS) -> None:
        self.extractor = ClaimExtractor(model, max_claims=facts, template="key_facts")
        # Two judgments of one source arriving together extract once, and other sources do
        # not wait for it; a failed extraction is tried again by the next judgment.
        self._found: SingleFlight[str, Claims] = SingleFlight(keep="results", shared=_unpaid)

    async def of(self, source: str, goal: str = "") -> Claims:
        """The key facts; their usage is reported by the first call only, so a run's cost
        counts the extraction once."""
        key = hashlib.sha256(f"{goal}\0{source}".encode()).hexdigest()
        return await self._found(key, lambda: self.extractor.extract(source, goal=goal))

    async def for_context(
        self, ctx: Context, *, judge: str
    ) -> tuple[rag.RagInputs, Claims] | Judgment:
        """The context's source and output with the source's key facts, or the judgment to
        return instead: ABSTAIN without a source or an output, or when the source yields
        no key fact (ERROR for a malformed context)."""
        inputs = rag.require(ctx, "passages", "answer", judge=judge)
        if isinstance(inputs, Judgment):
            return inputs
        facts = await self.of(inputs.context, inputs.question)
        if not facts.claims:
            return Judgment.abstain(
                "no key fact could be found in the source",
                usage=facts.usage,
                metadata={"judge": judge, "key_facts": 0, "extraction": facts.extraction.value},
            )
        return inputs, facts


@dataclass(frozen=True)
class StatementCheck:
    """One statement of the output and whether it is on topic. `p_on_topic` is None when
    the check failed, and `cause`/`error` say why."""

    statement: str
    p_on_topic: float | None
    reason: str
    method: str
    cause: str | None = None
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "statement": self.statement,
            "p_on_topic": self.p_on_topic,
            "reason": self.reason,
            "method": self.method,
        }
        if self.cause is not None:
            shown.update(cause=self.cause, error=self.error)
        return shown


@dataclass(frozen=True)
class FocusReport:
    """Every statement's check, how the statements were found and what it all cost."""

    checks: tuple[StatementCheck, ...]
    found_by: str  # "model", "sentences", or the claim extraction's fallback
    threshold: float
    usage: Usage | None

    @property
    def failed(self) -> list[StatementCheck]:
        return [check for check in self.checks if check.p_on_topic is None]

    @property
    def off_topic(self) -> list[StatementCheck]:
        return [
            check
            for check in self.checks
            if check.p_on_topic is not None and check.p_on_topic < self.threshold
        ]

    @property
    def focus(self) -> float | None:
        """Mean P(on topic); None when there is no statement or a check failed."""
        if not self.checks or self.failed:
            return None
        return sum(c.p_on_topic or 0.0 for c in self.checks) / len(self.checks)

    def metadata(self) -> dict[str, Any]:
        return {
            "statements_from": self.found_by,
            "statements": [check.as_dict() for check in self.checks],
            "off_topic_statements": len(self.off_topic),
            "p_on_topic_mean": self.focus,
            "on_topic_threshold": self.threshold,
        }

    def issues(self) -> list[dict[str, Any]]:
        return [
            {
                "severity": "warning",
                "type": OFF_TOPIC,
                "message": f"Off-topic: {check.statement} (P(on topic) = "
                f"{check.p_on_topic:.2f}): {check.reason}",
                "statement": check.statement,
                "suggestion": "Replace it with one of the source's key points",
            }
            for check in self.off_topic
        ]


class FocusCheck:
    """Checks an output's statements against a source's key facts. Shared by FocusJudge and
    CoverageJudge(off_topic=True), which must ask it the same way."""

    def __init__(
        self,
        model: ModelRef,
        *,
        statements: Statements = "claims",
        threshold: Threshold = 0.5,
        max_statements: Count = MAX_CLAIMS,
    ) -> None:
        if statements not in STATEMENTS:
            raise ValueError(f"statements must be one of {list(STATEMENTS)}, not {statements!r}")
        checked(max_statements, Count, "max_statements")
        self.model = model
        self.statements = statements
        self.threshold = threshold_of(threshold)
        self.max_statements = max_statements
        self.extractor = ClaimExtractor(model, max_claims=max_statements)
        self.template = PromptTemplate.named("statement_on_topic")
        self.policy = CallPolicy.from_settings()

    async def check(
        self, output: str, facts: Sequence[str], goal: str, *, judge: str
    ) -> FocusReport:
        usage: list[Usage | None] = []
        if self.statements == "claims":
            found = await self.extractor.extract(output, goal=goal)
            usage.append(found.usage)
            statements = list(found.claims)
            found_by = (
                f"sentences ({found.fallback_cause})"
                if found.fallback_cause
                else found.extraction.value
            )
        else:
            statements, found_by = split_sentences(output)[: self.max_statements], "sentences"
        # Created in order, so a one-at-a-time runtime answers them in order and every call
        # reuses the cached key facts at the head of its prompt.
        results = await gather_ordered(
            judge_criterion(
                Context(goal, output=statement, context=tuple(facts)),
                ON_TOPIC,
                self.model,
                threshold=self.threshold,
                judge=judge,
                policy=self.policy,
                template=self.template,
            )
            for statement in statements
        )
        checks = []
        for statement, result in zip(statements, results, strict=True):
            usage.append(result.usage)
            checks.append(_statement_check(statement, result))
        return FocusReport(tuple(checks), found_by, self.threshold, Usage.total(usage))


def _statement_check(statement: str, result: Judgment) -> StatementCheck:
    meta = result.metadata
    if result.status is Status.ERROR:
        return StatementCheck(
            statement,
            None,
            "",
            "none",
            cause=str(meta.get("cause", "error")),
            error=result.reasoning,
        )
    p_yes = meta.get("p_yes")
    if isinstance(p_yes, float | int):
        p, method = float(p_yes), str(meta.get("method", "logprobs"))
    else:
        # No probabilities (a model without them): the stated answer, marked as such.
        p, method = (1.0 if meta.get("answer") == "yes" else 0.0), "stated"
    return StatementCheck(statement, p, result.reasoning, method)


def focus_rows(report: FocusReport) -> list[Check]:
    """One row per statement, for a judgment's checks."""
    return [
        Check(
            short_name(check.statement),
            check.p_on_topic is not None and check.p_on_topic >= report.threshold,
            f"ERROR ({check.cause}): {check.error}"
            if check.p_on_topic is None
            else f"P(on topic) = {check.p_on_topic:.2f}",
        )
        for check in report.checks
    ]


def failed_judgment(report: FocusReport, usage: Usage | None, metadata: dict[str, Any]) -> Judgment:
    """ERROR naming how many statements could not be checked and the first one's cause."""
    failed = report.failed
    causes = sorted({str(check.cause) for check in failed})
    return Judgment.error(
        f"{len(failed)} of {len(report.checks)} statements could not be checked for focus "
        f"({', '.join(causes)}): {failed[0].error}",
        checks=focus_rows(report),
        usage=usage,
        metadata={**metadata, "cause": causes[0] if len(causes) == 1 else "mixed"},
    )


class FocusJudge(BaseJudge):
    """Score = mean P(on topic) over the output's statements, each asked against the
    source's key facts; PASS when it reaches `min_score`, each statement under `threshold`
    is a warning issue (type off_topic). ABSTAIN without a source or an output, when no key
    fact could be found, or when the output makes no statement; ERROR when a statement
    could not be checked."""

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        facts: Count = KEY_FACTS,
        statements: Statements = "claims",
        threshold: Threshold = 0.5,
        min_score: MinScore = 0.5,
        key_facts: KeyFacts | None = None,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name or "focus", description)
        reference = ModelRef(model)
        # A given KeyFacts (shared with a coverage judge) replaces the own one.
        self.key_facts = key_facts or KeyFacts(reference, facts)
        self.focus = FocusCheck(reference, statements=statements, threshold=threshold)
        self.min_score = min_score_of(min_score)

    async def judge(self, ctx: Context) -> Judgment:
        found = await self.key_facts.for_context(ctx, judge=self.name)
        if isinstance(found, Judgment):
            return found
        inputs, facts = found
        base: dict[str, Any] = {
            "judge": self.name,
            "key_facts": len(facts.claims),
            "extraction": facts.extraction.value,
        }
        report = await self.focus.check(
            inputs.answer, facts.claims, inputs.question, judge=self.name
        )
        usage = Usage.total([facts.usage, report.usage])
        metadata = {**base, **report.metadata(), "issues": report.issues()}
        if report.failed:
            return failed_judgment(report, usage, metadata)
        focus = report.focus
        if focus is None:
            return Judgment.abstain(
                "the output makes no statement to check", usage=usage, metadata=metadata
            )
        off = report.off_topic
        reasoning = (
            f"{len(report.checks) - len(off)} of the output's {len(report.checks)} statements "
            f"are about the source's key facts (mean P(on topic) {focus:.2f})"
        )
        if off:
            reasoning += "; off-topic: " + "; ".join(short_name(c.statement) for c in off)
        decide = Judgment.ok if focus >= self.min_score else Judgment.fail
        return decide(
            reasoning,
            score=NumericScore(focus),
            checks=focus_rows(report),
            usage=usage,
            metadata=metadata,
        )
