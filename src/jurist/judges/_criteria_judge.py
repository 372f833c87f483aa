"""Many acceptance criteria about one output: each asked on its own call (all in flight
together) or all in one call, with the criteria a program decides exactly left out of the
model's questions."""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from jurist.core import (
    BaseJudge,
    Cause,
    Check,
    Context,
    JudgeKind,
    Judgment,
    Name,
    NumericScore,
    Report,
    Status,
    Steps,
    Threshold,
    Usage,
    gather_ordered,
    report,
    run_judge,
    threshold_of,
)
from jurist.judges._addressed import masked
from jurist.judges._ask import CallPolicy, ModelRef, ask, model_error_judgment
from jurist.judges._common import ReportRow, omitted_when_none
from jurist.judges._criteria import (
    ONE_VERDICT_TOKENS,
    VERDICTS_KEY,
    YES_NO,
    CriterionJudge,
    CriterionReport,
    CriterionVerdict,
    DecisionMethod,
    computed_evidence,
    criteria_schema,
    criterion_text,
    exact_judgment,
    read_verdict,
    short_name,
    verdict_judgment,
    with_notes,
)
from jurist.judges._criterion_checks import exact_verdict
from jurist.judges._reading import numbered_answers
from jurist.llm import Model, ModelError, Response
from jurist.prompts import Prompt, PromptTemplate


class CriterionRow(ReportRow):
    """One criterion of a criteria judgment: its status, P(yes) and how it was read ("exact"
    when a program decided it; None for one that could not be judged), the confidence in
    the side decided and the reason; `cause` only when it could not be judged,
    `prompt_sha256` when a call was made, `computed` when the model was shown what a
    program found wrong in the output."""

    criterion: str
    status: Status
    p_yes: float | None
    confidence: float | None
    method: DecisionMethod | None
    reason: str
    cause: Cause | None = omitted_when_none()
    prompt_sha256: str | None = omitted_when_none()
    computed: tuple[str, ...] | None = omitted_when_none()


class CriteriaReport(Report, kind="criteria"):
    """Every criterion's outcome: which were met, not met and not judged, one row each, how
    they were asked (one call each, or all together) and the threshold on P(yes). When some
    could not be judged (an ERROR judgment), `cause` says why (MIXED for several causes)
    and `causes` names each criterion's."""

    mode: Literal["separate", "together"]
    threshold: float
    passed_criteria: tuple[str, ...]
    failed_criteria: tuple[str, ...]
    errored_criteria: tuple[str, ...]
    criteria: tuple[CriterionRow, ...]
    cause: Cause | None = omitted_when_none()
    causes: dict[str, Cause] | None = omitted_when_none()


