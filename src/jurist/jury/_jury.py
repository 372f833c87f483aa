"""Jury: several judges vote, a strategy aggregates their judgments into one verdict."""

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from jurist.core import (
    BaseJudge,
    Context,
    Count,
    Judge,
    Judgment,
    Usage,
    combined_kind,
    gather_ordered,
    judge_name,
    require_judges,
    run_sync,
    trace_span,
    tracing_enabled,
)
from jurist.jury._ballot import Ballot, VotingStrategy, check_weight
from jurist.jury._members import cast
from jurist.jury._tally import ballot_check
from jurist.jury._verdict import Verdict

Weights = Mapping[str, float] | Sequence[float]


class Jury(BaseJudge):
    """Judges that vote on a context; `strategy` turns their ballots into one judgment.

    `weights` is None (every judge 1.0), a mapping of judge name to weight (judges it leaves
    out get 1.0), or a sequence aligned with `judges`. Weights must be finite and >= 0; a
    judge of weight 0 is heard and recorded but does not vote. Member names must be unique.
    `parallel`, `max_concurrency`, `name` and `description` are keyword-only.

    `vote(ctx)` runs every member and never raises for a broken one: a judge that raises is
    an ERROR ballot, handled by the strategy's ErrorPolicy; a strategy that raises makes the
    aggregated judgment ERROR while the individual judgments are kept. Members that vote
    themselves (a nested Jury or Cascade) are voted, their verdicts kept as sub-verdicts.
    With `parallel` the members run concurrently, at most `max_concurrency` at a time when
    given; results keep the judges' order either way.

    A Jury is a judge too: `judge(ctx)` returns the aggregated judgment, so juries nest and
    compose with `&`, `|` and `~`.
    """

    def __init__(
        self,
        judges: Sequence[Judge],
        strategy: VotingStrategy,
        weights: Weights | None = None,
        *,
        parallel: bool = True,
        max_concurrency: Count | None = None,
        name: str | None = None,
        description: str = "",
    ) -> None:
        members = tuple(judges)
        if not members:
            raise ValueError("a Jury needs at least one judge")
        require_judges(members, "Jury")
        names = [judge_name(j) for j in members]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(
                f"jury members need distinct names, but {repeated} appear more than once; "
                "wrap one with jurist.named(judge, 'other')"
            )
        if not callable(getattr(strategy, "aggregate", None)):
            raise TypeError(f"{strategy!r} is not a voting strategy: it has no aggregate()")
        if max_concurrency is not None and (
            isinstance(max_concurrency, bool)
            or not isinstance(max_concurrency, int)
            or max_concurrency < 1
        ):
            raise ValueError(f"max_concurrency must be an int >= 1, got {max_concurrency!r}")
        super().__init__(name or f"jury({', '.join(names)})", description)
        self.judges: tuple[Judge, ...] = members
        self.names: tuple[str, ...] = tuple(names)
        self.strategy = strategy
        self.weights: Mapping[str, float] = MappingProxyType(_weights(names, weights))
        self.parallel = parallel
        self.max_concurrency = max_concurrency
        self.kind = combined_kind(members)

    async def vote(self, ctx: Context) -> Verdict:
        """Run every member and aggregate their judgments into a Verdict."""
        if not tracing_enabled():
            return await self._vote(ctx)
        attributes = {
            "jurist.jury.name": self.name,
            "jurist.jury.strategy": judge_name(self.strategy),
            "jurist.jury.judges": self.names,
        }
        # The members' judgment spans, made by run_judge in their own tasks, nest under it.
        with trace_span(f"jury {self.name}", attributes) as span:
            verdict = await self._vote(ctx)
            if span is not None:
                span.judged(verdict.aggregated)
                span.set({"jurist.jury.verdict": verdict.status.value})
            return verdict

    async def _vote(self, ctx: Context) -> Verdict:
        cast_votes = await (self._concurrently(ctx) if self.parallel else self._in_order(ctx))
        judgments = tuple(judgment for judgment, _ in cast_votes)
        ballots = [
            Ballot(name, judgment, self.weights[name])
            for name, judgment in zip(self.names, judgments, strict=True)
        ]
        return Verdict(
            self._aggregate(ballots),
            judgments,
            dict(zip(self.names, judgments, strict=True)),
            self.weights,
            tuple(verdict for _, verdict in cast_votes if verdict is not None),
        )

    async def judge(self, ctx: Context) -> Judgment:
        return (await self.vote(ctx)).aggregated

    def vote_sync(self, ctx: Context) -> Verdict:
        """`vote` from sync code, inside or outside a running event loop."""
        return run_sync(lambda: self.vote(ctx))

    async def _in_order(self, ctx: Context) -> list[tuple[Judgment, Verdict | None]]:
        return [await cast(member, ctx) for member in self.judges]

    async def _concurrently(self, ctx: Context) -> list[tuple[Judgment, Verdict | None]]:
        return await gather_ordered(
            (cast(member, ctx) for member in self.judges), limit=self.max_concurrency or None
        )

    def _aggregate(self, ballots: Sequence[Ballot]) -> Judgment:
        strategy = judge_name(self.strategy)
        try:
            result: object = self.strategy.aggregate(ballots)
        except Exception as exc:  # noqa: BLE001 - a broken strategy is an ERROR verdict
            return _strategy_error(
                f"voting strategy {strategy!r} raised {type(exc).__name__}: {exc}",
                exc,
                strategy,
                ballots,
            )
        if not isinstance(result, Judgment):
            return _strategy_error(
                f"voting strategy {strategy!r} returned a {type(result).__name__}, not a Judgment",
                None,
                strategy,
                ballots,
            )
        return result


def _strategy_error(
    reason: str, exc: Exception | None, strategy: str, ballots: Sequence[Ballot]
) -> Judgment:
    return Judgment.error(
        reason,
        exc,
        checks=(ballot_check(b) for b in ballots),
        usage=Usage.total(b.judgment.usage for b in ballots),
        metadata={"strategy": strategy},
    )


def _weights(names: Sequence[str], weights: Weights | None) -> dict[str, float]:
    if weights is None:
        return dict.fromkeys(names, 1.0)
    if isinstance(weights, Mapping):
        unknown = [key for key in weights if key not in names]
        if unknown:
            raise ValueError(f"weights name judges not on the jury: {unknown}; members: {names}")
        return {name: check_weight(name, weights.get(name, 1.0)) for name in names}
    if isinstance(weights, str | bytes) or not isinstance(weights, Sequence):
        raise TypeError(
            "weights must be a mapping of judge name to weight or a sequence aligned "
            f"with the judges, got {type(weights).__name__}"
        )
    if len(weights) != len(names):
        raise ValueError(
            f"got {len(weights)} weights for {len(names)} judges; "
            "a sequence of weights must align with the judges"
        )
    return {name: check_weight(name, weight) for name, weight in zip(names, weights, strict=True)}
