"""`sampled`: self-consistency. The G-Eval rubric asked N times at a temperature above 0,
each time with its own fixed seed, and the per-criterion expected scores averaged.

The judgment is shaped like a RubricJudge's (so the plain reading applies) with the spread
of the samples per criterion beside it, and a usage that sums every sample's calls, tokens
and latency: the N-fold cost shows in the report's cost per item.

If any sample errors the item is ERROR, with each failed seed's cause: a mean over fewer
samples than asked would be a different method whose cost and spread mislead.
"""

import asyncio
import dataclasses
import statistics
import time
from collections.abc import Sequence
from typing import ClassVar

from jurist.calibration._methods import MethodScores, PlainRubric
from jurist.core import (
    BaseJudge,
    Cause,
    Check,
    Context,
    Judge,
    JudgeKind,
    Judgment,
    NumericScore,
    Status,
    Usage,
    run_judge,
)
from jurist.judges import (
    CriterionResult,
    ModelRef,
    ReportRow,
    RubricJudge,
    RubricReport,
    RubricResult,
    TokensUsed,
    model_error_judgment,
)
from jurist.llm import Model, ModelError
from jurist.rubrics import Rubric

_SCALE = (1, 5)


class RubricSample(ReportRow):
    """One sample of a sampled rubric: its seed, its overall score and each criterion's
    expected score."""

    seed: int
    overall: float
    expected: dict[str, float]


class SampledRubricReport(RubricReport, kind="sampled_rubric"):
    """A rubric report of the samples' mean, with each criterion's spread over the samples
    (their population standard deviation) and every sample; read as a rubric report too."""

    spread: dict[str, float]
    samples: tuple[RubricSample, ...]


class Sampled(PlainRubric):
    """The plain rubric asked `samples` times at `temperature`, seeds `seed`, `seed + 1`, ...;
    read like the plain rubric, plus `<criterion>.std`, the samples' spread, in signals."""

    name = "sampled"
    description = "the rubric asked N times at temperature 0.7, fixed seeds, scores averaged"
    TEMPERATURE: ClassVar[float] = 0.7

    def __init__(
        self, samples: int = 3, *, temperature: float = TEMPERATURE, seed: int = 0
    ) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        if not 0 < temperature <= 2:
            # At temperature 0 every sample is the same answer: N times the cost for nothing.
            raise ValueError(f"temperature must lie in (0, 2], got {temperature}")
        self.samples = samples
        self.temperature = temperature
        self.seed = seed

    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        return SampledJudge(
            rubric,
            model,
            criteria=dimensions,
            samples=self.samples,
            temperature=self.temperature,
            seed=self.seed,
        )

    def read(self, judgment: Judgment) -> MethodScores | None:
        reading = super().read(judgment)
        report = SampledRubricReport.of(judgment)
        if reading is None or report is None:
            return reading
        signals = dict(reading.signals)
        for criterion, std in report.spread.items():
            signals[f"{criterion}.std"] = std
        return dataclasses.replace(reading, signals=signals)


