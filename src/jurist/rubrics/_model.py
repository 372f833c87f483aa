"""The rubric model: what a rubric file must say, checked field by field; and the criterion
every criterion extends."""

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jurist.core import NonBlank

SCALE = (1, 2, 3, 4, 5)
_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*\Z")

Level = Annotated[int, Field(ge=1, le=5)]
Score = Annotated[float, Field(ge=1, le=5)]


class RubricExample(BaseModel):
    """A worked example for few-shot prompting: an output and the score it deserves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    score: Level
    output: str = Field(min_length=1)
    reasoning: str = ""


class Criterion(BaseModel):
    """What an output is judged on: a name, what it asks, and how much it counts against
    the others (a weighted mean's weight). A rubric's criterion extends it with levels;
    an improvement cycle scores a prompt's responses on criteria as they are."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: NonBlank
    description: NonBlank
    # A number, never text that looks like one; an infinite weight would swamp the mean.
    weight: float = Field(1.0, gt=0, strict=True, allow_inf_nan=False)


class RubricCriterion(Criterion):
    """One criterion of a rubric: what each level 1..5 looks like, and how it counts.

    `threshold` is the score the criterion must reach to pass; an `essential` criterion
    below its `minimum` (default: its threshold) fails the whole rubric, whatever the
    overall score.
    """

    anchors: dict[Level, str]
    steps: tuple[str, ...] = ()
    examples: tuple[RubricExample, ...] = ()
    essential: bool = False
    threshold: Score = 3.0
    minimum: Score | None = None

    @field_validator("anchors")
    @classmethod
    def _five_anchors(cls, anchors: dict[int, str]) -> dict[int, str]:
        missing = [level for level in SCALE if level not in anchors]
        if missing:
            raise ValueError(f"needs an anchor for each score 1..5; missing {missing}")
        empty = [level for level, text in anchors.items() if not text.strip()]
        if empty:
            raise ValueError(f"anchors {empty} are empty")
        return dict(sorted(anchors.items()))

    @property
    def essential_minimum(self) -> float:
        return self.minimum if self.minimum is not None else self.threshold


class Rubric(BaseModel):
    """A named set of criteria; the overall score is their weighted mean on 1..5, and the
    rubric passes when it reaches `pass_score` and no essential criterion failed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str = Field(min_length=1)
    description: str = ""
    version: str = "1"
    pass_score: Score = 3.0
    criteria: tuple[RubricCriterion, ...] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(
                "must be lower case letters, digits, '.', '_' or '-', starting with a "
                "letter or digit"
            )
        return value

    @field_validator("criteria")
    @classmethod
    def _unique_names(cls, criteria: tuple[RubricCriterion, ...]) -> tuple[RubricCriterion, ...]:
        # A field validator, not a model one, so the error names the field `criteria`.
        first: dict[str, int] = {}
        for index, criterion in enumerate(criteria):
            if criterion.name in first:
                raise ValueError(
                    f"criterion name {criterion.name!r} appears twice "
                    f"(criteria[{first[criterion.name]}] and criteria[{index}])"
                )
            first[criterion.name] = index
        return criteria

    def criterion(self, name: str) -> RubricCriterion:
        for criterion in self.criteria:
            if criterion.name == name:
                return criterion
        raise KeyError(
            f"rubric {self.id!r} has no criterion {name!r}; it has "
            f"{[c.name for c in self.criteria]}"
        )

    def only(self, *names: str) -> "Rubric":
        """The same rubric restricted to some criteria (e.g. one SummEval dimension)."""
        chosen = tuple(self.criterion(name) for name in names)
        return self.model_copy(update={"criteria": chosen})
