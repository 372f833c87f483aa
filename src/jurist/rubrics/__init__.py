"""Rubrics: criteria with five anchored levels, examples, weights and essential flags,
kept as YAML files in a library (built in, plus the directories in JURIST_RUBRICS_PATH)."""

from jurist.rubrics._library import RubricError, get_rubric, list_rubrics, load_rubric
from jurist.rubrics._model import Rubric, RubricCriterion, RubricExample

__all__ = [
    "Rubric",
    "RubricCriterion",
    "RubricError",
    "RubricExample",
    "get_rubric",
    "list_rubrics",
    "load_rubric",
]
