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
from typing import Any, Literal, TypeVar

from jurist.core import (
    KEY_FACTS,
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
    NumericScore,
    Report,
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
from jurist.judges._claims import ClaimExtractor, Claims, Extraction, split_sentences
from jurist.judges._common import ReportedIssue, ReportRow, omitted_when_none
from jurist.judges._criteria import CriterionReport, judge_criterion, short_name
from jurist.llm import Model
from jurist.prompts import PromptTemplate

ON_TOPIC = "The statement is about one of the source's important points"
OFF_TOPIC = "off_topic"
Statements = Literal["claims", "sentences"]
STATEMENTS: tuple[Statements, ...] = ("claims", "sentences")
# How P(on topic) was read: at the answer's token, from the stated answer, or not at all
# (the check failed).
TopicMethod = Literal["logprobs", "stated", "exact", "none"]
R = TypeVar("R", bound=Report)


def _unpaid(found: Claims) -> Claims:
    return Claims(found.claims, found.extraction, None, found.fallback_cause)


class KeyFacts:
    """The key facts of a source for a goal, extracted once per (goal, source) in this
    process: four summaries of one article pay for one extraction, and a coverage and a
    focus check of one summary share it."""

    def __init__(self, model: ModelRef, facts: Count = KEY_FACTS) -> None:
        self.extractor = ClaimExtractor(
            model, max_claims=facts, template="key_facts", own_words=False
        )
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


class StatementRow(ReportRow):
    """A statement's check as a report lists it (`statements`); `cause` and `error` only
    when the check failed."""

    statement: str
    p_on_topic: float | None
    reason: str
    method: TopicMethod
    cause: Cause | None = omitted_when_none()
    error: str | None = omitted_when_none()


class OffTopicIssue(ReportedIssue):
    """A statement under the on-topic threshold, as a warning issue naming the statement."""

    statement: str


class FocusReport(Report, kind="focus"):
    """How many key facts the source gave and how they were found; each of the output's
    statements checked against them (and how the statements were found), how many are
    off-topic, the mean P(on topic) (None when no statement could be checked) and the
    threshold; an issue per off-topic statement; `cause` when a check failed (MIXED for
    several causes)."""

    key_facts: int
    extraction: Extraction
    statements_from: str
    statements: tuple[StatementRow, ...]
    off_topic_statements: int
    p_on_topic_mean: float | None
    on_topic_threshold: float
    issues: tuple[OffTopicIssue, ...]
    cause: Cause | None = omitted_when_none()


@dataclass(frozen=True)
class StatementCheck:
    """One statement of the output and whether it is on topic. `p_on_topic` is None when
    the check failed, and `cause`/`error` say why."""

    statement: str
    p_on_topic: float | None
    reason: str
    method: TopicMethod
    cause: Cause | None = None
    error: str = ""

    def row(self) -> StatementRow:
        failed = self.cause is not None
        return StatementRow(
            statement=self.statement,
            p_on_topic=self.p_on_topic,
            reason=self.reason,
            method=self.method,
            cause=self.cause,
            error=self.error if failed else None,
        )


@dataclass(frozen=True)
class FocusChecks:
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

    def fields(self) -> dict[str, Any]:
        """What a focus or coverage report holds of these checks."""
        return {
            "statements_from": self.found_by,
            "statements": tuple(check.row() for check in self.checks),
            "off_topic_statements": len(self.off_topic),
            "p_on_topic_mean": self.focus,
            "on_topic_threshold": self.threshold,
            "issues": tuple(
                OffTopicIssue(
                    severity="warning",
                    type=OFF_TOPIC,
                    message=f"Off-topic: {check.statement} (P(on topic) = "
                    f"{check.p_on_topic:.2f}): {check.reason}",
                    statement=check.statement,
                    suggestion="Replace it with one of the source's key points",
                )
                for check in self.off_topic
            ),
        }


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
    ) -> FocusChecks:
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
        return FocusChecks(tuple(checks), found_by, self.threshold, Usage.total(usage))


def _statement_check(statement: str, result: Judgment) -> StatementCheck:
    verdict = CriterionReport.of(result)
    if result.status is Status.ERROR or verdict is None:
        return StatementCheck(
            statement,
            None,
            "",
            "none",
            cause=result.cause or Cause.ERROR,
            error=result.reasoning,
        )
    if verdict.p_yes is not None:
        return StatementCheck(statement, verdict.p_yes, result.reasoning, verdict.method)
    # No probabilities (a model without them): the stated answer, marked as such.
    p = 1.0 if verdict.answer == "yes" else 0.0
    return StatementCheck(statement, p, result.reasoning, "stated")


def focus_rows(report: FocusChecks) -> list[Check]:
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


def failed_judgment(checks: FocusChecks, usage: Usage | None, judge: str, report: R) -> Judgment:
    """ERROR naming how many statements could not be checked and the first one's cause,
    which the report (focus or coverage) records (MIXED for several)."""
    failed = checks.failed
    causes = sorted({check.cause or Cause.ERROR for check in failed})
    cause = causes[0] if len(causes) == 1 else Cause.MIXED
    return Judgment.error(
        f"{len(failed)} of {len(checks.checks)} statements could not be checked for focus "
        f"({', '.join(causes)}): {failed[0].error}",
        checks=focus_rows(checks),
        usage=usage,
        metadata={"judge": judge, **report.model_copy(update={"cause": cause}).to_metadata()},
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
        checked = await self.focus.check(
            inputs.answer, facts.claims, inputs.question, judge=self.name
        )
        usage = Usage.total([facts.usage, checked.usage])
        report = FocusReport(
            key_facts=len(facts.claims), extraction=facts.extraction, **checked.fields()
        )
        if checked.failed:
            return failed_judgment(checked, usage, self.name, report)
        metadata = {"judge": self.name, **report.to_metadata()}
        focus = checked.focus
        if focus is None:
            return Judgment.abstain(
                "the output makes no statement to check", usage=usage, metadata=metadata
            )
        off = checked.off_topic
        reasoning = (
            f"{len(checked.checks) - len(off)} of the output's {len(checked.checks)} "
            f"statements are about the source's key facts (mean P(on topic) {focus:.2f})"
        )
        if off:
            reasoning += "; off-topic: " + "; ".join(short_name(c.statement) for c in off)
        decide = Judgment.ok if focus >= self.min_score else Judgment.fail
        return decide(
            reasoning,
            score=NumericScore(focus),
            checks=focus_rows(checked),
            usage=usage,
            metadata=metadata,
        )
