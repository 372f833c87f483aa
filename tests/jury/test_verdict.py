"""Verdict: immutable, recursive, and a lossless JSON round trip."""

import json

import pytest
from pydantic import ValidationError

from fakes import Fixed, Raising
from jurist.core import (
    BooleanScore,
    CategoricalScore,
    Context,
    Judgment,
    NumericScore,
    Status,
    Usage,
)
from jurist.jury import Cascade, Jury, Majority, Median, Tier, TierPolicy, Verdict

CTX = Context("g", "o")


async def nested_verdict() -> Verdict:
    grades = ("good", "bad")
    inner = Jury(
        [
            Fixed("n", Judgment.ok("fine", score=NumericScore(7, 0, 10), confidence=0.8)),
            Fixed("c", Judgment.ok(score=CategoricalScore("good", grades))),
            Fixed("b", Judgment.fail(score=BooleanScore(False), usage=Usage(3, 4, 0.01, "m"))),
            Raising("r", KeyError("missing")),
        ],
        Median(category_map={"good": 1.0, "bad": 0.0}),
        weights={"b": 0.5},
        name="inner",
    )
    cascade = Cascade(
        [
            Tier("t1", Fixed("x", Judgment.abstain("?")), TierPolicy.ACCEPT_ON_ALL_PASS),
            Tier("t2", inner, TierPolicy.FINAL),
        ],
        name="cascade",
    )
    return await Jury([cascade, Fixed("plain", Judgment.ok())], Majority()).vote(CTX)


async def test_nested_round_trip_through_json() -> None:
    verdict = await nested_verdict()
    assert len(verdict.sub_verdicts) == 1
    assert len(verdict.sub_verdicts[0].sub_verdicts) == 2
    assert len(verdict.sub_verdicts[0].sub_verdicts[1].individual) == 4
    text = verdict.to_json()
    restored = Verdict.from_json(text)
    assert restored == verdict
    assert restored.to_json() == text
    assert restored.sub_verdicts[0].by_name["t2/r"].error_info == {
        "type": "KeyError",
        "message": "'missing'",
    }


async def test_round_trip_through_dict() -> None:
    verdict = await nested_verdict()
    data = verdict.to_dict()
    assert json.loads(json.dumps(data)) == data  # plain JSON data
    assert set(data) == {"aggregated", "individual", "by_name", "weights", "sub_verdicts"}
    assert Verdict.from_dict(data) == verdict


def test_shortcuts_follow_the_aggregate() -> None:
    verdict = Verdict(Judgment.ok(), (Judgment.ok(),), {"a": Judgment.ok()}, {"a": 1.0})
    assert verdict.passed
    assert verdict.status is Status.PASS
    failed = Verdict(Judgment.fail(), (), {}, {})
    assert not failed.passed
    assert failed.status is Status.FAIL


def test_verdict_is_immutable() -> None:
    by_name = {"a": Judgment.ok()}
    verdict = Verdict(Judgment.ok(), (Judgment.ok(),), by_name, {"a": 1.0})
    by_name["b"] = Judgment.fail()
    assert list(verdict.by_name) == ["a"]
    with pytest.raises(TypeError):
        verdict.by_name["b"] = Judgment.fail()  # type: ignore[index]
    with pytest.raises(TypeError):
        verdict.weights["a"] = 2.0  # type: ignore[index]
    with pytest.raises(AttributeError):
        verdict.aggregated = Judgment.fail()  # type: ignore[misc]


@pytest.mark.parametrize("weight", [-1.0, float("nan"), float("inf")])
def test_verdict_rejects_bad_weights(weight: float) -> None:
    with pytest.raises(ValidationError, match="'a'"):
        Verdict(Judgment.ok(), (), {}, {"a": weight})


def test_invalid_data_is_rejected() -> None:
    with pytest.raises(ValidationError):
        Verdict.from_dict({"aggregated": {"status": "maybe"}, "individual": []})
