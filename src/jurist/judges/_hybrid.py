"""HybridJudge: cheap checks settle the clear cases; only the borderline ones reach a model."""

import math
from collections.abc import Sequence
from typing import Any

from jurist.core import (
    BaseJudge,
    Check,
    Context,
    Judge,
    JudgeKind,
    Judgment,
    Name,
    NumericScore,
    Status,
    Usage,
    gather_ordered,
    judge_name,
    normalized_score,
    require_judges,
    run_judge,
)


def _borderline(value: object) -> tuple[float, float]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise ValueError(f"borderline must be a pair (lo, hi), not {value!r}")
    lo, hi = value
    for bound in (lo, hi):
        if (
            isinstance(bound, bool)
            or not isinstance(bound, int | float)
            or not math.isfinite(bound)
        ):
            raise ValueError(f"borderline bounds must be numbers, not {value!r}")
    if not 0.0 <= lo <= hi <= 1.0:
        raise ValueError(f"borderline must satisfy 0 <= lo <= hi <= 1, not {value!r}")
    return float(lo), float(hi)


def _value(judgment: Judgment) -> float | None:
    """A heuristic's vote in 0..1: its normalised score, else 1 for PASS and 0 for FAIL.
    None for an abstention, which is left out of the mean."""
    if judgment.status is Status.ABSTAIN:
        return None
    value = normalized_score(judgment)
    if value is not None:
        return value
    # No score, or a categorical one with no 0..1 value of its own: the status speaks.
    return 1.0 if judgment.status is Status.PASS else 0.0


class HybridJudge(BaseJudge):
    """Heuristics first; the model judge only where they leave the case open.

    The heuristic judges' values (normalised score, or 1 for PASS and 0 for FAIL) are
    averaged, abstentions left out. Below `borderline[0]` the heuristics settle a FAIL,
    above `borderline[1]` a PASS; from lo to hi inclusive, the model judge decides. A
    heuristic that broke (ERROR), or no heuristic value at all, also sends the case to the
    model: nothing is settled on a broken check.

    Metadata: `decided_by` ("heuristics" or "model"), `heuristic_score` (None when there was
    none), `escalated` (why the model was asked) and `model_calls_saved`: the model judge's
    calls not made, its `expected_calls` attribute when it has one (a judge asking the
    model several times), else 1. Sum it over judgments for a run's savings.
    """

    kind = JudgeKind.HYBRID

    def __init__(
        self,
        heuristics: Judge | Sequence[Judge],
        model_judge: Judge,
        *,
        borderline: tuple[float, float] = (0.4, 0.7),
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        cheap = (heuristics,) if callable(getattr(heuristics, "judge", None)) else heuristics
        self.heuristics: tuple[Judge, ...] = tuple(cheap)  # type: ignore[arg-type]
        if not self.heuristics:
            raise ValueError("heuristics must hold at least one judge")
        require_judges(self.heuristics, "HybridJudge heuristics")
        require_judges([model_judge], "HybridJudge model_judge")
        self.model_judge = model_judge
        self.borderline = _borderline(borderline)

    @property
    def _calls_per_model_judgment(self) -> int:
        expected = getattr(self.model_judge, "expected_calls", 1)
        return expected if isinstance(expected, int) and expected >= 0 else 1

    async def judge(self, ctx: Context) -> Judgment:
        results = await gather_ordered(run_judge(h, ctx) for h in self.heuristics)
        named = [
            (judge_name(h), result) for h, result in zip(self.heuristics, results, strict=True)
        ]
        checks = [Check.of(name, result) for name, result in named]
        usage = Usage.total(result.usage for result in results)
        broken = [name for name, result in named if result.status is Status.ERROR]
        values = [v for _, result in named if (v := _value(result)) is not None]
        score = sum(values) / len(values) if values else None
        lo, hi = self.borderline
        metadata: dict[str, Any] = {
            "judge": self.name,
            "heuristic_score": score,
            "borderline": [lo, hi],
            "heuristics": {name: result.status.value for name, result in named},
        }
        if broken:
            escalated = f"heuristics broke: {', '.join(broken)}"
        elif score is None:
            escalated = "no heuristic gave a value"
        elif score < lo or score > hi:
            passed = score > hi
            side = f"above {hi:g}" if passed else f"below {lo:g}"
            return Judgment(
                Status.PASS if passed else Status.FAIL,
                NumericScore(score),
                f"settled by heuristics: mean score {score:.2f} {side}",
                tuple(checks),
                confidence=None,
                usage=usage,
                metadata={
                    **metadata,
                    "decided_by": "heuristics",
                    "escalated": None,
                    "model_calls_saved": self._calls_per_model_judgment,
                },
            )
        else:
            escalated = f"mean score {score:.2f} is within {lo:g}..{hi:g}"
        decision = await run_judge(self.model_judge, ctx)
        return decision.evolve(
            checks=(*checks, *decision.checks),
            usage=Usage.total([usage, decision.usage]),
            metadata={
                **dict(decision.metadata),
                **metadata,
                "decided_by": "model",
                "escalated": escalated,
                "model_calls_saved": 0,
                "model_judge": judge_name(self.model_judge),
            },
        )
