"""Jury: construction checks, running members, aggregation, nesting and composition."""

import asyncio
import math
from collections.abc import Sequence

import pytest

from fakes import Fixed, Raising
from jurist.core import (
    AllOf,
    BaseJudge,
    CategoricalScore,
    Context,
    JudgeKind,
    Judgment,
    Status,
    Usage,
    judge,
    named,
)
from jurist.jury import (
    Average,
    Ballot,
    Consensus,
    ErrorPolicy,
    Jury,
    Majority,
    TiePolicy,
    Verdict,
    WeightedAverage,
)

CTX = Context("say hello", "hello")


def passing(name: str) -> Fixed:
    return Fixed(name, Judgment.ok(f"{name} likes it"))


def failing(name: str) -> Fixed:
    return Fixed(name, Judgment.fail(f"{name} does not"))


# --- construction ---------------------------------------------------------------------


def test_needs_a_judge() -> None:
    with pytest.raises(ValueError, match="at least one judge"):
        Jury([], Majority())


def test_members_must_be_judges() -> None:
    with pytest.raises(TypeError, match="not a judge"):
        Jury([passing("a"), object()], Majority())  # type: ignore[list-item]


def test_duplicate_names_are_rejected_with_a_hint() -> None:
    with pytest.raises(ValueError, match=r"\['a'\].*jurist\.named"):
        Jury([passing("a"), failing("a")], Majority())
    # the suggested fix works
    jury = Jury([passing("a"), named(failing("a"), "a2")], Majority())
    assert jury.names == ("a", "a2")


def test_strategy_must_aggregate() -> None:
    with pytest.raises(TypeError, match="voting strategy"):
        Jury([passing("a")], object())  # type: ignore[arg-type]


def test_weights_default_to_one() -> None:
    assert dict(Jury([passing("a"), passing("b")], Majority()).weights) == {"a": 1.0, "b": 1.0}


def test_weights_mapping_fills_missing_names_with_one() -> None:
    jury = Jury([passing("a"), passing("b")], Majority(), weights={"b": 2.5})
    assert dict(jury.weights) == {"a": 1.0, "b": 2.5}


def test_weights_mapping_with_unknown_names_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"\['zed'\]"):
        Jury([passing("a")], Majority(), weights={"a": 1.0, "zed": 2.0})


def test_weights_sequence_aligns_with_judges() -> None:
    jury = Jury([passing("a"), passing("b")], Majority(), weights=[3, 0.5])
    assert dict(jury.weights) == {"a": 3.0, "b": 0.5}
    with pytest.raises(ValueError, match="2 judges"):
        Jury([passing("a"), passing("b")], Majority(), weights=[1.0])


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, "2", True])
def test_bad_weights_name_the_judge(bad: object) -> None:
    with pytest.raises(ValueError, match="'b'"):
        Jury([passing("a"), passing("b")], Majority(), weights={"b": bad})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="'b'"):
        Jury([passing("a"), passing("b")], Majority(), weights=[1.0, bad])  # type: ignore[list-item]


def test_weights_of_another_type_are_rejected() -> None:
    with pytest.raises(TypeError, match="weights"):
        Jury([passing("a")], Majority(), weights="a")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_max_concurrency_must_be_a_positive_int(bad: object) -> None:
    with pytest.raises(ValueError, match="max_concurrency"):
        Jury([passing("a")], Majority(), max_concurrency=bad)  # type: ignore[arg-type]


def test_name_and_kind() -> None:
    same = Jury([passing("a"), passing("b")], Majority())
    assert same.name == "jury(a, b)"
    assert same.kind is JudgeKind.DETERMINISTIC
    model = Fixed("m", Judgment.ok(), JudgeKind.MODEL)
    mixed = Jury([passing("a"), model], Majority(), name="panel", description="d")
    assert (mixed.name, mixed.description, mixed.kind) == ("panel", "d", JudgeKind.HYBRID)
    models = Jury([model, Fixed("m2", Judgment.ok(), JudgeKind.MODEL)], Majority())
    assert models.kind is JudgeKind.MODEL


