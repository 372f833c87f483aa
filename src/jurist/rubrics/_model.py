"""The rubric model: what a rubric file must say, checked field by field; and the criterion
every criterion extends."""

import re
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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


class CriterionMethod(StrEnum):
    """How a criterion is scored on 1..5. `plain` asks the criterion itself, G-Eval style;
    the others ask smaller questions read as probabilities: `claims` checks each of the
    output's claims against the source (1 + 4 x the least P(supported)), `coverage` checks
    each of the source's key facts against the output (1 + 4 x the mean P(covered)),
    `sentences` asks of each sentence whether it is fluent, or follows from the one before
    (1 + 4 x the mean P(yes))."""

    PLAIN = "plain"
    CLAIMS = "claims"
    COVERAGE = "coverage"
    SENTENCES = "sentences"


# The options each method takes ("" is its default): the claims' aggregate, coverage with
# the off-topic half of relevance, the sentence question (by default the criterion's name).
METHOD_OPTIONS: dict[CriterionMethod, tuple[str, ...]] = {
    CriterionMethod.PLAIN: ("",),
    CriterionMethod.CLAIMS: ("", "min", "mean", "share"),
    CriterionMethod.COVERAGE: ("", "focus"),
    CriterionMethod.SENTENCES: ("", "coherence", "fluency"),
}


class RubricCriterion(Criterion):
    """One criterion of a rubric: what each level 1..5 looks like, and how it counts.

    `threshold` is the score the criterion must reach to pass; an `essential` criterion
    below its `minimum` (default: its threshold) fails the whole rubric, whatever the
    overall score. `method` says how it is scored (`CriterionMethod`), with its `option`;
    a rubric file may write both as one `method: claims:mean`.
    """

    anchors: dict[Level, str]
    steps: tuple[str, ...] = ()
    examples: tuple[RubricExample, ...] = ()
    essential: bool = False
    threshold: Score = 3.0
    minimum: Score | None = None
    method: CriterionMethod = CriterionMethod.PLAIN
    option: str = ""

    @model_validator(mode="before")
    @classmethod
    def _method_with_option(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("method"), str):
            return data
        method, colon, option = data["method"].partition(":")
        if not colon:
            return data
        if data.get("option"):
            raise ValueError(
                f"method {data['method']!r} names an option and so does option "
                f"{data['option']!r}: give it once"
            )
        return {**data, "method": method.strip(), "option": option.strip()}

    @model_validator(mode="after")
    def _known_option(self) -> Self:
        offered = METHOD_OPTIONS[self.method]
        if self.option not in offered:
            named = [o for o in offered if o]
            takes = f"takes only {named}" if named else "takes no option"
            raise ValueError(f"method {self.method.value!r} {takes}, not {self.option!r}")
        if self.method is CriterionMethod.SENTENCES and not self.sentence_question:
            raise ValueError(
                f"method 'sentences' checks coherence or fluency: name one "
                f"(sentences:fluency) or name the criterion so, not {self.name!r}"
            )
        return self

    @property
    def sentence_question(self) -> str:
        """The sentence checks a `sentences` criterion asks: its option, else its name
        when that is one of them ("" when neither)."""
        if self.option:
            return self.option
        return self.name if self.name in METHOD_OPTIONS[CriterionMethod.SENTENCES] else ""

    @property
    def method_name(self) -> str:
        """The method as a rubric file and `--method` write it: `claims`, `claims:mean`."""
        return f"{self.method.value}:{self.option}" if self.option else self.method.value

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
