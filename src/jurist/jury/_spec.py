"""Judge specs: a judge, a jury or a cascade described as data (JSON or YAML), and built.

A spec is a tree of objects, each with a `type`: leaf judges (`schema`, `json`, `contains`,
`regex`, `length`, `criterion`, `criteria`, `rubric`, `pairwise`, `hallucination`,
`faithfulness`, `answer_relevance`, `context_relevance`, `coverage`, `focus`,
`sentences`), composition (`all_of`, `any_of`, `not`) and voting (`jury`, `cascade`).
Every object refuses fields it does not know.

```yaml
type: cascade
tiers:
  - name: shape                   # cheap checks first: any failure rejects at once
    policy: reject_on_any_fail
    judge:
      type: all_of
      judges: [{type: json}, {type: length, max_words: 200}]
  - name: panel                   # a jury settles what the cheap tier let through
    policy: final
    strategy: {type: majority, tie: fail}
    judges:
      - {type: criterion, name: refund, criterion: The answer states the refund window}
      - {type: rubric, rubric: answer-quality, criteria: [correctness]}
      - {type: contains, keywords: [refund, days], mode: all}
```

A spec never names a model and never reads a file: whoever builds it decides which model
the model-backed judges ask (`judge_from_spec(spec, model=...)`), and rubrics are library
ids or inline objects, never paths. Malformed specs raise JudgeSpecError naming the place in
the spec (`tiers[1].judges[0].strategy.type`) and the problem.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    NamedTuple,
    ParamSpec,
    TypeVar,
    get_args,
)

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Strict,
    StrictBool,
    StrictFloat,
    StrictInt,
    Tag,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from jurist import core
from jurist.core import (
    KEY_FACTS,
    MAX_CLAIMS,
    Judge,
    JuristError,
    Name,
    StrictJsonError,
    all_of,
    any_of,
    judge_name,
    loads_strict,
    not_,
)
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
)
from jurist.jury._averaging import Average, Median, WeightedAverage
from jurist.jury._ballot import VotingStrategy
from jurist.jury._cascade import Cascade, Tier
from jurist.jury._counting import Consensus, Majority
from jurist.jury._jury import Jury
from jurist.jury._policies import ErrorPolicy, TiePolicy, TierPolicy
from jurist.llm import Model
from jurist.prompts import PromptError, PromptTemplate
from jurist.rubrics import Rubric, RubricExample, list_rubrics

T = TypeVar("T")
P = ParamSpec("P")

# The first problems go into the message; all of them are in JudgeSpecError.problems.
_SHOWN_PROBLEMS = 3

# Bounds on what one spec may ask for. Building and validating a spec recurse once per
# level, and every judge may call a model: a spec from a client must not be able to exhaust
# the stack or make thousands of calls.
MAX_SPEC_DEPTH = 32  # levels of objects and lists, the spec itself being the first
MAX_SPEC_JUDGES = 64  # judge objects, at every level (a service may lower it)
MAX_CRITERIA = 100  # criteria of one `criteria` judge: one model call each
MAX_ITEMS_EXTRACTED = 64  # claims, key facts or sentences one judge extracts and checks
_PATH_PARTS_SHOWN = 4
_LEADING_FIELD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")


# --- errors ---------------------------------------------------------------------------


class SpecProblem(NamedTuple):
    """One thing wrong with a spec: where (`judges[1].strategy.type`; "" for the whole
    spec) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class JudgeSpecError(JuristError, ValueError):
    """A spec that cannot be read or built. The message names the path inside the spec and
    the problem (the first few); `problems` holds every one, for an API's field errors."""

    def __init__(self, problems: Sequence[SpecProblem], source: str | None = None) -> None:
        self.problems: tuple[SpecProblem, ...] = tuple(problems)
        self.source = source
        shown = "; ".join(str(p) for p in self.problems[:_SHOWN_PROBLEMS])
        more = len(self.problems) - _SHOWN_PROBLEMS
        if more > 0:
            shown += f"; and {more} more"
        super().__init__(f"{source}: {shown}" if source else shown)

    @classmethod
    def at(cls, path: str, message: str) -> "JudgeSpecError":
        return cls([SpecProblem(path, message)])

    @classmethod
    def from_errors(
        cls, errors: Sequence[Mapping[str, Any]], data: Any, source: str | None = None
    ) -> "JudgeSpecError":
        """pydantic's errors in validating `data` as a spec, with spec paths: for a caller
        that validated a spec itself, e.g. as a field of a request body (strip that field's
        own location from each error's `loc` first)."""
        return cls(_problems(errors, data), source)