# --- voting ---------------------------------------------------------------------------


@pytest.mark.parametrize("parallel", [True, False])
async def test_vote_returns_a_verdict_in_judge_order(parallel: bool) -> None:
    judges = [passing("a"), failing("b"), passing("c")]
    verdict = await Jury(judges, Majority(), weights=[1, 2, 0.5], parallel=parallel).vote(CTX)
    assert verdict.status is Status.FAIL  # b's weight 2 beats 1.5
    assert verdict.individual == tuple(j.judgment for j in judges)
    assert list(verdict.by_name) == ["a", "b", "c"]
    assert verdict.by_name["b"] == judges[1].judgment
    assert dict(verdict.weights) == {"a": 1.0, "b": 2.0, "c": 0.5}
    assert verdict.sub_verdicts == ()


async def test_judge_returns_the_aggregated_judgment() -> None:
    jury = Jury([passing("a"), passing("b")], Consensus())
    judgment = await jury.judge(CTX)
    assert judgment == (await jury.vote(CTX)).aggregated
    assert judgment.status is Status.PASS


async def test_a_raising_judge_is_an_error_ballot_not_a_crash() -> None:
    jury = Jury([passing("a"), Raising("flaky"), passing("c")], Majority())
    verdict = await jury.vote(CTX)
    error = verdict.by_name["flaky"]
    assert error.status is Status.ERROR
    assert error.error_info == {"type": "RuntimeError", "message": "model unavailable"}
    assert verdict.status is Status.PASS  # 2 pass vs 1 error counted as fail
    assert verdict.aggregated.metadata["error"] == 1


async def test_a_raising_judge_under_propagate_names_the_cause() -> None:
    jury = Jury([passing("a"), Raising("flaky")], Majority(errors=ErrorPolicy.PROPAGATE))
    verdict = await jury.vote(CTX)
    assert verdict.status is Status.ERROR
    assert "flaky" in verdict.aggregated.reasoning
    assert "model unavailable" in verdict.aggregated.reasoning


async def test_a_raising_strategy_is_an_error_verdict_keeping_the_judgments() -> None:
    graded = Fixed("g", Judgment.ok(score=CategoricalScore("good", ("good", "bad"))))
    jury = Jury([graded, passing("b")], Average())
    verdict = await jury.vote(CTX)
    assert verdict.status is Status.ERROR
    assert "'average'" in verdict.aggregated.reasoning
    assert verdict.aggregated.error_info is not None
    assert verdict.aggregated.error_info["type"] == "ValueError"
    assert "category_map" in verdict.aggregated.error_info["message"]
    assert verdict.individual == (graded.judgment, Judgment.ok("b likes it"))
    assert [c.name for c in verdict.aggregated.checks] == ["g", "b"]


async def test_a_strategy_returning_garbage_is_an_error_verdict() -> None:
    class Broken:
        name = "broken"

        def aggregate(self, ballots: Sequence[Ballot]) -> Judgment:
            return "yes"  # type: ignore[return-value]

    verdict = await Jury([passing("a")], Broken()).vote(CTX)
    assert verdict.status is Status.ERROR
    assert "'broken' returned a str" in verdict.aggregated.reasoning


async def test_strategy_sees_names_judgments_and_weights() -> None:
    seen: list[Ballot] = []

    class Spy:
        name = "spy"

        def aggregate(self, ballots: Sequence[Ballot]) -> Judgment:
            seen.extend(ballots)
            return Judgment.ok()

    judges = [passing("a"), failing("b")]
    await Jury(judges, Spy(), weights={"b": 0.25}).vote(CTX)
    assert seen == [Ballot("a", judges[0].judgment, 1.0), Ballot("b", judges[1].judgment, 0.25)]


