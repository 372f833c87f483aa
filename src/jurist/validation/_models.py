"""The validation service's request and result, field for field as the service's public API
documents them. jurist's own additions go under the result's `metadata`, a
ValidationMetadata."""

import functools
import json
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from jurist.core import Judge, NotJsonSafeError, Status, Usage, exact_json, to_json_safe
from jurist.settings import ValidationFinding
from jurist.specs import MAX_CRITERIA, SpecError, judge_from_spec, registry
from jurist.validation._inputs import TASK_KEYS
from jurist.validation._policy import Severity, check_overrides


class ValidationType(StrEnum):
    SCHEMA = "schema"
    FACTS = "facts"
    CRITERIA = "criteria"
    QUALITY = "quality"
    HALLUCINATION = "hallucination"


# The order layers are reported in, whatever order the request lists them.
LAYER_ORDER = tuple(ValidationType)


MAX_TRUSTED_SOURCES = 100
# Distinct expected schemas whose judges are kept (the least recently used goes first).
SCHEMA_JUDGES_KEPT = 256

# A layer's verdict under the severity policy: the result is valid exactly when every
# layer's verdict is pass or warn.
LayerVerdict = Literal["pass", "warn", "fail", "error"]

# Text with something in it: a blank criterion or source name is a mistake, said at once.
NonBlank = Annotated[str, Field(pattern=r"\S")]


def _requires(layer: "ValidationType", then: dict[str, Any]) -> dict[str, Any]:
    asked = {"properties": {"validation_types": {"contains": {"const": layer.value}}}}
    return {"if": asked, "then": then}


class ValidationRequest(BaseModel):
    """What to validate and how. Cross-field mistakes (a layer asked for without what it
    needs) are refused here, naming the field, so they never reach a model. The same rules
    are in the published JSON Schema (`allOf` of if/then), so clients can check before they
    send; only "expected_schema must itself be a valid JSON Schema" is beyond it."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "allOf": [
                _requires(
                    ValidationType.SCHEMA,
                    {
                        "required": ["expected_schema"],
                        "properties": {"expected_schema": {"type": "object"}},
                    },
                ),
                _requires(
                    ValidationType.CRITERIA,
                    {
                        "required": ["acceptance_criteria"],
                        "properties": {"acceptance_criteria": {"minItems": 1}},
                    },
                ),
                _requires(
                    ValidationType.HALLUCINATION,
                    {
                        "required": ["context"],
                        "properties": {
                            "context": {"not": {"propertyNames": {"enum": list(TASK_KEYS)}}}
                        },
                    },
                ),
            ]
        },
    )

    output: Any = Field(..., description="Output to validate: any JSON value")
    validation_types: list[ValidationType] = Field(
        ...,
        min_length=1,
        description="Layers to run: schema, facts, criteria, quality, hallucination",
    )
    # Bounded: each criterion is a model call.
    acceptance_criteria: list[NonBlank] = Field(
        default_factory=list,
        max_length=MAX_CRITERIA,
        description="Criteria that must be met (the criteria layer), one model call each",
    )
    expected_schema: dict[str, Any] | None = Field(
        None, description="JSON Schema the output must follow (the schema layer)"
    )
    trusted_sources: list[NonBlank] = Field(
        default_factory=list,
        max_length=MAX_TRUSTED_SOURCES,
        description="Knowledge-base collections or document ids fact-checking may use "
        "(none: every collection)",
    )
    context: dict[str, Any] = Field(
        default_factory=dict,
        description="Context for hallucination detection; a `goal`, `task` or `question` "
        "entry is also the task the criteria and quality layers judge against",
    )

    severity_policy: dict[ValidationFinding, Severity] = Field(
        default_factory=dict,
        description="Severities for this request that replace the service's, per kind of "
        'finding, e.g. {"unverified_fact": "error"}; an output is valid when no issue is an '
        "error",
    )

    # The schema layer's judge, compiled once while the request is checked.
    _schema_judge: Judge | None = PrivateAttr(None)

    @property
    def schema_judge(self) -> Judge:
        # Read from pydantic's own dict: `self._schema_judge` goes through pydantic's
        # __getattr__ and the private attribute's (3 us a read, against 0.3 us).
        private = self.__pydantic_private__
        judge: Judge | None = None if private is None else private.get("_schema_judge")
        if judge is None:
            raise ValueError("expected_schema: the request has no schema")
        return judge

    @field_validator("validation_types")
    @classmethod
    def _distinct(cls, types: list[ValidationType]) -> list[ValidationType]:
        seen = set(types)
        return [t for t in LAYER_ORDER if t in seen]

    @field_validator("severity_policy", mode="before")
    @classmethod
    def _known_kinds(cls, value: Any) -> dict[str, Severity]:
        return check_overrides(value)

    @field_validator("acceptance_criteria")
    @classmethod
    def _once_each(cls, criteria: list[str]) -> list[str]:
        # A criterion given twice is one requirement: judged and reported once.
        return list(dict.fromkeys(c.strip() for c in criteria))

    @model_validator(mode="after")
    def _layers_have_inputs(self) -> Self:
        asked = set(self.validation_types)
        if ValidationType.SCHEMA in asked:
            if self.expected_schema is None:
                raise ValueError("expected_schema: required when validation_types includes schema")
            self._schema_judge = _schema_judge(self.expected_schema)
        if ValidationType.CRITERIA in asked and not self.acceptance_criteria:
            raise ValueError(
                "acceptance_criteria: give at least one criterion when validation_types "
                "includes criteria"
            )
        if ValidationType.HALLUCINATION in asked and all(k in TASK_KEYS for k in self.context):
            raise ValueError(
                "context: hallucination detection needs the context the output should be "
                "supported by (an entry besides goal, task or question)"
            )
        return self


def _schema_judge(schema: dict[str, Any]) -> Judge:
    """The schema layer's judge, shared by every request with the same schema: building it
    (checking its spec, compiling the schema) costs several times what checking an output
    does. The key is the schema's JSON text, so a schema changed after use is a new key;
    a schema that is not JSON data goes the uncached way, which says what is wrong."""
    text = exact_json(schema)
    if text is None:
        # Not what orjson writes exactly (a NaN, a key that is not a string, ...): the exact
        # conversion, which names the value that is no JSON.
        try:
            text = json.dumps(to_json_safe(schema, "expected_schema")).encode()
        except (NotJsonSafeError, ValueError, TypeError):
            return _built_schema_judge(schema)
    return _schema_judge_of(text)


@functools.lru_cache(maxsize=SCHEMA_JUDGES_KEPT)
def _schema_judge_of(text: bytes) -> Judge:
    # Built from the text, not the caller's dict, so the judge holds a schema of its own.
    return _built_schema_judge(json.loads(text))


def _built_schema_judge(schema: Any) -> Judge:
    """The schema layer's judge, from its spec. The spec is validated here rather than by
    parse_judge_spec: a schema is as deep as the request's JSON may be, not bounded by a
    spec's depth."""
    spec = {"type": "schema", "schema": schema, "parse_text": False, "name": "schema"}
    try:
        return judge_from_spec(registry.adapter().validate_python(spec))
    except SpecError as exc:
        problems = "; ".join(problem.message for problem in exc.problems)
        raise ValueError(f"expected_schema: {problems}") from None


