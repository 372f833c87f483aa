"""RubricJudge: each criterion of a rubric scored by its method (G-Eval's one call, or the
smaller questions of claims, coverage and sentence checks), then aggregated."""

import asyncio
import functools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import JsonValue

from jurist.core import (
    BaseJudge,
    Cause,
    Check,
    Context,
    JudgeKind,
    Judgment,
    Name,
    NumericScore,
    RubricScore,
    Status,
    Steps,
    Usage,
    gather_ordered,
)
from jurist.judges._ask import CallPolicy, ModelRef, ask, model_error_judgment
from jurist.judges._reading import Reading, ScoreClassifier, Unreadable, json_object
from jurist.judges._rubric_methods import (
    Decided,
    DecomposedCriteria,
    Errored,
    judge_key,
    rounded,
)
from jurist.judges._rubric_result import CriterionResult, RubricReport, RubricResult, TokensUsed
from jurist.llm import Model, ModelError, Response
from jurist.prompts import Prompt, PromptTemplate, answer_schema
from jurist.rubrics import Rubric, RubricCriterion, RubricExample, get_rubric

_SCALE = (1, 5)
# "rubric": each criterion by the method its rubric names; "plain": every criterion asked
# plainly, whatever the rubric names.
RubricMethods = Literal["rubric", "plain"]


@dataclass(frozen=True)
class _Scored:
    result: CriterionResult
    usage: Usage | None
    parameters: dict[str, Any]


@dataclass(frozen=True)
class _Failed:
    criterion: str
    judgment: Judgment