# --- field types ----------------------------------------------------------------------

# The judges' parameter types (core's, so that a spec and the judge it builds share their
# bounds), strict: a spec's numbers are numbers, never text that looks like one.
Threshold = Annotated[core.Threshold, Strict()]
Fraction = Annotated[core.Fraction, Strict()]
MinScore = Annotated[core.MinScore, Strict()]
Extracted = Annotated[core.Count, Field(le=MAX_ITEMS_EXTRACTED), Strict()]
Text = Annotated[str, Field(min_length=1)]
NonNegative = Annotated[StrictInt, Field(ge=0)]
RubricScore = Annotated[StrictFloat, Field(ge=1.0, le=5.0)]  # the 1-5 scale of human raters
TemplateName = Annotated[
    str,
    Field(
        min_length=1,
        description="a prompt template of the package (never a file); the judge's own if unset",
    ),
]
RegexFlag = Literal["ignorecase", "multiline", "dotall", "verbose", "ascii"]
_REGEX_FLAGS: dict[str, re.RegexFlag] = {
    "ignorecase": re.IGNORECASE,
    "multiline": re.MULTILINE,
    "dotall": re.DOTALL,
    "verbose": re.VERBOSE,
    "ascii": re.ASCII,
}


def _one_or_more(value: object) -> object:
    return [value] if isinstance(value, str) else value


Keywords = Annotated[
    tuple[Text, ...],
    BeforeValidator(_one_or_more, json_schema_input_type=str | list[str]),
    Field(min_length=1),
]


def _rubric_kind(value: object) -> str | None:
    if isinstance(value, str):
        return "id"
    if isinstance(value, Mapping | Rubric):
        return "inline"
    return None


RubricRef = Annotated[
    Annotated[str, Tag("id")] | Annotated[Rubric, Tag("inline")],
    Discriminator(
        _rubric_kind,
        custom_error_type="rubric_ref",
        custom_error_message="must be a rubric id (a string) or an inline rubric (an object)",
    ),
    Field(description="a rubric id of the library, or an inline rubric object"),
]


# --- building -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Site:
    """Where in the spec something is being built, and the model its judges ask."""

    path: str
    model: Model | str | None

    def at(self, part: str | int) -> "_Site":
        if isinstance(part, int):
            return _Site(f"{self.path}[{part}]", self.model)
        return _Site(f"{self.path}.{part}" if self.path else part, self.model)

    def error(self, message: str) -> JudgeSpecError:
        return JudgeSpecError.at(self.path, message)

    def make(
        self, spec: BaseModel, construct: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """`construct(*args, **kwargs)`, with a ValueError it raises (a constructor's own
        check) turned into a JudgeSpecError at the field of `spec` its message starts with,
        else here."""
        try:
            return construct(*args, **kwargs)
        except JudgeSpecError:
            raise
        except ValueError as exc:
            message = str(exc)
            found = _LEADING_FIELD.match(message)
            field = found.group(1) if found else ""
            if field in _wire_names(type(spec)) - {"type"}:
                indices = found.group(2) if found else ""
                raise JudgeSpecError.at(self.at(field).path + indices, message) from exc
            raise self.error(message) from exc


def _wire_names(model: type[BaseModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items()}


def _template(name: str | None, site: _Site) -> dict[str, Any]:
    """The `template` keyword for a judge: nothing when unset (the judge's own default)."""
    if name is None:
        return {}
    try:
        return {"template": PromptTemplate.named(name)}
    except PromptError as exc:
        raise site.at("template").error(str(exc)) from exc


def _rubric(ref: str | Rubric, site: _Site) -> Rubric:
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


def _distinct_names(members: Sequence[Judge], site: _Site) -> None:
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


# --- the spec models ------------------------------------------------------------------


def _type_is_required(schema: dict[str, Any]) -> None:
    # `type` has a default so Python code can write CriteriaSpec(criteria=[...]), but in
    # data it is the discriminator and must be there: the schema says so.
    if "type" in schema.get("properties", {}):
        schema["required"] = ["type", *schema.get("required", [])]


class _Spec(BaseModel):
    model_config = ConfigDict(
        json_schema_extra=_type_is_required,
        extra="forbid",
        frozen=True,
        allow_inf_nan=False,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class _NamedJudge(_Spec):
    name: Name | None = Field(None, description="the judge's name; its type's name if unset")
    description: str = ""

    def _named(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description}

    def _build(self, site: _Site) -> Judge:
        raise NotImplementedError


class SchemaSpec(_NamedJudge):
    """The output is JSON that follows a JSON Schema (remote `$ref`s are refused)."""

    type: Literal["schema"] = "schema"
    schema_: dict[str, Any] | StrictBool = Field(alias="schema")
    parse_text: StrictBool = True

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            SchemaJudge,
            self.schema_,
            parse_text=self.parse_text,
            **self._named(),
        )


class JsonSpec(_NamedJudge):
    """The output is valid JSON."""

    type: Literal["json"] = "json"

    def _build(self, site: _Site) -> Judge:
        return JsonJudge(**self._named())


class ContainsSpec(_NamedJudge):
    """The output contains keywords: all of them, or at least one (`mode: any`)."""

    type: Literal["contains"] = "contains"
    keywords: Keywords
    mode: Literal["all", "any"] = "all"
    case_sensitive: StrictBool = False

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            ContainsJudge,
            self.keywords,
            self.mode,
            self.case_sensitive,
            **self._named(),
        )


class RegexSpec(_NamedJudge):
    """A pattern occurs in the output (or, with `must_match: false`, does not)."""

    type: Literal["regex"] = "regex"
    pattern: str
    must_match: StrictBool = True
    flags: tuple[RegexFlag, ...] = ()

    def _build(self, site: _Site) -> Judge:
        flags = 0
        for flag in self.flags:
            flags |= _REGEX_FLAGS[flag]
        return site.make(
            self,
            RegexJudge,
            self.pattern,
            self.must_match,
            flags,
            **self._named(),
        )


class LengthSpec(_NamedJudge):
    """Inclusive bounds on the output's length in characters and in words."""

    type: Literal["length"] = "length"
    min_chars: NonNegative | None = None
    max_chars: NonNegative | None = None
    min_words: NonNegative | None = None
    max_words: NonNegative | None = None

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            LengthJudge,
            min_chars=self.min_chars,
            max_chars=self.max_chars,
            min_words=self.min_words,
            max_words=self.max_words,
            **self._named(),
        )


