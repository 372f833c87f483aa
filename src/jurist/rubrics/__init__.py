"""Rubrics: criteria with five anchored levels, examples, weights and essential flags,
kept as YAML files in a library (built in, plus the directories in JURIST_RUBRICS_PATH);
and `Criterion`, the name, description and weight every criterion has. A rubric criterion
names how it is scored (`CriterionMethod`: plain, claims, coverage, sentences)."""

from jurist.rubrics._library import (
    LocatedRubric,
    RubricError,
    get_rubric,
    list_rubrics,
    load_rubric,
    locate_rubrics,
)
from jurist.rubrics._model import (
    METHOD_OPTIONS,
    Criterion,
    CriterionMethod,
    Rubric,
    RubricCriterion,
    RubricExample,
)

__all__ = [
    "METHOD_OPTIONS",
    "Criterion",
    "CriterionMethod",
    "LocatedRubric",
    "Rubric",
    "RubricCriterion",
    "RubricError",
    "RubricExample",
    "get_rubric",
    "list_rubrics",
    "load_rubric",
    "locate_rubrics",
]