class RubricJudge(BaseJudge):
    """Scores an output on each criterion of a rubric, each by its method, and aggregates.

    A `plain` criterion is one call: the output (with its sources, task and reference)
    first, then the criterion, its evaluation steps, its five anchors and its scored
    examples; the model writes its reasoning and then the score, so the score follows from
    the reasoning. With token probabilities the score is the expected value over 1..5 (the
    rounded integer is kept too). Criteria run concurrently and share the prompt prefix.

    A criterion whose rubric names another method (`claims`, `coverage`, `sentences`) is
    scored by that judge's small questions, 1 + 4 x their aggregate probability: on small
    models these agree with human raters where the plain question is at chance. When that
    method cannot score an output (no source to check claims against, no claim, no
    sentence), the criterion is asked plainly and says why. `methods="plain"` asks every
    criterion plainly, whatever the rubric names.

    The overall score is the weighted mean of the criteria's expected scores. The
    judgment PASSes when the overall score reaches the pass score and no essential criterion
    fell below its minimum; an essential failure FAILs it whatever the overall score.
    Any criterion whose model call fails or whose answer cannot be read makes the judgment
    ERROR, with the criteria that did score kept in metadata.
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        rubric: Rubric | str | Path,
        model: Model | str | None = None,
        *,
        criteria: Sequence[str] | None = None,
        pass_score: RubricScore | None = None,
        examples: Mapping[str, Sequence[RubricExample]] | None = None,
        template: PromptTemplate | str | Path = "rubric_criterion",
        name: Name | None = None,
        max_tokens: int = 256,
        temperature: float | None = None,
        seed: int = 0,
        policy: CallPolicy | None = None,
        methods: RubricMethods = "rubric",
    ) -> None:
        self.rubric = rubric if isinstance(rubric, Rubric) else get_rubric(rubric)
        if criteria is not None:
            self.rubric = self.rubric.only(*criteria)
        super().__init__(name or f"rubric:{self.rubric.id}", self.rubric.description)
        if pass_score is not None and not _SCALE[0] <= pass_score <= _SCALE[1]:
            raise ValueError(f"pass_score {pass_score} is outside 1..5")
        self.pass_score = self.rubric.pass_score if pass_score is None else pass_score
        extra = dict(examples or {})
        unknown = set(extra) - {c.name for c in self.rubric.criteria}
        if unknown:
            raise ValueError(f"examples name criteria the rubric lacks: {sorted(unknown)}")
        self.examples = extra
        self.model = ModelRef(model)
        self.template = PromptTemplate.of(template)
        self.system = PromptTemplate.named("system")
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self.policy = (policy or CallPolicy.from_settings()).but(
            max_tokens=max_tokens, temperature=temperature, seed=seed
        )
        if methods not in ("rubric", "plain"):
            raise ValueError(f"methods must be 'rubric' or 'plain', not {methods!r}")
        self.methods = methods
        named = self.rubric.criteria if methods == "rubric" else ()
        # The decomposed judges keep their own token budget (their answers are short).
        self.decomposed = DecomposedCriteria(named, model, policy or CallPolicy.from_settings())

    def examples_for(self, criterion: RubricCriterion) -> list[RubricExample]:
        """The criterion's own examples, then those given to the judge."""
        return [*criterion.examples, *self.examples.get(criterion.name, ())]

    async def judge(self, ctx: Context) -> Judgment:
        started = time.perf_counter()
        try:
            model = self.model.get()
        except ModelError as exc:
            return model_error_judgment(exc, judge=self.name, prompt=None)
        decomposed = {c.name for c in self.decomposed.criteria}
        plain = [c for c in self.rubric.criteria if c.name not in decomposed]
        steps = Steps("criterion", len(self.rubric.criteria))
        asked, judged = await asyncio.gather(
            gather_ordered(
                (self._criterion(ctx, model, criterion) for criterion in plain), steps=steps
            ),
            self.decomposed.judge(ctx),
        )
        outcomes: dict[str, _Scored | _Failed] = {
            c.name: outcome for c, outcome in zip(plain, asked, strict=True)
        }
        fallbacks: dict[str, str] = {}
        for criterion in self.decomposed.criteria:
            key = judge_key(criterion)
            assert key is not None  # only decomposed criteria are here
            read = self.decomposed.read(criterion, judged[key])
            if isinstance(read, Decided):
                outcomes[criterion.name] = _Scored(read.result, None, {})
            elif isinstance(read, Errored):
                outcomes[criterion.name] = _Failed(criterion.name, read.judgment)
            else:
                fallbacks[criterion.name] = read.reason
                continue
            steps.done()
        again = [c for c in self.rubric.criteria if c.name in fallbacks]
        for criterion, outcome in zip(
            again,
            await gather_ordered(
                (self._criterion(ctx, model, c, fallbacks[c.name]) for c in again), steps=steps
            ),
            strict=True,
        ):
            outcomes[criterion.name] = outcome
        ordered = [outcomes[c.name] for c in self.rubric.criteria]
        elapsed_ms = int((time.perf_counter() - started) * 1000)
        usage = Usage.total(
            [
                *(o.usage if isinstance(o, _Scored) else o.judgment.usage for o in ordered),
                *(j.usage for j in judged.values()),
            ]
        )
        successes = [o for o in ordered if isinstance(o, _Scored)]
        scored = [o.result for o in successes]
        failed = [o for o in ordered if isinstance(o, _Failed)]
        if failed:
            return self._error(failed, scored, usage)
        called = next((o.parameters for o in successes if o.parameters), self._parameters())
        result = self._aggregate(scored, usage, model.name, elapsed_ms, called)
        return self._judgment(result, usage, called)

    def _parameters(self) -> dict[str, Any]:
        """What the judgment records of its calls when no criterion was asked plainly."""
        return {"temperature": self.policy.temperature, "seed": self.policy.seed}

    async def _criterion(
        self, ctx: Context, model: Model, criterion: RubricCriterion, fallback: str | None = None
    ) -> "_Scored | _Failed":
        stated = not model.capabilities.logprobs
        classifier = ScoreClassifier(1, 5, criterion.threshold)

        def read(response: Response) -> tuple[Reading, str, float | None]:
            reading = classifier.read(response)
            answer = json_object(response)
            reasoning = _reasoning(answer)
            confidence = reading.confidence
            if reading.method == "stated":
                confidence = _confidence_of(answer)
            return reading, reasoning, confidence

        got = await ask(
            model,
            Prompt(self.template, _schema(stated)).reading(read, logprobs=True),
            ctx,
            policy=self.policy,
            judge=self.name,
            variables={
                "criterion": criterion,
                "examples": self.examples_for(criterion),
                "stated_confidence": stated,
            },
            system=self.system,
        )
        if isinstance(got, Judgment):
            return _Failed(criterion.name, got)
        reading, reasoning, confidence = got.value
        prompt, response = got.prompt, got.response
        assert isinstance(reading.score, NumericScore)
        expected = reading.score.value
        distribution = reading.details.get("distribution")
        result = CriterionResult(
            criterion_name=criterion.name,
            score=rounded(expected),
            expected_score=expected,
            confidence=confidence,
            reasoning=reasoning,
            is_essential=criterion.essential,
            passed_threshold=expected >= criterion.threshold,
            weight=criterion.weight,
            threshold=criterion.threshold,
            method=reading.method,
            fallback=fallback,
            distribution=dict(distribution) if distribution is not None else None,
            prompt_sha256=prompt.sha256,
            reasoning_first=_reasoning_first(response.text),
        )
        return _Scored(result, response.usage, got.parameters)

    def _below_minimum(self, result: CriterionResult) -> bool:
        """An essential criterion scored below its minimum."""
        minimum = self.rubric.criterion(result.criterion_name).essential_minimum
        return result.is_essential and result.expected_score < minimum

    def _aggregate(
        self,
        scored: list[CriterionResult],
        usage: Usage | None,
        model: str,
        elapsed_ms: int,
        called: dict[str, Any],
    ) -> RubricResult:
        total_weight = sum(r.weight for r in scored)
        overall = sum(r.weight * r.expected_score for r in scored) / total_weight
        essential_failed = any(self._below_minimum(r) for r in scored)
        return RubricResult(
            rubric_id=self.rubric.id,
            passed=overall >= self.pass_score and not essential_failed,
            overall_score=overall,
            normalized_score=(overall - _SCALE[0]) / (_SCALE[1] - _SCALE[0]),
            essential_failed=essential_failed,
            criteria_results=tuple(scored),
            evaluation_time_ms=elapsed_ms,
            tokens_used=TokensUsed(
                input=usage.input_tokens if usage else 0,
                output=usage.output_tokens if usage else 0,
            ),
            llm_model=(usage.model if usage and usage.model else model),
            temperature=called["temperature"],
        )

    def _judgment(
        self, result: RubricResult, usage: Usage | None, called: dict[str, Any]
    ) -> Judgment:
        checks = [
            Check(
                r.criterion_name,
                r.passed_threshold,
                f"{r.score}/5 "
                + ("" if r.prompt_sha256 is not None else f"by {r.criterion_method.value} ")
                + f"(expected {r.expected_score:.2f}"
                + (f", confidence {r.confidence:.2f}" if r.confidence is not None else "")
                + f"): {r.reasoning}",
            )
            for r in result.criteria_results
        ]
        parts = ", ".join(
            f"{r.criterion_name} {r.expected_score:.2f}" for r in result.criteria_results
        )
        reasoning = f"overall {result.overall_score:.2f}/5 (pass at {self.pass_score:g}): {parts}"
        essentials = [r.criterion_name for r in result.criteria_results if self._below_minimum(r)]
        if essentials:
            reasoning += f"; essential criteria below their minimum: {', '.join(essentials)}"
        confidences = [(r.weight, r.confidence) for r in result.criteria_results]
        known = [(w, c) for w, c in confidences if c is not None]
        confidence = sum(w * c for w, c in known) / sum(w for w, _ in known) if known else None
        return Judgment(
            Status.PASS if result.passed else Status.FAIL,
            NumericScore(result.overall_score, *_SCALE),
            reasoning,
            tuple(checks),
            confidence=confidence,
            usage=usage,
            metadata={
                "judge": self.name,
                "template": self.template.name,
                "model": result.llm_model,
                "parameters": called,
                **RubricReport(
                    rubric=self.rubric.id,
                    methods=tuple(sorted({r.method for r in result.criteria_results})),
                    rubric_result=result,
                ).to_metadata(),
            },
        )

    def _error(
        self, failed: list[_Failed], scored: list[CriterionResult], usage: Usage | None
    ) -> Judgment:
        causes = {f.criterion: f.judgment.cause or Cause.ERROR for f in failed}
        first = failed[0].judgment
        reason = f"criterion {failed[0].criterion!r}: {first.reasoning}"
        if len(failed) > 1:
            reason += f" (and {len(failed) - 1} more criteria failed to score)"
        return Judgment.error(
            reason,
            checks=[Check(f.criterion, False, f.judgment.reasoning) for f in failed],
            usage=usage,
            metadata={
                "judge": self.name,
                "rubric": self.rubric.id,
                "cause": first.cause or Cause.ERROR,
                "causes": causes,
                "error": first.error_info,
                "scored": [r.model_dump(mode="json") for r in scored],
            },
        )


@functools.cache
def _schema(stated: bool) -> dict[str, JsonValue]:
    # Reasoning comes first so the score is written after it; the stated confidence only
    # when the model has no token probabilities to read. Made once for each: the prompt of a
    # call only reads it and its request holds a copy (copying it for every call was a
    # fiftieth of a call's client CPU).
    schema: dict[str, Any] = answer_schema("rubric_criterion")
    if not stated:
        del schema["properties"]["confidence"]
    schema["required"] = list(schema["properties"])
    return schema


def _reasoning(answer: Mapping[str, Any]) -> str:
    reasoning = answer.get("reasoning")
    if isinstance(reasoning, str) and reasoning.strip():
        return reasoning.strip()
    raise Unreadable("the answer has no reasoning before its score")


def _reasoning_first(text: str) -> bool:
    reasoning, score = text.find('"reasoning"'), text.find('"score"')
    return 0 <= reasoning < score


def _confidence_of(answer: Mapping[str, Any]) -> float:
    value = answer.get("confidence")
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    raise Unreadable(f"the answer's confidence {value!r} is not a number in 0..1")
