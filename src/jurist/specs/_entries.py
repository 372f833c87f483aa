"""The spec types jurist registers: leaf judges, composition, voting strategies, juries and
cascades. Each is its constructor plus what a spec gives differently (data forms of
Python-only parameters, and spec-only conveniences such as a rubric by id)."""

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field, model_validator

from jurist.core import Judge, Name, Text, all_of, any_of, judge_name, not_
from jurist.judges import (
    AnswerRelevanceJudge,
    ContainsJudge,
    ContextRelevanceJudge,
    CoverageJudge,
    CriteriaJudge,
    CriterionJudge,
    FaithfulnessJudge,
    FocusJudge,
    HallucinationJudge,
    JsonJudge,
    LengthJudge,
    PairwiseJudge,
    RegexJudge,
    RubricJudge,
    SchemaJudge,
    SentenceChecksJudge,
    ToolArgumentsJudge,
    ToolCallJudge,
    TrajectoryJudge,
)
from jurist.jury import (
    Average,
    Cascade,
    Consensus,
    Jury,
    Majority,
    Median,
    Tier,
    TierPolicy,
    WeightedAverage,
)
from jurist.prompts import PromptError, PromptTemplate
from jurist.rubrics import Rubric, RubricExample, list_rubrics
from jurist.specs._fields import (
    MAX_CRITERIA,
    REGEX_FLAGS,
    Dimensions,
    Keywords,
    RegexFlag,
    RubricRef,
    SchemaValue,
    Weights,
)
from jurist.specs._registry import Site, Spec, build_value, construct, register, registry

Judges = Annotated[tuple["JudgeSpec", ...], Field(min_length=1)]  # type: ignore[name-defined]  # noqa: F821
LENGTH_UNITS = ("chars", "words")
Criteria = Annotated[tuple[Text, ...], Field(min_length=1)]


def _template(spec: Any, values: dict[str, Any], site: Site) -> dict[str, Any]:
    """The `template` keyword: left out when unset (the judge's own default), else the
    package's template of that name (never a file)."""
    name = values.pop("template", None)
    if name is None:
        return values
    try:
        return {**values, "template": PromptTemplate.named(name)}
    except PromptError as exc:
        raise site.at("template").error(str(exc)) from exc


def _rubric(ref: str | Rubric, site: Site) -> Rubric:
    """An inline rubric, or the library's rubric of that id. Only ids are looked up:
    `get_rubric` would also read a file named like the id, and a spec must not."""
    if isinstance(ref, Rubric):
        return ref
    rubrics = list_rubrics()
    for rubric in rubrics:
        if rubric.id == ref:
            return rubric
    known = ", ".join(r.id for r in rubrics) or "(none)"
    raise site.error(f"no rubric with id {ref!r}; known ids: {known}")


def _rubric_judge(spec: Any, values: dict[str, Any], site: Site) -> dict[str, Any]:
    rubric = _rubric(values["rubric"], site.at("rubric"))
    known = [c.name for c in rubric.criteria]
    for index, criterion in enumerate(values["criteria"] or ()):
        if criterion not in known:
            where = site.at("criteria").at(index)
            problem = f"rubric {rubric.id!r} has no criterion {criterion!r}; it has {known}"
            raise where.error(problem)
    return _template(spec, {**values, "rubric": rubric}, site)


def _pairwise(spec: Any, values: dict[str, Any], site: Site) -> dict[str, Any]:
    if values["rubric"] is not None:
        values = {**values, "rubric": _rubric(values["rubric"], site.at("rubric"))}
    return _template(spec, values, site)


def _regex(spec: Any, values: dict[str, Any], site: Site) -> dict[str, Any]:
    flags = 0
    for flag in values["flags"]:
        flags |= REGEX_FLAGS[flag]
    return {**values, "flags": flags}


def _distinct_names(members: Sequence[Judge], site: Site) -> None:
    first: dict[str, int] = {}
    for index, member in enumerate(members):
        name = judge_name(member)
        if name in first:
            where = site.at(index).at("name")
            raise where.error(
                f"{name!r} is already the name of {site.at(first[name]).path}; jury members "
                "need distinct names, so give one of them a `name`"
            )
        first[name] = index


def _jury(spec: Any, values: dict[str, Any], site: Site) -> dict[str, Any]:
    _distinct_names(values["judges"], site.at("judges"))
    return values


