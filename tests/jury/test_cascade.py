"""Cascade: tiers run in order and stop as soon as one settles the verdict."""

import asyncio

import pytest

from fakes import Fixed, Raising
from jurist.core import (
    BooleanScore,
    Context,
    JudgeKind,
    Judgment,
    NumericScore,
    Status,
    Usage,
)
from jurist.jury import (
    Average,
    Cascade,
    ErrorPolicy,
    Jury,
    Majority,
    TiePolicy,
    Tier,
    TierPolicy,
    Verdict,
)

CTX = Context("summarise", "a summary")
REJECT, ACCEPT, FINAL = (
    TierPolicy.REJECT_ON_ANY_FAIL,
    TierPolicy.ACCEPT_ON_ALL_PASS,
    TierPolicy.FINAL,
)


def ok(name: str, **fields: object) -> Fixed:
    return Fixed(name, Judgment.ok(f"{name} ok", **fields))  # type: ignore[arg-type]


def no(name: str) -> Fixed:
    return Fixed(name, Judgment.fail(f"{name} no"))


# --- construction ---------------------------------------------------------------------


def test_needs_a_tier() -> None:
    with pytest.raises(ValueError, match="at least one tier"):
        Cascade([])


def test_last_tier_must_be_final() -> None:
    with pytest.raises(ValueError, match=r"'deep'.*FINAL"):
        Cascade([Tier("cheap", ok("a"), REJECT), Tier("deep", ok("b"), ACCEPT)])


def test_only_the_last_tier_may_be_final() -> None:
    with pytest.raises(ValueError, match="'cheap' is FINAL but not last"):
        Cascade([Tier("cheap", ok("a"), FINAL), Tier("deep", ok("b"), FINAL)])


def test_tier_names_must_be_distinct() -> None:
    with pytest.raises(ValueError, match=r"\['t'\]"):
        Cascade([Tier("t", ok("a"), REJECT), Tier("t", ok("b"), FINAL)])


def test_tiers_must_be_tiers() -> None:
    with pytest.raises(TypeError, match="not a Tier"):
        Cascade([ok("a")])  # type: ignore[list-item]


def test_tier_checks_its_parts() -> None:
    with pytest.raises(ValueError, match="non-empty name"):
        Tier("", ok("a"), FINAL)
    with pytest.raises(TypeError, match="not a judge"):
        Tier("t", object(), FINAL)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'sometimes'"):
        Tier("t", ok("a"), "sometimes")  # type: ignore[arg-type]
    assert Tier("t", ok("a"), "final").policy is FINAL  # type: ignore[arg-type]


def test_name_and_kind() -> None:
    model = Fixed("m", Judgment.ok(), JudgeKind.MODEL)
    cascade = Cascade([Tier("cheap", ok("a"), REJECT), Tier("deep", model, FINAL)])
    assert cascade.name == "cascade(cheap, deep)"
    assert cascade.kind is JudgeKind.HYBRID
    assert Cascade([Tier("only", model, FINAL)], name="c").kind is JudgeKind.MODEL


# --- settling -------------------------------------------------------------------------


async def test_reject_on_any_fail_stops_on_a_failing_tier() -> None:
    later = ok("deep")
    cascade = Cascade([Tier("cheap", no("lint"), REJECT), Tier("final", later, FINAL)])
    verdict = await cascade.vote(CTX)
    assert verdict.status is Status.FAIL
    assert later.calls == 0
    assert verdict.aggregated.metadata["tier"] == "cheap"
    assert verdict.aggregated.metadata["tiers_run"] == ("cheap",)


async def test_reject_on_any_fail_stops_on_a_single_dissent_in_a_passing_tier() -> None:
    later = ok("deep")
    majority = Jury([ok("a"), ok("b"), no("c")], Majority())
    cascade = Cascade([Tier("cheap", majority, REJECT), Tier("final", later, FINAL)])
    verdict = await cascade.vote(CTX)
    assert verdict.status is Status.FAIL
    assert later.calls == 0
    assert "c failed" in verdict.aggregated.reasoning
    assert verdict.aggregated.score == BooleanScore(False)
    assert verdict.aggregated.confidence is None


async def test_reject_keeps_a_numeric_score_when_overriding() -> None:
    scored = Jury(
        [ok("a", score=NumericScore(0.9)), Fixed("b", Judgment.fail(score=NumericScore(0.4)))],
        Average(),
    )
    verdict = await Cascade([Tier("t", scored, REJECT), Tier("f", ok("z"), FINAL)]).vote(CTX)
    assert verdict.status is Status.FAIL
    assert verdict.aggregated.score == NumericScore(0.65)


async def test_reject_on_any_fail_goes_on_when_all_pass() -> None:
    final = no("deep")
    cascade = Cascade([Tier("cheap", ok("lint"), REJECT), Tier("final", final, FINAL)])
    verdict = await cascade.vote(CTX)
    assert final.calls == 1
    assert verdict.status is Status.FAIL
    assert verdict.aggregated.metadata["tier"] == "final"
    assert verdict.aggregated.metadata["tiers_run"] == ("cheap", "final")


async def test_accept_on_all_pass_stops_when_everyone_passes() -> None:
    later = no("deep")
    cascade = Cascade(
        [Tier("cheap", Jury([ok("a"), ok("b")], Majority()), ACCEPT), Tier("final", later, FINAL)]
    )
    verdict = await cascade.vote(CTX)
    assert verdict.status is Status.PASS
    assert later.calls == 0


