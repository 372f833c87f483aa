"""The service's own request and response bodies (POST /validate uses the validation
package's models as they are)."""

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from jurist.server._records import RawCopy
from jurist.specs import MAX_CRITERIA


class JudgeContext(BaseModel):
    """What the judge looks at: jurist's `Context`, as JSON."""

    model_config = ConfigDict(extra="forbid")

    goal: str = Field("", description="the task or question the output answers")
    output: Any = Field(..., description="the output under judgment: text or any JSON value")
    context: list[str] | str = Field(
        default_factory=list, description="source documents or retrieved passages"
    )
    reference: Any = Field(None, description="a reference (gold) answer")
    metadata: dict[str, Any] = Field(default_factory=dict)


Criterion = Annotated[str, Field(pattern=r"\S")]


def _not_null(schema: dict[str, Any]) -> None:
    """The field's schema without its null option and null default (see JudgeRequest)."""
    options = [o for o in schema.pop("anyOf", []) if o != {"type": "null"}]
    if len(options) == 1:
        schema.update(options[0])
    elif options:
        schema["anyOf"] = options
    schema.pop("default", None)


class JudgeRequest(BaseModel):
    """Judge one context with exactly one of: a rubric (a library id or an inline rubric),
    acceptance criteria, or a judge spec (a judge, jury or cascade described as data)."""

    # "Exactly one" is in the published schema too, so a schema-valid request is not refused
    # for it. The schema leaves out the null the service also takes for "not given", which
    # keeps the rule a plain oneOf of required names.
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "oneOf": [{"required": [name]} for name in ("rubric", "criteria", "judge")]
        },
    )

    context: JudgeContext
    rubric: str | dict[str, Any] | None = Field(
        None,
        description="a rubric id from GET /rubrics, or a rubric object",
        json_schema_extra=_not_null,
    )
    criteria: Annotated[list[Criterion], Field(min_length=1, max_length=MAX_CRITERIA)] | None = (
        Field(
            None,
            description="acceptance criteria, all must hold (one model call each)",
            json_schema_extra=_not_null,
        )
    )
    judge: dict[str, Any] | None = Field(
        None,
        description="a judge spec: {'type': 'criteria', ...}, a jury or a cascade",
        json_schema_extra=_not_null,
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        given = [n for n in ("rubric", "criteria", "judge") if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(
                "rubric: give exactly one of rubric, criteria or judge"
                + (f" (got {', '.join(given)})" if given else "")
            )
        return self


class StoredJudgmentBody(BaseModel):
    id: str
    created_at: datetime
    judge: str
    status: Literal["pass", "fail", "abstain", "error"]
    score: float | None
    confidence: float | None
    model: str | None
    prompt_sha256: str | None
    parameters: dict[str, Any] | None
    usage: dict[str, Any]
    validation_id: str | None
    judgment: dict[str, Any] = Field(description="the full judgment, as Judgment.to_dict()")
    redacted: bool = Field(
        False,
        description="true when judge, judgment and parameters are not the raw content: "
        "redacted (personal data replaced by <ENTITY_TYPE>), or the content-free outline of a "
        "sealed record no key opens; false when they are the raw content",
    )
    raw_copy: RawCopy = Field(
        "none",
        description="the raw content kept with the record (sealed): none (only a redacted "
        "copy is stored), shown (here), withheld (only the key that made the record sees it; "
        "this is it redacted), unreadable (this service has no key that unseals it; this is "
        "the redacted copy, or the outline of a sealed record)",
    )


class JudgeResponse(StoredJudgmentBody):
    pass


class StoredValidationBody(BaseModel):
    id: str
    created_at: datetime
    # JSON objects rather than the models: the redacted copy of a request need not be a valid
    # request any more (a redacted e-mail in a field with a pattern, say).
    request: dict[str, Any] = Field(
        description="the request, as POST /validate took it (see redacted and raw_copy)"
    )
    result: dict[str, Any] = Field(
        description="the result, as POST /validate answered it (see redacted and raw_copy)"
    )
    judgment_ids: list[str]
    redacted: bool = Field(
        description="true when request and result are not the raw content: redacted "
        "(personal data replaced by <ENTITY_TYPE>), or the content-free outline of a sealed "
        'record no key opens (marked "outline": true); false when they are the raw content'
    )
    raw_copy: RawCopy = Field(
        description="the raw content kept with the record (sealed): none (only a redacted "
        "copy is stored), shown (here), withheld (only the key that made the record sees it; "
        "this is it redacted), unreadable (this service has no key that unseals it; this is "
        "the redacted copy, or the outline of a sealed record)"
    )


class RubricSummary(BaseModel):
    id: str
    name: str
    description: str
    version: str
    pass_score: float
    criteria: list[str]


class Health(BaseModel):
    status: Literal["alive"]
    version: str


class Readiness(BaseModel):
    ready: bool
    model: dict[str, Any]
    database: dict[str, Any]
    redactor: dict[str, Any] = Field(
        default_factory=dict, description="whether the PII redactor is built: loaded, error"
    )