class CriterionSpec(_NamedJudge):
    """One acceptance criterion, asked of the model as yes/no; PASS when P(yes) reaches
    `threshold`."""

    type: Literal["criterion"] = "criterion"
    criterion: Text
    threshold: Threshold = 0.5
    reason_first: StrictBool = False
    template: TemplateName | None = None

    def _build(self, site: _Site) -> Judge:
        template = _template(self.template, site)
        return site.make(
            self,
            CriterionJudge,
            self.criterion,
            site.model,
            threshold=self.threshold,
            reason_first=self.reason_first,
            **self._named(),
            **template,
        )


class CriteriaSpec(_NamedJudge):
    """Acceptance criteria that must all hold; one call each, or one for all (`together`)."""

    type: Literal["criteria"] = "criteria"
    criteria: Annotated[tuple[Text, ...], Field(min_length=1, max_length=MAX_CRITERIA)]
    threshold: Threshold = 0.5
    together: StrictBool = False
    reason_first: StrictBool = False
    template: TemplateName | None = None

    def _build(self, site: _Site) -> Judge:
        template = _template(self.template, site)
        return site.make(
            self,
            CriteriaJudge,
            self.criteria,
            site.model,
            threshold=self.threshold,
            together=self.together,
            reason_first=self.reason_first,
            **self._named(),
            **template,
        )


class RubricSpec(_Spec):
    """G-Eval over a rubric: a library id or an inline rubric, optionally some of its
    criteria. The judge's description is the rubric's; its name is `rubric:<id>` if unset."""

    type: Literal["rubric"] = "rubric"
    name: Name | None = None
    rubric: RubricRef
    criteria: Annotated[tuple[Text, ...], Field(min_length=1)] | None = Field(
        None, description="only these criteria of the rubric (all if unset)"
    )
    pass_score: RubricScore | None = Field(None, description="the rubric's own if unset")
    examples: dict[str, tuple[RubricExample, ...]] | None = Field(
        None, description="more scored examples, by criterion name"
    )
    template: TemplateName | None = None
    max_tokens: Annotated[StrictInt, Field(ge=1, le=4096)] = 256
    temperature: Annotated[StrictFloat, Field(ge=0.0, le=2.0)] | None = None

    def _build(self, site: _Site) -> Judge:
        rubric = _rubric(self.rubric, site.at("rubric"))
        known = [c.name for c in rubric.criteria]
        for index, criterion in enumerate(self.criteria or ()):
            if criterion not in known:
                where = site.at("criteria").at(index)
                raise where.error(
                    f"rubric {rubric.id!r} has no criterion {criterion!r}; it has {known}"
                )
        template = _template(self.template, site)
        return site.make(
            self,
            RubricJudge,
            rubric,
            site.model,
            criteria=self.criteria,
            pass_score=self.pass_score,
            examples=self.examples,
            name=self.name,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            **template,
        )


