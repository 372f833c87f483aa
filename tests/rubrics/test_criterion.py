"""The one criterion shape: a name, what it asks and a weight, which a rubric's criterion
extends with its levels and an improvement cycle uses as it is."""

import pytest
from pydantic import ValidationError

from jurist.rubrics import Criterion, RubricCriterion

ANCHORS = {1: "none", 2: "weak", 3: "some", 4: "good", 5: "full"}


def test_a_rubric_criterion_is_a_criterion_with_levels():
    criterion = RubricCriterion(name="clarity", description="Reads easily.", anchors=ANCHORS)
    assert isinstance(criterion, Criterion)
    assert (criterion.name, criterion.description, criterion.weight) == (
        "clarity",
        "Reads easily.",
        1.0,
    )
    assert set(Criterion.model_fields) < set(RubricCriterion.model_fields)


def test_a_criterion_is_a_name_what_it_asks_and_a_weight():
    criterion = Criterion(name="format", description="The answer is a list", weight=2)
    assert criterion.model_dump() == {
        "name": "format",
        "description": "The answer is a list",
        "weight": 2.0,
    }
    with pytest.raises(ValidationError):
        Criterion(name="format", description="The answer is a list", anchors=ANCHORS)


@pytest.mark.parametrize("kind", [Criterion, RubricCriterion])
@pytest.mark.parametrize(
    ("given", "field", "problem"),
    [
        ({"name": "  "}, "name", "must not be blank"),
        ({"name": ""}, "name", "must not be blank"),
        ({"description": "\n"}, "description", "must not be blank"),
        ({"weight": 0}, "weight", "greater than 0"),
        ({"weight": float("inf")}, "weight", "finite number"),
        ({"weight": "2"}, "weight", "valid number"),
    ],
)
def test_every_criterion_refuses_the_same_things_the_same_way(kind, given, field, problem):
    data = {"name": "clarity", "description": "Reads easily.", "anchors": ANCHORS, **given}
    if kind is Criterion:
        del data["anchors"]
    with pytest.raises(ValidationError) as caught:
        kind.model_validate(data)
    error = caught.value.errors()[0]
    assert error["loc"] == (field,)
    assert problem in error["msg"]