class ValidationIssue(BaseModel):
    severity: Severity = Field(..., description="error, warning, info")
    type: str
    message: str
    location: str | None = None
    suggestion: str | None = None


def _absent(value: object) -> bool:
    return value is None


def _only_when_given() -> Any:
    """A key the JSON holds only when it has a value (a layer's `cause` when it broke, the
    ids the service gives what it stores)."""
    return Field(None, exclude_if=_absent)


class UsageSummary(BaseModel):
    """What a judge used: tokens, cost in USD (None: unknown), model calls and, of them,
    the ones answered from the cache, and the model (or models) asked."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    calls: int
    cached_calls: int
    model: str | None


class NoUsage(BaseModel):
    """The usage of a layer whose judge never ran (its model could not be made)."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: Literal[0] = 0
    output_tokens: Literal[0] = 0
    cost_usd: None = None
    calls: Literal[0] = 0


def usage_summary(usage: Usage | None) -> UsageSummary | NoUsage:
    if usage is None:
        return NoUsage()
    return UsageSummary(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
        calls=usage.calls,
        cached_calls=usage.cached_calls,
        model=usage.model,
    )


class LayerSummary(BaseModel):
    """How one layer went: `ok`, or `error` with the `cause`; its `verdict` under the
    severity policy (`fail`: an error-severity finding, `error`: it could not complete,
    `warn`: warnings only, `pass`: nothing worse than a note), its judge's status, the
    layer's confidence, how many issues it found, how long it took and what it used."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ok", "error"]
    verdict: LayerVerdict
    cause: str | None = _only_when_given()
    judge_status: Status | None
    confidence: float
    issues: int
    duration_ms: float
    usage: UsageSummary | NoUsage
    judgment_id: str | None = _only_when_given()  # the stored judgment, once the service stored it


class ValidationMetadata(BaseModel):
    """jurist's additions to the result: the layers run, issue counts, whether quality was
    assessed (`quality_score` is 0.5 either way when it was not), time, the model and what
    it used, each layer's summary, and the stored validation's id once the service stored it."""

    model_config = ConfigDict(extra="forbid")

    validation_types_run: list[ValidationType]
    total_issues: int
    error_count: int
    warning_count: int
    info_count: int
    quality_assessed: bool
    duration_ms: float
    model: str | None
    usage: UsageSummary | NoUsage
    layers: dict[ValidationType, LayerSummary]
    validation_id: str | None = _only_when_given()


class ValidationResult(BaseModel):
    valid: bool
    confidence: float = Field(..., ge=0.0, le=1.0)
    issues: list[ValidationIssue] = Field(default_factory=list)
    passed_criteria: list[str] = Field(default_factory=list)
    failed_criteria: list[str] = Field(default_factory=list)
    quality_score: float = Field(..., ge=0.0, le=1.0)
    metadata: ValidationMetadata