class PairwiseSpec(_NamedJudge):
    """Is output A (`output`) better than B (`metadata.output_b`)? Asked in both orders."""

    type: Literal["pairwise"] = "pairwise"
    both_orders: StrictBool = True
    tie_margin: Annotated[StrictFloat, Field(ge=0.0, lt=0.5)] = 0.1
    rubric: RubricRef | None = None
    template: TemplateName | None = None
    max_tokens: Annotated[StrictInt, Field(ge=1, le=4096)] = 400
    temperature: Annotated[StrictFloat, Field(ge=0.0, le=2.0)] | None = None

    def _build(self, site: _Site) -> Judge:
        rubric = None if self.rubric is None else _rubric(self.rubric, site.at("rubric"))
        template = _template(self.template, site)
        return site.make(
            self,
            PairwiseJudge,
            site.model,
            both_orders=self.both_orders,
            tie_margin=self.tie_margin,
            rubric=rubric,
            **self._named(),
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            **template,
        )


class _GroundingSpec(_NamedJudge):
    threshold: Threshold = Field(0.5, description="the P(supported) a claim needs")
    together: StrictBool = False
    quote_first: StrictBool = False
    require_quote: StrictBool = True
    max_claims: Extracted = MAX_CLAIMS

    def _options(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "together": self.together,
            "quote_first": self.quote_first,
            "require_quote": self.require_quote,
            "max_claims": self.max_claims,
            **self._named(),
        }


class HallucinationSpec(_GroundingSpec):
    """The output's claims checked against its passages; FAIL when more than
    `max_unsupported` are unsupported."""

    type: Literal["hallucination"] = "hallucination"
    max_unsupported: NonNegative = 0

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            HallucinationJudge,
            site.model,
            max_unsupported=self.max_unsupported,
            **self._options(),
        )


class FaithfulnessSpec(_GroundingSpec):
    """The share of the output's claims its passages support; PASS from `min_score`."""

    type: Literal["faithfulness"] = "faithfulness"
    min_score: MinScore = 0.8

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            FaithfulnessJudge,
            site.model,
            min_score=self.min_score,
            **self._options(),
        )


class AnswerRelevanceSpec(_NamedJudge):
    """Does the answer address the question? Yes/no on P(yes)."""

    type: Literal["answer_relevance"] = "answer_relevance"
    threshold: Threshold = 0.5

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            AnswerRelevanceJudge,
            site.model,
            threshold=self.threshold,
            **self._named(),
        )


class ContextRelevanceSpec(_NamedJudge):
    """Is each retrieved passage relevant to the question? PASS when the share of relevant
    passages reaches `min_score`."""

    type: Literal["context_relevance"] = "context_relevance"
    threshold: Threshold = 0.5
    min_score: MinScore = 0.5

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            ContextRelevanceJudge,
            site.model,
            threshold=self.threshold,
            min_score=self.min_score,
            **self._named(),
        )


class CoverageSpec(_NamedJudge):
    """Relevance as coverage: the source's key facts (up to `facts`) checked against the
    output; with `off_topic`, the output's statements are also checked against them and
    the score is the harmonic mean of coverage and focus. PASS when the score reaches
    `min_score`."""

    type: Literal["coverage"] = "coverage"
    facts: Extracted = Field(
        KEY_FACTS, description="at most this many key facts are taken from the source"
    )
    min_score: MinScore = 0.5
    off_topic: StrictBool = Field(
        False, description="also flag the output's statements that are not about the key facts"
    )
    statements: Literal["claims", "sentences"] = Field(
        "claims",
        description="with off_topic: the output's claims (one extraction call) or sentences",
    )

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            CoverageJudge,
            site.model,
            facts=self.facts,
            min_score=self.min_score,
            off_topic=self.off_topic,
            statements=self.statements,
            **self._named(),
        )


class FocusSpec(_NamedJudge):
    """Relevance as focus: each of the output's statements asked whether it is about one
    of the source's key facts (up to `facts`); a statement under `threshold` is an
    off-topic issue, and PASS when the mean P(on topic) reaches `min_score`."""

    type: Literal["focus"] = "focus"
    facts: Extracted = Field(
        KEY_FACTS, description="at most this many key facts are taken from the source"
    )
    statements: Literal["claims", "sentences"] = Field(
        "claims", description="the output's claims (one extraction call) or its sentences"
    )
    threshold: Threshold = 0.5
    min_score: MinScore = 0.5

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            FocusJudge,
            site.model,
            facts=self.facts,
            statements=self.statements,
            threshold=self.threshold,
            min_score=self.min_score,
            **self._named(),
        )


