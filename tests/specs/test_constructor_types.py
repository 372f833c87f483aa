"""A spec field takes its type from the constructor's own annotation where the constructor
accepts no more than a spec does: the bound is declared once, on the constructor (with the
shared types of jurist.core), and a spec is refused on it with the field's path."""

from typing import Any, get_type_hints

import pytest
from pydantic import TypeAdapter, ValidationError

from jurist.judges import (
    ContainsJudge,
    CriterionJudge,
    HallucinationJudge,
    LengthJudge,
    PairwiseJudge,
    RubricJudge,
    SentenceChecksJudge,
)
from jurist.jury import Average, Jury, Median, WeightedAverage
from jurist.specs import JudgeSpecError, judge_from_spec


def jury(strategy: dict[str, Any], **options: Any) -> dict[str, Any]:
    return {"type": "jury", "judges": [{"type": "json"}], "strategy": strategy, **options}


# (constructor, parameter, a value its annotation refuses, a spec giving it, path, message)
NARROWED = [
    (
        ContainsJudge,
        "mode",
        "most",
        {"type": "contains", "keywords": "refund", "mode": "most"},
        "mode",
        "Input should be 'all' or 'any'",
    ),
    (
        LengthJudge,
        "min_chars",
        -1,
        {"type": "length", "min_chars": -1},
        "min_chars",
        "Input should be greater than or equal to 0",
    ),
    (
        CriterionJudge,
        "criterion",
        "",
        {"type": "criterion", "criterion": ""},
        "criterion",
        "String should have at least 1 character",
    ),
    (
        HallucinationJudge,
        "max_unsupported",
        -1,
        {"type": "hallucination", "max_unsupported": -1},
        "max_unsupported",
        "Input should be greater than or equal to 0",
    ),
    (
        PairwiseJudge,
        "tie_margin",
        0.5,
        {"type": "pairwise", "tie_margin": 0.5},
        "tie_margin",
        "Input should be less than 0.5",
    ),
    (
        RubricJudge,
        "pass_score",
        6.0,
        {"type": "rubric", "rubric": "tone", "pass_score": 6.0},
        "pass_score",
        "Input should be less than or equal to 5",
    ),
    (
        SentenceChecksJudge,
        "threshold",
        0.5,
        {"type": "sentences", "threshold": 0.5},
        "threshold",
        "Input should be greater than or equal to 1",
    ),
    (
        Average,
        "threshold",
        2.0,
        jury({"type": "average", "threshold": 2.0}),
        "strategy.threshold",
        "Input should be less than or equal to 1",
    ),
    (
        Median,
        "category_map",
        {"bad": 1.5},
        jury({"type": "median", "category_map": {"bad": 1.5}}),
        "strategy.category_map.bad",
        "Input should be less than or equal to 1",
    ),
    (
        Jury,
        "max_concurrency",
        0,
        jury({"type": "majority"}, max_concurrency=0),
        "max_concurrency",
        "Input should be greater than or equal to 1",
    ),
]


def _annotation(construct: type, parameter: str) -> Any:
    hints = get_type_hints(construct.__init__, include_extras=True)  # type: ignore[misc]
    return hints[parameter]


@pytest.mark.parametrize(
    ("constructor", "spec", "path", "message"),
    [((c, p, r), s, path, m) for c, p, r, s, path, m in NARROWED],
    ids=[f"{c.__name__}.{p}" for c, p, *_ in NARROWED],
)
def test_a_bound_on_the_constructor_refuses_the_spec_value_at_its_path(
    constructor, spec, path, message
):
    construct, parameter, refused = constructor
    # The constructor's own annotation holds the bound...
    with pytest.raises(ValidationError):
        TypeAdapter(_annotation(construct, parameter)).validate_python(refused)
    # ...and the spec, typed from it, is refused on it.
    with pytest.raises(JudgeSpecError) as caught:
        judge_from_spec(spec, model="test:unused")
    first = caught.value.problems[0]
    assert (first.path, first.message[: len(message)]) == (path, message)


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        # A spec's numbers are numbers, never text that looks like one, at any depth.
        ({"type": "hallucination", "max_unsupported": "1"}, "max_unsupported"),
        ({"type": "length", "max_words": 2.0}, "max_words"),
        ({"type": "pairwise", "tie_margin": "0.1"}, "tie_margin"),
        (jury({"type": "weighted_average", "threshold": "0.5"}), "strategy.threshold"),
        (jury({"type": "average", "category_map": {"a": "0.5"}}), "strategy.category_map.a"),
        (jury({"type": "majority"}, max_concurrency=True), "max_concurrency"),
    ],
)
def test_a_constructor_typed_field_stays_strict(spec, path):
    with pytest.raises(JudgeSpecError) as caught:
        judge_from_spec(spec, model="test:unused")
    assert caught.value.problems[0].path == path


def test_values_within_the_bounds_build():
    built = judge_from_spec(
        jury(
            {"type": "weighted_average", "threshold": 0.7, "category_map": {"ok": 1, "meh": 0.5}},
            max_concurrency=2,
        ),
        model="test:unused",
    )
    assert isinstance(built, Jury)
    assert isinstance(built.strategy, WeightedAverage)
    assert built.strategy.threshold == 0.7
    assert dict(built.strategy.category_map or {}) == {"ok": 1, "meh": 0.5}