class SampledJudge(BaseJudge):
    """Runs one RubricJudge per seed at `temperature`, concurrently (the model layer bounds
    how many calls really run at once), and returns one judgment of their mean."""

    kind = JudgeKind.MODEL

    def __init__(
        self,
        rubric: Rubric,
        model: Model | str | None,
        *,
        criteria: Sequence[str],
        samples: int = 3,
        temperature: float = Sampled.TEMPERATURE,
        seed: int = 0,
    ) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        self.rubric = rubric.only(*criteria)
        super().__init__(f"sampled:{samples}:rubric:{rubric.id}", rubric.description)
        self.model = ModelRef(model)
        self.temperature = temperature
        self.seeds = tuple(range(seed, seed + samples))
        self._judges: tuple[RubricJudge, ...] = ()

    async def judge(self, ctx: Context) -> Judgment:
        started = time.perf_counter()
        try:
            judges = self._sample_judges()
        except ModelError as exc:
            return model_error_judgment(exc, judge=self.name, prompt=None)
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(run_judge(judge, ctx)) for judge in judges]
        samples = [task.result() for task in tasks]
        elapsed_ms = int((time.perf_counter() - started) * 1000)
        usage = Usage.total(s.usage for s in samples)
        failed = [(seed, s) for seed, s in zip(self.seeds, samples, strict=True) if _failed(s)]
        if failed:
            return self._error(failed, usage)
        results = [RubricResult.from_judgment(s) for s in samples]
        return self._mean(results, samples[0], usage, elapsed_ms)

    def _sample_judges(self) -> tuple[RubricJudge, ...]:
        if not self._judges:
            model = self.model.get()
            self._judges = tuple(
                RubricJudge(
                    self.rubric, model, temperature=self.temperature, seed=seed, methods="plain"
                )
                for seed in self.seeds
            )
        return self._judges

    def _mean(
        self,
        results: Sequence[RubricResult],
        first: Judgment,
        usage: Usage | None,
        elapsed_ms: int,
    ) -> Judgment:
        criteria = [
            _mean_criterion([_criterion(r, c.criterion_name) for r in results])
            for c in results[0].criteria_results
        ]
        spread = {
            c.criterion_name: statistics.pstdev(
                _criterion(r, c.criterion_name).expected_score for r in results
            )
            for c in criteria
        }
        total_weight = sum(c.weight for c in criteria)
        overall = sum(c.weight * c.expected_score for c in criteria) / total_weight
        below = [
            c.criterion_name
            for c in criteria
            if c.is_essential
            and c.expected_score < self.rubric.criterion(c.criterion_name).essential_minimum
        ]
        pass_score = self.rubric.pass_score
        result = RubricResult(
            rubric_id=self.rubric.id,
            passed=overall >= pass_score and not below,
            overall_score=overall,
            normalized_score=(overall - _SCALE[0]) / (_SCALE[1] - _SCALE[0]),
            essential_failed=bool(below),
            criteria_results=tuple(criteria),
            evaluation_time_ms=elapsed_ms,
            tokens_used=TokensUsed(
                input=usage.input_tokens if usage else 0,
                output=usage.output_tokens if usage else 0,
            ),
            llm_model=results[0].llm_model,
            temperature=self.temperature,
        )
        parts = ", ".join(
            f"{c.criterion_name} {c.expected_score:.2f} (std {spread[c.criterion_name]:.2f})"
            for c in criteria
        )
        reasoning = (
            f"mean of {len(results)} samples at temperature {self.temperature:g}: "
            f"overall {overall:.2f}/5 (pass at {pass_score:g}): {parts}"
        )
        if below:
            reasoning += f"; essential criteria below their minimum: {', '.join(below)}"
        known = [(c.weight, c.confidence) for c in criteria if c.confidence is not None]
        confidence = sum(w * c for w, c in known) / sum(w for w, _ in known) if known else None
        # Each sample recorded its own seed; the mean records them all.
        called = dict(first.metadata.get("parameters", {}))
        called.pop("seed", None)
        called.update(seeds=list(self.seeds), samples=len(results))
        return Judgment(
            Status.PASS if result.passed else Status.FAIL,
            NumericScore(overall, *_SCALE),
            reasoning,
            tuple(
                Check(
                    c.criterion_name,
                    c.passed_threshold,
                    f"{c.score}/5 (mean {c.expected_score:.2f}, "
                    f"std {spread[c.criterion_name]:.2f}): {c.reasoning}",
                )
                for c in criteria
            ),
            confidence=confidence,
            usage=usage,
            metadata={
                "judge": self.name,
                "template": first.metadata.get("template"),
                "model": result.llm_model,
                "parameters": called,
                **SampledRubricReport(
                    rubric=self.rubric.id,
                    methods=tuple(sorted({c.method for c in criteria})),
                    rubric_result=result,
                    spread=spread,
                    samples=tuple(
                        RubricSample(
                            seed=seed,
                            overall=r.overall_score,
                            expected={
                                c.criterion_name: c.expected_score for c in r.criteria_results
                            },
                        )
                        for seed, r in zip(self.seeds, results, strict=True)
                    ),
                ).to_metadata(),
            },
        )

    def _error(self, failed: Sequence[tuple[int, Judgment]], usage: Usage | None) -> Judgment:
        seed, first = failed[0]
        reason = f"sample with seed {seed} of {len(self.seeds)}: {first.reasoning}"
        if len(failed) > 1:
            reason += f" (and {len(failed) - 1} more samples failed)"
        return Judgment.error(
            reason,
            checks=[Check(f"seed {s}", False, j.reasoning) for s, j in failed],
            usage=usage,
            metadata={
                "judge": self.name,
                "rubric": self.rubric.id,
                "cause": first.cause or Cause.ERROR,
                "causes": {str(s): j.cause or Cause.ERROR for s, j in failed},
                "error": first.error_info,
                "seeds": list(self.seeds),
                "failed_seeds": [s for s, _ in failed],
            },
        )


def _failed(judgment: Judgment) -> bool:
    # A RubricJudge that did not error always carries its rubric report; one that lacks it
    # cannot be averaged, so it counts as failed too.
    return judgment.status is Status.ERROR or RubricReport.of(judgment) is None


def _criterion(result: RubricResult, name: str) -> CriterionResult:
    return next(c for c in result.criteria_results if c.criterion_name == name)


def _mean_criterion(samples: Sequence[CriterionResult]) -> CriterionResult:
    """The samples' mean expected score; the mean confidence and score distribution when
    every sample has one; the first sample's reasoning (each sample wrote its own)."""
    first = samples[0]
    expected = statistics.fmean(s.expected_score for s in samples)
    confidences = [s.confidence for s in samples]
    distributions = [s.distribution for s in samples]
    return CriterionResult(
        criterion_name=first.criterion_name,
        score=_rounded(expected),
        expected_score=expected,
        confidence=(
            statistics.fmean(c for c in confidences if c is not None)
            if all(c is not None for c in confidences)
            else None
        ),
        reasoning=first.reasoning,
        is_essential=first.is_essential,
        passed_threshold=expected >= first.threshold,
        weight=first.weight,
        threshold=first.threshold,
        method=first.method,
        distribution=_mean_distribution(distributions),
        # Every sample rendered the same prompt: the seed is not part of it.
        prompt_sha256=first.prompt_sha256,
        reasoning_first=all(s.reasoning_first for s in samples),
    )


def _mean_distribution(
    distributions: Sequence[dict[str, float] | None],
) -> dict[str, float] | None:
    known = [d for d in distributions if d is not None]
    if len(known) != len(distributions):
        return None
    levels = sorted({level for d in known for level in d})
    return {level: statistics.fmean(d.get(level, 0.0) for d in known) for level in levels}


def _rounded(value: float) -> int:
    # Half up, as RubricJudge rounds: a mean of 2.5 is a 3.
    return min(_SCALE[1], max(_SCALE[0], int(value + 0.5)))