SentenceDimension = Literal["fluency", "coherence"]


def _chosen_dimensions(chosen: tuple[str, ...]) -> tuple[str, ...]:
    # Checked here rather than by Field constraints, so the messages can say what to write.
    if not chosen:
        raise ValueError(f"name at least one dimension: {', '.join(get_args(SentenceDimension))}")
    for index, name in enumerate(chosen):
        if name in chosen[:index]:
            first = chosen.index(name)
            raise ValueError(f"dimensions[{index}] repeats dimensions[{first}] ({name!r})")
    return chosen


class SentencesSpec(_NamedJudge):
    """Fluency and coherence from per-sentence yes/no checks, each dimension scored
    1 + 4 x its mean P(yes); PASS when every dimension reaches `threshold` (1-5)."""

    type: Literal["sentences"] = "sentences"
    dimensions: Annotated[
        tuple[SentenceDimension, ...],
        AfterValidator(_chosen_dimensions),
        Field(json_schema_extra={"minItems": 1, "uniqueItems": True}),
    ] = ("fluency", "coherence")
    threshold: RubricScore = 3.0
    max_sentences: Extracted = Field(
        24, description="a longer output is judged on its first sentences"
    )

    def _build(self, site: _Site) -> Judge:
        return site.make(
            self,
            SentenceChecksJudge,
            site.model,
            dimensions=self.dimensions,
            threshold=self.threshold,
            max_sentences=self.max_sentences,
            **self._named(),
        )


# Composition and voting hold judge specs, hence the forward references to JudgeSpec.


class AllOfSpec(_NamedJudge):
    """PASS when every judge passes; stops at the first FAIL."""

    type: Literal["all_of"] = "all_of"
    judges: Annotated[tuple["JudgeSpec", ...], Field(min_length=1)]

    def _build(self, site: _Site) -> Judge:
        members = _build_all(self.judges, site.at("judges"))
        return site.make(self, all_of, *members, **self._named())


class AnyOfSpec(_NamedJudge):
    """PASS when some judge passes; stops at the first PASS."""

    type: Literal["any_of"] = "any_of"
    judges: Annotated[tuple["JudgeSpec", ...], Field(min_length=1)]

    def _build(self, site: _Site) -> Judge:
        members = _build_all(self.judges, site.at("judges"))
        return site.make(self, any_of, *members, **self._named())


class NotSpec(_NamedJudge):
    """PASS and FAIL swapped; ABSTAIN and ERROR kept."""

    type: Literal["not"] = "not"
    judge: "JudgeSpec"

    def _build(self, site: _Site) -> Judge:
        inner = _build_one(self.judge, site.at("judge"))
        return not_(inner, self.name, self.description)


# --- voting strategies ----------------------------------------------------------------


class _StrategySpec(_Spec):
    errors: ErrorPolicy = Field(ErrorPolicy.TREAT_AS_FAIL, description="what an ERROR vote means")

    def _build(self, site: _Site) -> VotingStrategy:
        raise NotImplementedError


class MajoritySpec(_StrategySpec):
    """PASS when passing votes outweigh failing ones; a tie is settled by `tie`."""

    type: Literal["majority"] = "majority"
    tie: TiePolicy = TiePolicy.FAIL

    def _build(self, site: _Site) -> VotingStrategy:
        return site.make(self, Majority, tie=self.tie, errors=self.errors)


class ConsensusSpec(_StrategySpec):
    """PASS only if every vote passes."""

    type: Literal["consensus"] = "consensus"

    def _build(self, site: _Site) -> VotingStrategy:
        return site.make(self, Consensus, errors=self.errors)


class _ThresholdSpec(_StrategySpec):
    threshold: Fraction = 0.5
    category_map: dict[str, Fraction] | None = Field(
        None, description="values in 0..1 for categorical scores"
    )
    _strategy: ClassVar[type[Average | WeightedAverage | Median]]

    def _build(self, site: _Site) -> VotingStrategy:
        strategy = self._strategy
        return site.make(
            self,
            strategy,
            threshold=self.threshold,
            errors=self.errors,
            category_map=self.category_map,
        )


