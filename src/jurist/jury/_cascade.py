"""Cascade: tiers of judges or juries run in order until one settles the verdict."""

from collections.abc import Sequence
from dataclasses import dataclass

from jurist.core import (
    AttributeValue,
    BaseJudge,
    BooleanScore,
    Context,
    Judge,
    Judgment,
    Status,
    Usage,
    combined_kind,
    judge_name,
    require_judges,
    run_sync,
    trace_span,
    tracing_enabled,
)
from jurist.jury._members import cast, single
from jurist.jury._policies import TierPolicy
from jurist.jury._verdict import Verdict


@dataclass(frozen=True)
class Tier:
    """One named stage of a cascade: a judge or jury, and when its verdict settles things."""

    name: str
    judge: Judge
    policy: TierPolicy

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a tier needs a non-empty name, got {self.name!r}")
        require_judges([self.judge], f"tier {self.name!r}")
        object.__setattr__(self, "policy", TierPolicy(self.policy))


class Cascade(BaseJudge):
    """Tiers run in order, cheapest first; a tier's policy says whether it settles the verdict.

    - A tier whose verdict is ERROR stops the cascade with ERROR: an error must never turn
      into a PASS by falling through to a lenient later tier.
    - REJECT_ON_ANY_FAIL stops with FAIL when the tier's verdict, or any single judgment in
      it, is FAIL (a passing majority with a dissenter still rejects).
    - ACCEPT_ON_ALL_PASS stops with PASS when the tier's verdict and all its judgments pass.
    - FINAL, the last tier and only the last, always settles.

    The verdict's aggregated judgment is the settling tier's, with metadata "tier" and
    "tiers_run" added and usage summed over every tier that ran. Its individual judgments
    are those of all tiers run, keyed "tier/judge"; each tier's verdict is a sub-verdict.
    A plain judge as a tier is a one-judge verdict of weight 1.0.
    """

    def __init__(
        self, tiers: Sequence[Tier], name: str | None = None, description: str = ""
    ) -> None:
        stages = tuple(tiers)
        if not stages:
            raise ValueError("a Cascade needs at least one tier")
        for position, tier in enumerate(stages):
            if not isinstance(tier, Tier):
                raise TypeError(f"cascade tier {position} ({tier!r}) is not a Tier")
        names = [t.name for t in stages]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"cascade tiers need distinct names, but {repeated} repeat")
        for tier in stages[:-1]:
            if tier.policy is TierPolicy.FINAL:
                raise ValueError(
                    f"tier {tier.name!r} is FINAL but not last; only the last tier may be FINAL"
                )
        last = stages[-1]
        if last.policy is not TierPolicy.FINAL:
            raise ValueError(
                f"the last tier, {last.name!r}, must be FINAL (it is {last.policy.value}); "
                "otherwise a context could pass through every tier undecided"
            )
        super().__init__(name or f"cascade({', '.join(names)})", description)
        self.tiers: tuple[Tier, ...] = stages
        self.kind = combined_kind(t.judge for t in stages)

    async def vote(self, ctx: Context) -> Verdict:
        """Run tiers in order until one settles; later tiers do not run."""
        if not tracing_enabled():
            return await self._vote(ctx)
        attributes: dict[str, AttributeValue] = {
            "jurist.cascade.name": self.name,
            "jurist.cascade.tiers": [tier.name for tier in self.tiers],
        }
        # The tiers' spans (a judge's judgment, a jury's votes) nest under it.
        with trace_span(f"cascade {self.name}", attributes) as span:
            verdict = await self._vote(ctx)
            if span is not None:
                span.judged(verdict.aggregated)
                span.set(
                    {
                        "jurist.cascade.verdict": verdict.status.value,
                        "jurist.cascade.settled_by": verdict.aggregated.metadata.get("tier"),
                        "jurist.cascade.tiers_run": len(verdict.sub_verdicts),
                    }
                )
            return verdict

    async def _vote(self, ctx: Context) -> Verdict:
        done: list[tuple[Tier, Verdict]] = []
        for tier in self.tiers:
            judgment, verdict = await cast(tier.judge, ctx)
            if verdict is None:
                verdict = single(judge_name(tier.judge), judgment)
            done.append((tier, verdict))
            settled = _settle(tier, verdict)
            if settled is not None:
                return _cascade_verdict(tier, settled, done)
        # __init__ made the last tier FINAL, and a FINAL tier always settles
        raise AssertionError("unreachable: the last tier is FINAL")

    async def judge(self, ctx: Context) -> Judgment:
        return (await self.vote(ctx)).aggregated

    def vote_sync(self, ctx: Context) -> Verdict:
        """`vote` from sync code, inside or outside a running event loop."""
        return run_sync(lambda: self.vote(ctx))


def _settle(tier: Tier, verdict: Verdict) -> Judgment | None:
    """The judgment that ends the cascade at this tier, or None to go on."""
    aggregated = verdict.aggregated
    if aggregated.status is Status.ERROR or tier.policy is TierPolicy.FINAL:
        return aggregated
    if tier.policy is TierPolicy.REJECT_ON_ANY_FAIL:
        if aggregated.status is Status.FAIL:
            return aggregated
        failed = [name for name, j in verdict.by_name.items() if j.status is Status.FAIL]
        if failed:
            return _rejected(aggregated, failed)
    if (
        tier.policy is TierPolicy.ACCEPT_ON_ALL_PASS
        and aggregated.passed
        and all(j.passed for j in verdict.individual)
    ):
        return aggregated
    return None


def _rejected(aggregated: Judgment, failed: list[str]) -> Judgment:
    # The tier's own aggregate did not fail, so what it said about passing no longer holds;
    # a numeric or categorical score still measures something and is kept.
    score = aggregated.score
    if isinstance(score, BooleanScore):
        score = BooleanScore(False)
    reasoning = f"rejected because {', '.join(failed) or 'a judge'} failed"
    if aggregated.reasoning:
        reasoning += f"; the tier's {aggregated.status.value} was: {aggregated.reasoning}"
    return aggregated.evolve(status=Status.FAIL, score=score, confidence=None, reasoning=reasoning)


def _cascade_verdict(tier: Tier, settled: Judgment, done: list[tuple[Tier, Verdict]]) -> Verdict:
    aggregated = settled.evolve(
        usage=Usage.total(v.aggregated.usage for _, v in done),
        metadata={
            **settled.metadata,
            "tier": tier.name,
            "tiers_run": [t.name for t, _ in done],
        },
    )
    return Verdict(
        aggregated,
        tuple(j for _, v in done for j in v.individual),
        {f"{t.name}/{name}": j for t, v in done for name, j in v.by_name.items()},
        {f"{t.name}/{name}": w for t, v in done for name, w in v.weights.items()},
        tuple(v for _, v in done),
    )
