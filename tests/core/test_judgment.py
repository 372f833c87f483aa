import dataclasses
from pathlib import Path

import pytest
from pydantic import ValidationError

from jurist import (
    BooleanScore,
    CategoricalScore,
    Check,
    Judgment,
    NumericScore,
    Status,
    Usage,
    normalize,
    normalized_score,
)


def test_status_wire_names():
    assert [s.value for s in Status] == ["pass", "fail", "abstain", "error"]
    assert Status("abstain") is Status.ABSTAIN


def test_factories_set_status_and_passed():
    assert Judgment.ok("fine").passed
    assert Judgment.ok().status is Status.PASS
    assert not Judgment.fail("no").passed
    assert Judgment.fail("no").status is Status.FAIL
    assert Judgment.abstain("cannot tell").status is Status.ABSTAIN
    assert not Judgment.abstain().passed
    assert Judgment.error("down").status is Status.ERROR


def test_error_keeps_exception_type_and_message():
    class ModelDown(RuntimeError):
        pass

    judgment = Judgment.error("model call failed", ModelDown("503 from provider"))
    assert judgment.reasoning == "model call failed"
    assert judgment.error_info is not None
    assert judgment.error_info["type"].endswith("ModelDown")
    assert judgment.error_info["message"] == "503 from provider"
    builtin = Judgment.error("bad", ValueError("x"))
    assert builtin.error_info == {"type": "ValueError", "message": "x"}
    assert Judgment.from_json(judgment.to_json()) == judgment


def test_judgment_is_immutable_all_the_way_down():
    judgment = Judgment.ok(metadata={"nested": {"a": [1, 2]}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        judgment.status = Status.FAIL  # type: ignore[misc]
    with pytest.raises(TypeError):
        judgment.metadata["x"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        judgment.metadata["nested"]["a"] = 3


def test_metadata_is_copied_not_shared():
    meta = {"k": [1]}
    judgment = Judgment.ok(metadata=meta)
    meta["k"].append(2)
    assert list(judgment.metadata["k"]) == [1]


def test_full_json_round_trip_is_lossless():
    judgment = Judgment(
        Status.FAIL,
        NumericScore(2.0, 1.0, 5.0),
        "two criteria failed",
        (Check.ok("schema"), Check.fail("tone", "too casual")),
        0.8,
        Usage(120, 30, None, "local:qwen2.5-1.5b", 900.5),
        {"prompt_sha": "abc", "scores": [1, 2.5], "nested": {"ok": True, "none": None}},
    )
    again = Judgment.from_json(judgment.to_json())
    assert again == judgment
    assert again.to_dict() == judgment.to_dict()
    assert Judgment.from_dict(judgment.to_dict()) == judgment


@pytest.mark.parametrize(
    "score",
    [BooleanScore(True), NumericScore(0.25), CategoricalScore("GOOD", ("GOOD", "POOR"))],
)
def test_every_score_kind_round_trips(score):
    judgment = Judgment.ok(score=score)
    again = Judgment.from_json(judgment.to_json())
    assert again.score == score
    assert type(again.score) is type(score)


def test_metadata_is_normalised_to_json_values():
    judgment = Judgment.ok(metadata={"path": Path("/tmp/x"), "pair": (1, 2), "status": Status.PASS})
    assert judgment.metadata["path"] == "/tmp/x"
    assert tuple(judgment.metadata["pair"]) == (1, 2)
    assert judgment.metadata["status"] == "pass"
    assert Judgment.from_json(judgment.to_json()) == judgment


def test_metadata_that_is_not_json_safe_names_the_key():
    with pytest.raises(ValidationError, match=r"metadata\['a'\]\['b'\]"):
        Judgment.ok(metadata={"a": {"b": object()}})
    with pytest.raises(ValidationError, match="finite"):
        Judgment.ok(metadata={"x": float("nan")})
    with pytest.raises(ValidationError, match="keys must be strings"):
        Judgment.ok(metadata={1: "x"})


def test_wrong_types_name_the_field():
    with pytest.raises(ValidationError, match="status"):
        Judgment("maybe")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="confidence"):
        Judgment.ok(confidence=1.5)
    with pytest.raises(ValidationError, match="reasoning"):
        Judgment(Status.PASS, None, 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="positional"):
        Check("a", True, "m", "extra")  # type: ignore[call-arg]


def test_numeric_score_bounds_and_normalisation():
    assert NumericScore(85, 0, 100).normalized() == pytest.approx(0.85)
    assert NumericScore(1, 1, 5).normalized() == 0.0
    assert NumericScore(5, 1, 5).normalized() == 1.0
    with pytest.raises(ValidationError, match="outside"):
        NumericScore(6, 1, 5)
    with pytest.raises(ValidationError, match="below"):
        NumericScore(1, 5, 5)
    with pytest.raises(ValidationError, match="finite"):
        NumericScore(float("inf"), 0, 1)


def test_normalize_each_score_kind():
    assert normalize(BooleanScore(True)) == 1.0
    assert normalize(BooleanScore(False)) == 0.0
    assert normalize(NumericScore(3, 1, 5)) == 0.5
    good = CategoricalScore("GOOD", ("EXCELLENT", "GOOD", "POOR"))
    assert normalize(good, {"EXCELLENT": 1.0, "GOOD": 0.7, "POOR": 0.0}) == 0.7


def test_categorical_needs_a_map_and_a_known_category():
    good = CategoricalScore("GOOD", ("GOOD", "POOR"))
    with pytest.raises(ValueError, match="category_map"):
        normalize(good)
    with pytest.raises(ValueError, match="no value for category 'GOOD'"):
        normalize(good, {"POOR": 0.0})
    with pytest.raises(ValueError, match=r"outside 0\.\.1"):
        normalize(good, {"GOOD": 7})
    with pytest.raises(ValidationError, match="not one of"):
        CategoricalScore("FAIR", ("GOOD", "POOR"))


def test_usage_adds_and_unknown_cost_stays_unknown():
    a = Usage(100, 10, 0.002, "m1", 50.0)
    b = Usage(50, 5, 0.001, "m1", 25.0)
    total = a + b
    assert (total.input_tokens, total.output_tokens, total.total_tokens) == (150, 15, 165)
    assert total.cost_usd == pytest.approx(0.003)
    assert total.latency_ms == 75.0
    assert total.model == "m1"
    unknown = a + Usage(1, 1, None, "m2")
    assert unknown.cost_usd is None
    assert unknown.model == "m1+m2"
    assert sum([a, b]) == total
    assert Usage.total([None, a, None]) == a
    assert Usage.total([None]) is None
    assert Usage().cost_usd is None
    with pytest.raises(ValidationError, match="negative"):
        Usage(-1)


def test_usage_counts_calls_and_cache_hits():
    paid = Usage(100, 10, 0.002, "m", 50.0, calls=1)
    hit = Usage(100, 10, 0.0, "m", 0.5, calls=1, cached_calls=1)
    total = paid + hit
    assert (total.calls, total.cached_calls) == (2, 1)
    with pytest.raises(ValidationError, match="cached_calls"):
        Usage(calls=1, cached_calls=2)


def test_normalized_score_is_the_score_in_0_to_1_or_none() -> None:
    assert normalized_score(Judgment.ok(score=NumericScore(4.0, 1.0, 5.0))) == 0.75
    assert normalized_score(Judgment.fail(score=BooleanScore(False))) == 0.0
    assert normalized_score(Judgment.ok()) is None
    categorical = Judgment.ok(score=CategoricalScore("good", ("good", "bad")))
    assert normalized_score(categorical) is None