class CriteriaJudge(BaseJudge):
    """Does the output meet every acceptance criterion? One check per criterion.

    By default each criterion is its own call, all in flight together (the model layer
    bounds how many run at once, and they share the prompt up to the criterion). With
    `together=True` one call answers them all as a JSON array. Any criterion failed makes
    FAIL; otherwise any criterion that could not be judged makes ERROR; otherwise PASS.
    The score is the fraction of criteria met.
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        criteria: Sequence[str],
        model: Model | str | None = None,
        *,
        threshold: Threshold = 0.5,
        together: bool = False,
        reason_first: bool = False,
        exact: bool = True,
        mask_addressed: bool = True,
        template: PromptTemplate | str | Path | None = None,
        name: Name | None = None,
        description: str = "",
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name, description)
        if isinstance(criteria, str):
            raise ValueError("criteria must be a list of criteria, not one string")
        texts = [criterion_text(c, f"criteria[{i}]") for i, c in enumerate(criteria)]
        if not texts:
            raise ValueError("criteria is empty: give at least one criterion")
        for index, text in enumerate(texts):
            if text in texts[:index]:
                raise ValueError(
                    f"criteria[{index}] repeats criteria[{texts.index(text)}]: {text!r}"
                )
        self.criteria = tuple(texts)
        self.threshold = threshold_of(threshold)
        self.together = together
        self.reason_first = reason_first
        self.exact = exact
        self.mask_addressed = mask_addressed
        self.template = PromptTemplate.of(
            template if template is not None else ("criteria" if together else "criterion")
        )
        self.model = ModelRef(model)
        self.policy = policy or CallPolicy.from_settings()
        self.judges = tuple(
            CriterionJudge(
                text,
                threshold=self.threshold,
                reason_first=reason_first,
                exact=exact,
                mask_addressed=mask_addressed,
                template=self.template,
                name=self.name,
                policy=self.policy,
            )
            for text in texts
        )
        for judge in self.judges:
            # One lazy reference for all: the model is resolved once, on first use.
            judge.model = self.model

    async def judge(self, ctx: Context) -> Judgment:
        if self.together:
            return await self._together(ctx)
        return await self._separate(ctx)

    async def _separate(self, ctx: Context) -> Judgment:
        results = await gather_ordered(
            (run_judge(judge, ctx) for judge in self.judges),
            steps=Steps("criterion", len(self.judges)),
        )
        first_call = next((r.metadata for r in results if "model" in r.metadata), {})
        extra = {key: first_call[key] for key in ("model", "parameters") if key in first_call}
        usage = Usage.total(r.usage for r in results)
        return self._aggregate(results, usage, {"template": self.template.name, **extra})

    async def _together(self, ctx: Context) -> Judgment:
        output = ctx.output_text()
        found = {c: exact_verdict(c, output) if self.exact else None for c in self.criteria}
        exact = {c: exact_judgment(f, c, self.threshold) for c, f in found.items() if f}
        asked = [c for c in self.criteria if c not in exact]
        if not asked:
            return self._aggregate([exact[c] for c in self.criteria], None, {})
        report(f"asking {len(asked)} criteria together")
        try:
            model = self.model.get()
        except ModelError as exc:
            failed = model_error_judgment(exc, judge=self.name, prompt=None)
            return self._all_errored(failed, exact)
        stated = not model.capabilities.logprobs
        count = len(asked)
        shown, hidden = masked(ctx) if self.mask_addressed else (ctx, ())
        computed = computed_evidence(ctx) if self.exact else ()
        prompt = Prompt(
            self.template, criteria_schema(count, stated=stated, reason_first=self.reason_first)
        )
        got = await ask(
            model,
            prompt.reading(lambda response: read_verdicts(response, count), logprobs=True),
            shown,
            policy=self.policy.but(max_tokens=ONE_VERDICT_TOKENS * count + 40),
            judge=self.name,
            variables={
                "criteria": asked,
                "stated_confidence": stated,
                "reason_first": self.reason_first,
                "computed": list(computed),
            },
        )
        if isinstance(got, Judgment):
            # The error already holds what is known of the call.
            return self._all_errored(got, exact)
        call = got.metadata(self.name)
        answered = {
            criterion: with_notes(
                verdict_judgment(verdict, criterion, self.threshold, usage=None, metadata=call),
                computed=computed,
                masked=hidden,
            )
            for verdict, criterion in zip(got.value, asked, strict=True)
        }
        results = [exact.get(c) or answered[c] for c in self.criteria]
        return self._aggregate(results, got.usage, call)

    def _all_errored(self, failed: Judgment, exact: Mapping[str, Judgment]) -> Judgment:
        """The one call for the criteria a program did not decide failed: each of them
        errored with its cause."""
        each = [exact.get(c) or failed.evolve(usage=None) for c in self.criteria]
        return self._aggregate(each, failed.usage, failed.metadata)

    def _aggregate(
        self, results: Sequence[Judgment], usage: Usage | None, extra: Mapping[str, Any]
    ) -> Judgment:
        outcomes = list(zip(self.criteria, results, strict=True))
        passed = [c for c, r in outcomes if r.status is Status.PASS]
        failed = [c for c, r in outcomes if r.status is Status.FAIL]
        errored = [c for c, r in outcomes if r.status not in (Status.PASS, Status.FAIL)]
        checks = [_check(c, r) for c, r in outcomes]
        confidences = [r.confidence for r in results if r.confidence is not None]
        # The call's metadata, without what belonged to one criterion's judgment.
        metadata: dict[str, Any] = {
            key: value
            for key, value in extra.items()
            if key not in ("cause", "error", "answer", "criterion")
        }
        metadata["judge"] = self.name
        report = CriteriaReport(
            mode="together" if self.together else "separate",
            threshold=self.threshold,
            passed_criteria=tuple(passed),
            failed_criteria=tuple(failed),
            errored_criteria=tuple(errored),
            criteria=tuple(_row(c, r) for c, r in outcomes),
        )
        total = len(self.criteria)
        confidence = sum(confidences) / len(confidences) if confidences else None
        if failed:
            reasons = "; ".join(
                f"{short_name(c)}: {r.reasoning}" for c, r in outcomes if r.status is Status.FAIL
            )
            return Judgment(
                Status.FAIL,
                NumericScore(len(passed) / total),
                f"{len(failed)} of {total} criteria not met: {reasons}",
                tuple(checks),
                confidence=confidence,
                usage=usage,
                metadata={**metadata, **report.to_metadata()},
            )
        if errored:
            causes = {c: r.cause or Cause.ERROR for c, r in outcomes if c in errored}
            distinct = sorted(set(causes.values()))
            report = report.model_copy(
                update={
                    "cause": distinct[0] if len(distinct) == 1 else Cause.MIXED,
                    "causes": causes,
                }
            )
            metadata.update(report.to_metadata())
            first = next(r for c, r in outcomes if c in errored)
            if first.error_info is not None:
                metadata["error"] = dict(first.error_info)
            # The unreadable answer itself, to see what the model wrote.
            if first.cause is Cause.UNPARSEABLE and "answer" in first.metadata:
                metadata["answer"] = first.metadata["answer"]
            return Judgment.error(
                f"{len(errored)} of {total} criteria could not be judged "
                f"({', '.join(distinct)}): {first.reasoning}",
                checks=checks,
                usage=usage,
                metadata=metadata,
            )
        return Judgment(
            Status.PASS,
            NumericScore(1.0),
            f"all {total} criteria met" if total > 1 else "the criterion met",
            tuple(checks),
            confidence=confidence,
            usage=usage,
            metadata={**metadata, **report.to_metadata()},
        )


def read_verdicts(response: Response, count: int) -> list[CriterionVerdict]:
    """The verdicts of a together-mode answer, in the order of the criteria.

    Exactly one verdict per criterion number 1..count; a missing, repeated or unknown
    number is unreadable. P(yes) of the k-th verdict written is read at the k-th "answer"
    token; if the answer's tokens do not show one "answer" per verdict, the stated answers
    are used instead.
    """
    answers = numbered_answers(
        response,
        key=VERDICTS_KEY,
        number="criterion",
        count=count,
        items_named="criteria",
        field="answer",
        labels=YES_NO,
    )
    return [read_verdict(a.item, a.probabilities, a.where) for a in answers]


def _check(criterion: str, result: Judgment) -> Check:
    verdict = CriterionReport.of(result)
    if result.status in (Status.PASS, Status.FAIL):
        p_yes = verdict.p_yes if verdict is not None else None
        shown = f" (P(yes) = {p_yes:.2f})" if p_yes is not None else ""
        answer = "yes" if result.passed else "no"
        return Check(short_name(criterion), result.passed, f"{answer}{shown}: {result.reasoning}")
    return Check(short_name(criterion), False, f"{result.status.value}: {result.reasoning}")


def _row(criterion: str, result: Judgment) -> CriterionRow:
    verdict = CriterionReport.of(result)
    sha256 = result.metadata.get("prompt_sha256")
    return CriterionRow(
        criterion=criterion,
        status=result.status,
        p_yes=verdict.p_yes if verdict is not None else None,
        confidence=result.confidence,
        method=_method(verdict),
        reason=result.reasoning,
        cause=result.cause,
        prompt_sha256=sha256 if isinstance(sha256, str) else None,
        computed=verdict.computed if verdict is not None else None,
    )


def _method(verdict: CriterionReport | None) -> DecisionMethod | None:
    return None if verdict is None else verdict.method