async def test_zero_weight_judge_is_recorded_but_does_not_vote() -> None:
    jury = Jury([passing("a"), failing("shadow")], Consensus(), weights={"shadow": 0})
    verdict = await jury.vote(CTX)
    assert verdict.status is Status.PASS
    assert verdict.by_name["shadow"].status is Status.FAIL
    assert verdict.weights["shadow"] == 0.0


async def test_usage_is_summed_over_members() -> None:
    judges = [
        Fixed("a", Judgment.ok(usage=Usage(100, 10, cost_usd=0.5, model="m1"))),
        Fixed("b", Judgment.fail(usage=Usage(50, 5, cost_usd=0.25, model="m2"))),
        Fixed("c", Judgment.ok()),
    ]
    verdict = await Jury(judges, WeightedAverage()).vote(CTX)
    assert verdict.aggregated.usage == Usage(150, 15, cost_usd=0.75, model="m1+m2")


# --- concurrency ----------------------------------------------------------------------


class Ordered(BaseJudge):
    """Waits for `wait_for` (if any), then records that it finished and sets `then`."""

    def __init__(
        self, name: str, finished: list[str], wait_for: asyncio.Event | None, then: asyncio.Event
    ) -> None:
        super().__init__(name)
        self.finished, self.wait_for, self.then = finished, wait_for, then

    async def judge(self, ctx: Context) -> Judgment:
        if self.wait_for is not None:
            await self.wait_for.wait()
        self.finished.append(self.name)
        self.then.set()
        return Judgment.ok(self.name)


async def test_parallel_results_keep_judge_order_when_finishing_in_reverse() -> None:
    finished: list[str] = []
    events = [asyncio.Event() for _ in range(4)]
    # judge i waits for judge i+1, so the last one finishes first
    judges = [
        Ordered(f"j{i}", finished, events[i + 1] if i < 3 else None, events[i]) for i in range(4)
    ]
    async with asyncio.timeout(5):  # a sequential run would deadlock; fail instead of hang
        verdict = await Jury(judges, Majority()).vote(CTX)
    assert finished == ["j3", "j2", "j1", "j0"]
    assert [j.reasoning for j in verdict.individual] == ["j0", "j1", "j2", "j3"]
    assert list(verdict.by_name) == ["j0", "j1", "j2", "j3"]
    assert verdict.by_name["j2"].reasoning == "j2"


class Gauge:
    """Counts judges running at the same time and remembers the peak."""

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0


class Crowding(BaseJudge):
    """Holds on until `crowd` judges run at once (or the gate opens), yielding in between."""

    def __init__(self, name: str, gauge: Gauge, crowd: int, gate: asyncio.Event) -> None:
        super().__init__(name)
        self.gauge, self.crowd, self.gate = gauge, crowd, gate

    async def judge(self, ctx: Context) -> Judgment:
        self.gauge.running += 1
        self.gauge.peak = max(self.gauge.peak, self.gauge.running)
        if self.gauge.running >= self.crowd:
            self.gate.set()
        await self.gate.wait()
        # let every other ready judge start too, so an unbounded jury would overshoot
        for _ in range(5):
            await asyncio.sleep(0)
        self.gauge.running -= 1
        return Judgment.ok()


@pytest.mark.parametrize("limit", [1, 2, 3])
async def test_max_concurrency_bounds_running_judges(limit: int) -> None:
    gauge, gate = Gauge(), asyncio.Event()
    judges = [Crowding(f"j{i}", gauge, limit, gate) for i in range(6)]
    async with asyncio.timeout(5):
        verdict = await Jury(judges, Majority(), max_concurrency=limit).vote(CTX)
    assert gauge.peak == limit
    assert verdict.status is Status.PASS