async def test_accept_on_all_pass_goes_on_with_a_dissent() -> None:
    final = no("deep")
    panel = Jury([ok("a"), ok("b"), no("c")], Majority())  # aggregated PASS, c dissents
    cascade = Cascade([Tier("cheap", panel, ACCEPT), Tier("final", final, FINAL)])
    verdict = await cascade.vote(CTX)
    assert final.calls == 1
    assert verdict.status is Status.FAIL


async def test_accept_on_all_pass_does_not_reject() -> None:
    final = ok("deep")
    cascade = Cascade([Tier("cheap", no("lint"), ACCEPT), Tier("final", final, FINAL)])
    assert (await cascade.vote(CTX)).status is Status.PASS
    assert final.calls == 1


async def test_abstaining_tier_hands_on() -> None:
    final = ok("deep")
    tie = Jury([ok("a"), no("b")], Majority(tie=TiePolicy.ABSTAIN))
    cascade = Cascade([Tier("cheap", tie, ACCEPT), Tier("final", final, FINAL)])
    assert (await cascade.vote(CTX)).status is Status.PASS
    assert final.calls == 1


@pytest.mark.parametrize("policy", [REJECT, ACCEPT])
async def test_an_erroring_tier_stops_with_error(policy: TierPolicy) -> None:
    later = ok("deep")
    broken = Raising("parser", RuntimeError("parser crashed"))
    cascade = Cascade([Tier("cheap", broken, policy), Tier("final", later, FINAL)])
    verdict = await cascade.vote(CTX)
    assert verdict.status is Status.ERROR
    assert "parser crashed" in verdict.aggregated.reasoning
    assert later.calls == 0
    assert verdict.aggregated.metadata["tier"] == "cheap"


async def test_an_erroring_jury_tier_stops_with_error() -> None:
    later = ok("deep")
    panel = Jury([ok("a"), Raising("b")], Majority(errors=ErrorPolicy.PROPAGATE))
    cascade = Cascade([Tier("cheap", panel, ACCEPT), Tier("final", later, FINAL)])
    assert (await cascade.vote(CTX)).status is Status.ERROR
    assert later.calls == 0


async def test_final_tier_error_is_the_result() -> None:
    cascade = Cascade(
        [
            Tier("cheap", ok("a"), REJECT),
            Tier("final", Raising("deep", RuntimeError("parser crashed")), FINAL),
        ]
    )
    assert (await cascade.vote(CTX)).status is Status.ERROR


# --- the verdict ----------------------------------------------------------------------


async def test_verdict_collects_tiers_run() -> None:
    cheap = Jury(
        [ok("a", usage=Usage(1, 1)), ok("b")], Majority(), weights={"b": 2.0}, name="panel"
    )
    deep = Fixed("judge", Judgment.fail("too vague", usage=Usage(10, 2)))
    never = ok("never")
    cascade = Cascade(
        [
            Tier("cheap", cheap, REJECT),
            Tier("deep", deep, REJECT),
            Tier("final", never, FINAL),
        ]
    )
    verdict = await cascade.vote(CTX)
    assert verdict.status is Status.FAIL
    assert verdict.aggregated.reasoning == "too vague"
    assert list(verdict.by_name) == ["cheap/a", "cheap/b", "deep/judge"]
    assert dict(verdict.weights) == {"cheap/a": 1.0, "cheap/b": 2.0, "deep/judge": 1.0}
    assert verdict.individual == tuple(verdict.by_name.values())
    assert len(verdict.sub_verdicts) == 2
    assert verdict.sub_verdicts[0].aggregated.metadata["strategy"] == "majority"
    assert verdict.sub_verdicts[1].individual == (deep.judgment,)
    assert verdict.aggregated.usage == Usage(11, 3)  # every tier that ran
    assert never.calls == 0


async def test_cascade_is_a_judge_and_nests() -> None:
    inner = Cascade([Tier("cheap", no("x"), REJECT), Tier("deep", ok("y"), FINAL)], name="inner")
    outer = Cascade([Tier("first", inner, ACCEPT), Tier("last", ok("z"), FINAL)])
    verdict = await outer.vote(CTX)
    assert "first/cheap/x" in verdict.by_name
    assert verdict.status is Status.PASS  # inner failed, so first tier handed on
    assert verdict.sub_verdicts[0].aggregated.metadata["tier"] == "cheap"
    assert (await inner.judge(CTX)).status is Status.FAIL
    jury = Jury([inner, ok("w")], Majority(tie=TiePolicy.PASS))
    jury_verdict = await jury.vote(CTX)
    assert jury_verdict.sub_verdicts[0].aggregated.metadata["tiers_run"] == ("cheap",)


def test_vote_sync_outside_a_loop() -> None:
    cascade = Cascade([Tier("only", ok("a"), FINAL)])
    verdict = cascade.vote_sync(CTX)
    assert isinstance(verdict, Verdict)
    assert verdict.passed


async def test_vote_sync_inside_a_running_loop() -> None:
    asyncio.get_running_loop()
    cascade = Cascade([Tier("cheap", no("a"), REJECT), Tier("final", ok("b"), FINAL)])
    assert cascade.vote_sync(CTX).status is Status.FAIL