class AverageSpec(_ThresholdSpec):
    """PASS when the mean of the votes' normalised scores reaches `threshold`."""

    type: Literal["average"] = "average"
    _strategy = Average


class WeightedAverageSpec(_ThresholdSpec):
    """Like average, each vote counting by its judge's weight."""

    type: Literal["weighted_average"] = "weighted_average"
    _strategy = WeightedAverage


class MedianSpec(_ThresholdSpec):
    """Like average, with the median of the votes' scores."""

    type: Literal["median"] = "median"
    _strategy = Median


StrategySpec = Annotated[
    MajoritySpec | ConsensusSpec | AverageSpec | WeightedAverageSpec | MedianSpec,
    Field(discriminator="type"),
]
Weights = dict[str, Annotated[StrictFloat, Field(ge=0.0)]]


def _jury(
    spec: BaseModel,
    judges: Sequence["JudgeSpec"],
    strategy: _StrategySpec,
    weights: Weights | None,
    site: _Site,
    **options: Any,
) -> Jury:
    members = _build_all(judges, site.at("judges"))
    _distinct_names(members, site.at("judges"))
    voting = strategy._build(site.at("strategy"))  # noqa: SLF001 - same module
    return site.make(spec, Jury, members, voting, weights, **options)


class JurySpec(_NamedJudge):
    """Judges that vote; the strategy turns their judgments into one. `weights` maps a
    member's name to its weight (1.0 if left out; 0 is heard but does not vote)."""

    type: Literal["jury"] = "jury"
    judges: Annotated[tuple["JudgeSpec", ...], Field(min_length=1)]
    strategy: StrategySpec
    weights: Weights | None = None
    parallel: StrictBool = True
    max_concurrency: Annotated[StrictInt, Field(ge=1)] | None = None

    def _build(self, site: _Site) -> Judge:
        return _jury(
            self,
            self.judges,
            self.strategy,
            self.weights,
            site,
            parallel=self.parallel,
            max_concurrency=self.max_concurrency,
            name=self.name,
            description=self.description,
        )


class TierSpec(_Spec):
    """A cascade stage: one `judge` (which may be a jury), or `judges` with a `strategy`
    (and `weights`) that vote as a jury. `policy` says when the tier settles the verdict;
    the last tier, and only the last, is `final`."""

    name: Name
    policy: TierPolicy
    judge: "JudgeSpec | None" = None
    judges: Annotated[tuple["JudgeSpec", ...], Field(min_length=1)] | None = None
    strategy: StrategySpec | None = None
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

    def _build(self, site: _Site) -> Tier:
        if self.judge is not None:
            member = _build_one(self.judge, site.at("judge"))
        elif self.judges is not None and self.strategy is not None:
            member = _jury(self, self.judges, self.strategy, self.weights, site)
        else:
            raise AssertionError("unreachable: _judge_or_jury requires judge or judges")
        return site.make(self, Tier, self.name, member, self.policy)


class CascadeSpec(_NamedJudge):
    """Tiers run in order, cheapest first, until one settles the verdict."""

    type: Literal["cascade"] = "cascade"
    tiers: Annotated[tuple[TierSpec, ...], Field(min_length=1)]

    def _build(self, site: _Site) -> Judge:
        tiers = [tier._build(site.at("tiers").at(i)) for i, tier in enumerate(self.tiers)]  # noqa: SLF001
        # Cascade's own checks are all about the tiers.
        return site.at("tiers").make(self, Cascade, tiers, self.name, self.description)


JudgeSpec = Annotated[
    SchemaSpec
    | JsonSpec
    | ContainsSpec
    | RegexSpec
    | LengthSpec
    | CriterionSpec
    | CriteriaSpec
    | RubricSpec
    | PairwiseSpec
    | HallucinationSpec
    | FaithfulnessSpec
    | AnswerRelevanceSpec
    | ContextRelevanceSpec
    | CoverageSpec
    | FocusSpec
    | SentencesSpec
    | AllOfSpec
    | AnyOfSpec
    | NotSpec
    | JurySpec
    | CascadeSpec,
    Field(discriminator="type"),
]
"""A judge, jury or cascade as data: a pydantic type (a union discriminated by `type`), so
it can be a field of a FastAPI request body."""

for _model in (AllOfSpec, AnyOfSpec, NotSpec, JurySpec, TierSpec, CascadeSpec):
    _model.model_rebuild()