async def test_unbounded_parallel_runs_all_at_once() -> None:
    gauge, gate = Gauge(), asyncio.Event()
    judges = [Crowding(f"j{i}", gauge, 6, gate) for i in range(6)]
    async with asyncio.timeout(5):  # gate opens only when all six run together
        await Jury(judges, Majority()).vote(CTX)
    assert gauge.peak == 6


async def test_sequential_runs_one_at_a_time() -> None:
    gauge, gate = Gauge(), asyncio.Event()
    judges = [Crowding(f"j{i}", gauge, 1, gate) for i in range(4)]
    async with asyncio.timeout(5):
        await Jury(judges, Majority(), parallel=False).vote(CTX)
    assert gauge.peak == 1


# --- nesting and composition ------------------------------------------------------------


async def test_nested_jury_is_voted_and_kept_as_sub_verdict() -> None:
    inner = Jury([passing("x"), failing("y")], Majority(tie=TiePolicy.PASS), name="inner")
    other = Jury([failing("z")], Majority(), name="other")
    outer = Jury([inner, passing("a"), other], Consensus(errors=ErrorPolicy.IGNORE))
    verdict = await outer.vote(CTX)
    assert [v.aggregated for v in verdict.sub_verdicts] == [
        verdict.by_name["inner"],
        verdict.by_name["other"],
    ]
    assert verdict.sub_verdicts[0].by_name["y"].status is Status.FAIL
    assert verdict.by_name["inner"].status is Status.PASS  # the tie went to PASS
    assert verdict.status is Status.FAIL  # other failed: no consensus
    assert "failed: other" in verdict.aggregated.reasoning


async def test_a_nested_vote_that_raises_is_an_error_ballot() -> None:
    class BrokenPanel(BaseJudge):
        async def judge(self, ctx: Context) -> Judgment:
            return Judgment.ok()

        async def vote(self, ctx: Context) -> Verdict:
            raise ConnectionError("panel unreachable")

    outer = Jury([BrokenPanel("panel"), passing("a")], Majority(errors=ErrorPolicy.PROPAGATE))
    verdict = await outer.vote(CTX)
    assert verdict.by_name["panel"].status is Status.ERROR
    assert verdict.by_name["panel"].error_info == {
        "type": "ConnectionError",
        "message": "panel unreachable",
    }
    assert verdict.sub_verdicts == ()
    assert verdict.status is Status.ERROR


async def test_a_nested_vote_returning_no_verdict_is_an_error_ballot() -> None:
    class OddPanel(BaseJudge):
        async def judge(self, ctx: Context) -> Judgment:
            return Judgment.ok()

        async def vote(self, ctx: Context) -> Judgment:
            return Judgment.ok()

    verdict = await Jury([OddPanel("odd")], Majority()).vote(CTX)
    assert verdict.by_name["odd"].status is Status.ERROR
    assert "not a Verdict" in verdict.by_name["odd"].reasoning


async def test_juries_compose_like_judges() -> None:
    panel = Jury([passing("a"), passing("b")], Consensus(), name="panel")

    @judge
    def short(ctx: Context) -> bool:
        return len(ctx.output_text()) < 3

    both = panel & short
    assert isinstance(both, AllOf)
    assert (await both.judge(CTX)).status is Status.FAIL
    assert (await (panel | short).judge(CTX)).status is Status.PASS
    assert (await (~panel).judge(CTX)).status is Status.FAIL


# --- sync wrapper ---------------------------------------------------------------------


def test_vote_sync_outside_a_loop() -> None:
    verdict = Jury([passing("a"), failing("b")], Majority(tie=TiePolicy.PASS)).vote_sync(CTX)
    assert isinstance(verdict, Verdict)
    assert verdict.status is Status.PASS


async def test_vote_sync_inside_a_running_loop() -> None:
    asyncio.get_running_loop()  # we are inside one
    verdict = Jury([passing("a"), failing("b")], Majority()).vote_sync(CTX)
    assert verdict.status is Status.FAIL
    assert list(verdict.by_name) == ["a", "b"]