class TierSpec(Spec):
    """A cascade stage: one `judge` (which may be a jury), or `judges` with a `strategy`
    (and `weights`) that vote as a jury. `policy` says when the tier settles the verdict;
    the last tier, and only the last, is `final`."""

    name: Name
    policy: TierPolicy
    judge: "JudgeSpec | None" = None  # type: ignore[name-defined]  # noqa: F821
    judges: Judges | None = None
    strategy: "StrategySpec | None" = None  # type: ignore[name-defined]  # noqa: F821
    weights: Weights | None = None

    @model_validator(mode="after")
    def _judge_or_jury(self) -> "TierSpec":
        if (self.judge is None) == (self.judges is None):
            raise ValueError("a tier takes either `judge` or `judges` (with a `strategy`)")
        if self.judges is not None and self.strategy is None:
            raise ValueError("a tier with `judges` needs a `strategy` to aggregate their votes")
        if self.judge is not None and (self.strategy is not None or self.weights is not None):
            raise ValueError(
                "`strategy` and `weights` go with `judges`; a single `judge` does not vote"
            )
        return self

    def build(self, site: Site) -> Tier:
        if self.judge is not None:
            member = build_value(self.judge, site.at("judge"))
        else:
            values = {
                "judges": build_value(self.judges, site.at("judges")),
                "strategy": build_value(self.strategy, site.at("strategy")),
                "weights": self.weights,
            }
            _distinct_names(values["judges"], site.at("judges"))
            member = construct(registry["jury"], values, self.model_fields_set, site)
        try:
            return Tier(self.name, member, self.policy)
        except ValueError as exc:
            raise site.error(str(exc)) from exc


_LEAVES: tuple[tuple[str, Any, dict[str, Any]], ...] = (
    ("schema", SchemaJudge, {"fields": {"schema": SchemaValue}}),
    ("json", JsonJudge, {}),
    ("contains", ContainsJudge, {"fields": {"keywords": Keywords}}),
    (
        "regex",
        RegexJudge,
        {"fields": {"pattern": str, "flags": (tuple[RegexFlag, ...], ())}, "adapt": _regex},
    ),
    ("length", LengthJudge, {}),
    ("criterion", CriterionJudge, {"adapt": _template}),
    (
        "criteria",
        CriteriaJudge,
        {
            "fields": {
                "criteria": Annotated[
                    tuple[Text, ...], Field(min_length=1, max_length=MAX_CRITERIA)
                ]
            },
            "adapt": _template,
        },
    ),
    (
        "rubric",
        RubricJudge,
        {
            "fields": {
                "rubric": RubricRef,
                "criteria": Criteria | None,
                "examples": dict[str, tuple[RubricExample, ...]] | None,
            },
            "skip": ("seed",),
            "adapt": _rubric_judge,
        },
    ),
    (
        "pairwise",
        PairwiseJudge,
        {
            "fields": {"rubric": RubricRef | None},
            "adapt": _pairwise,
        },
    ),
    (
        "hallucination",
        HallucinationJudge,
        {"skip": ("extractor",)},
    ),
    ("faithfulness", FaithfulnessJudge, {"skip": ("extractor",)}),
    ("answer_relevance", AnswerRelevanceJudge, {}),
    ("context_relevance", ContextRelevanceJudge, {}),
    ("coverage", CoverageJudge, {"skip": ("key_facts",)}),
    ("focus", FocusJudge, {"skip": ("key_facts",)}),
    (
        "sentences",
        SentenceChecksJudge,
        {"fields": {"dimensions": Dimensions}},
    ),
    ("tool_call", ToolCallJudge, {}),
    ("tool_arguments", ToolArgumentsJudge, {"fields": {"schema": SchemaValue}}),
    ("trajectory", TrajectoryJudge, {}),
    ("all_of", all_of, {"fields": {"judges": Judges}}),
    ("any_of", any_of, {"fields": {"judges": Judges}}),
    ("not", not_, {"fields": {"judge": "JudgeSpec"}}),
)

for _kind, _construct, _options in _LEAVES:
    register(_kind, _construct, **_options)

for _kind, _strategy in (
    ("majority", Majority),
    ("consensus", Consensus),
    ("average", Average),
    ("weighted_average", WeightedAverage),
    ("median", Median),
):
    register(_kind, _strategy, role="strategy")

register(
    "jury",
    Jury,
    fields={
        "judges": Judges,
        "strategy": "StrategySpec",
        "weights": Weights | None,
    },
    adapt=_jury,
)
# Cascade's own checks are all about the tiers.
register(
    "cascade",
    Cascade,
    fields={"tiers": Annotated[tuple["TierSpec", ...], Field(min_length=1)]},
    errors_at="tiers",
)
registry.add_model(TierSpec)