_JUDGE_SPECS: tuple[type[_Spec], ...] = (
    SchemaSpec,
    JsonSpec,
    ContainsSpec,
    RegexSpec,
    LengthSpec,
    CriterionSpec,
    CriteriaSpec,
    RubricSpec,
    PairwiseSpec,
    HallucinationSpec,
    FaithfulnessSpec,
    AnswerRelevanceSpec,
    ContextRelevanceSpec,
    CoverageSpec,
    FocusSpec,
    SentencesSpec,
    AllOfSpec,
    AnyOfSpec,
    NotSpec,
    JurySpec,
    CascadeSpec,
)
_STRATEGY_SPECS: tuple[type[_Spec], ...] = (
    MajoritySpec,
    ConsensusSpec,
    AverageSpec,
    WeightedAverageSpec,
    MedianSpec,
)
# For "unknown field" messages: the fields each `type` takes.
_FIELDS_BY_TYPE: dict[str, list[str]] = {
    str(model.model_fields["type"].default): sorted(_wire_names(model) - {"type"})
    for model in (*_JUDGE_SPECS, *_STRATEGY_SPECS)
}
_STRATEGY_TYPES = frozenset(str(model.model_fields["type"].default) for model in _STRATEGY_SPECS)
_ADAPTER: TypeAdapter[Any] = TypeAdapter(JudgeSpec)


def _build_one(spec: "JudgeSpec", site: _Site) -> Judge:
    return spec._build(site)  # noqa: SLF001 - same module


def _build_all(specs: Sequence["JudgeSpec"], site: _Site) -> list[Judge]:
    return [_build_one(spec, site.at(index)) for index, spec in enumerate(specs)]


# --- reading pydantic's errors --------------------------------------------------------


def _spec_path(loc: Sequence[int | str], data: Any, missing: bool) -> tuple[str, Any]:
    """A pydantic error location as a path in the spec, and the object holding its last
    field. Locations also name union members (a `type` tag, "inline", "list[str]"); those
    are found by walking the data alongside and left out."""
    path = ""
    node = data
    parent: Any = None
    tag_open = True  # just entered an object: a discriminated union's tag may come next
    for position, part in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(node, list | tuple) and isinstance(part, int):
            path += f"[{part}]"
            parent, node = node, (node[part] if 0 <= part < len(node) else None)
            tag_open = True
        elif isinstance(node, Mapping):
            if tag_open and isinstance(part, str) and node.get("type") == part:
                tag_open = False
            elif part in node or (last and missing):
                path += f".{part}" if path else str(part)
                parent, node = node, node.get(part)
                tag_open = True
            # else: the label of a union member, not a place in the spec
        # else: a scalar's or a list's union member label
    return path, parent


def _message(error: Mapping[str, Any], parent: Any) -> tuple[str, bool]:
    """A readable message for one error, and whether it concerns the object's `type`."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in ("union_tag_invalid", "union_tag_not_found") and ctx.get("discriminator") in (
        "'type'",
        "type",
    ):
        if kind == "union_tag_not_found":
            return "required field is missing: every judge and strategy names its `type`", True
        return f"unknown type {ctx.get('tag')!r}; expected one of: {ctx.get('expected_tags')}", True
    if kind == "extra_forbidden":
        type_name = parent.get("type") if isinstance(parent, Mapping) else None
        fields = _FIELDS_BY_TYPE.get(type_name) if isinstance(type_name, str) else None
        if fields is not None:
            return f"unknown field; type {type_name!r} takes: {', '.join(fields)}", False
        return "unknown field", False
    if kind == "missing":
        return "required field is missing", False
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"]), False
    message = str(error["msg"])
    # A spec is JSON or YAML: say so in its words, not Python's.
    for python, data in _DATA_WORDS:
        message = message.replace(python, data)
    return message, False


_DATA_WORDS = (
    ("a valid dictionary", "an object"),
    ("a valid tuple", "a list"),
    ("Tuple should", "List should"),
    ("Dictionary should", "Object should"),
)


def _problems(errors: Sequence[Mapping[str, Any]], data: Any) -> list[SpecProblem]:
    found: list[tuple[str, str, str]] = []
    for error in errors:
        path, parent = _spec_path(error["loc"], data, error["type"] == "missing")
        message, about_type = _message(error, parent)
        if about_type:
            path = f"{path}.type" if path else "type"
        found.append((path, message, error["type"]))
    problems: list[SpecProblem] = []
    for path, message, kind in found:
        # pydantic counts only the items that validated, so a list whose item is wrong is
        # also "too short": the item's own error says what is wrong.
        if kind == "too_short" and any(other.startswith(f"{path}[") for other, _, _ in found):
            continue
        if problems and problems[-1].path == path:
            # Several members of a union refused the same value: say what each wanted.
            if message not in problems[-1].message:
                problems[-1] = SpecProblem(path, f"{problems[-1].message}, or {message}")
            continue
        problems.append(SpecProblem(path, message))
    return problems


# --- public functions -----------------------------------------------------------------


def parse_judge_spec(
    data: Any, source: str | None = None, *, max_judges: int = MAX_SPEC_JUDGES
) -> "JudgeSpec":
    """A spec from parsed JSON or YAML data; JudgeSpecError (naming `source`, when given,
    and the path inside the spec) if it is malformed, nests deeper than MAX_SPEC_DEPTH or
    holds more than `max_judges` judges."""
    _check_size(data, max_judges, source)
    try:
        spec: JudgeSpec = _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise JudgeSpecError(_problems(exc.errors(), data), source) from exc
    return spec


def judge_from_spec(
    spec: "Mapping[str, Any] | JudgeSpec",
    *,
    model: Model | str | None = None,
    max_judges: int = MAX_SPEC_JUDGES,
) -> Judge:
    """Build the judge, jury or cascade a spec describes.

    Every model-backed judge in it asks `model` (a Model, a spec string such as
    "openai:gpt-4o", or None for JURIST_MODEL), resolved on first use, so building loads
    no weights. A spec cannot choose its own model: the caller (the service, the CLI)
    decides which model runs, and a spec has no field for it.

    Raises JudgeSpecError naming the path inside the spec and the problem: a malformed
    spec, an unknown rubric id (listing the known ones), or an option a judge's constructor
    refuses. A malformed rubric file in the library raises RubricError, as it is the
    library's fault and not the spec's.
    """
    if not isinstance(spec, _JUDGE_SPECS):
        spec = parse_judge_spec(spec, max_judges=max_judges)
    return _build_one(spec, _Site("", model))


def load_judge_spec(path: Path) -> "JudgeSpec":
    """Read a spec from a YAML file, or a JSON file when its name ends in .json."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise JudgeSpecError([SpecProblem("", f"cannot be read: {reason}")], source) from exc
    try:
        data = loads_strict(text) if path.suffix == ".json" else yaml.safe_load(text)
    except StrictJsonError as exc:
        where = f" at line {exc.line} column {exc.column}" if exc.line is not None else ""
        problem = SpecProblem(
            exc.path, exc.problem.replace("not valid JSON", f"not valid JSON{where}")
        )
        raise JudgeSpecError([problem], source) from exc
    except RecursionError:  # PyYAML composes nested nodes recursively
        problem = SpecProblem("", f"nested too deeply (at most {MAX_SPEC_DEPTH} levels)")
        raise JudgeSpecError([problem], source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise JudgeSpecError([SpecProblem("", f"not valid YAML{at}: {reason}")], source) from exc
    if data is None:
        raise JudgeSpecError([SpecProblem("", "the file holds no spec")], source)
    return parse_judge_spec(data, source)


def _check_size(data: Any, max_judges: int, source: str | None) -> None:
    """Refuse a spec deeper than MAX_SPEC_DEPTH or with more than `max_judges` judges, before
    anything recurses into it: a walk with a stack of its own."""
    judges = 0
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while pending:
        parts, node = pending.pop()
        children: list[tuple[str | int, Any]]
        if isinstance(node, Mapping):
            children = [(str(key), child) for key, child in node.items()]
            kind = node.get("type")
            if isinstance(kind, str) and kind in _FIELDS_BY_TYPE and kind not in _STRATEGY_TYPES:
                judges += 1
                if judges > max_judges:
                    problem = SpecProblem(
                        _shown_path(parts), f"a spec may hold at most {max_judges} judges"
                    )
                    raise JudgeSpecError([problem], source)
        elif isinstance(node, list | tuple):
            children = list(enumerate(node))
        else:
            continue
        if len(parts) >= MAX_SPEC_DEPTH:
            problem = SpecProblem(_shown_path(parts), f"nested deeper than {MAX_SPEC_DEPTH} levels")
            raise JudgeSpecError([problem], source)
        pending.extend(((*parts, key), child) for key, child in reversed(children))


def _shown_path(parts: Sequence[str | int]) -> str:
    shown = list(parts[:_PATH_PARTS_SHOWN])
    path = "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(shown)
    )
    return path + ("…" if len(parts) > _PATH_PARTS_SHOWN else "")


def judge_spec_schema() -> dict[str, Any]:
    """The JSON Schema of a judge spec (what an API documents for its `judge` field)."""
    return _ADAPTER.json_schema()
