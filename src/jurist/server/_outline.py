"""Content-free outlines: what the plain columns and the audit log keep of a record when its
content is kept only sealed (JURIST_STORE_CONTENT=sealed).

An outline holds what the service itself decided or counted (ids, verdicts, scores,
statuses, counts, durations, layer names, causes, usage) and nothing the caller sent or that
was derived from it: no output, criterion, claim, issue message, reasoning or field of the
caller's context, not even a name the caller chose. Each stored outline says it is one
(`"outline": true`), so a reader knows the content is in the sealed column only.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from jurist.core import Cause
from jurist.store import JudgmentRecord
from jurist.validation import ValidationRequest

if TYPE_CHECKING:  # the request models import `_records`, which imports this module
    from jurist.server._schemas import JudgeRequest

OUTLINE = "outline"
_CAUSES = frozenset(cause.value for cause in Cause)


def is_outline(content: Mapping[str, Any] | None) -> bool:
    """Whether a stored content column holds an outline (the content itself is sealed)."""
    return isinstance(content, Mapping) and content.get(OUTLINE) is True


def request_outline(body: ValidationRequest) -> dict[str, Any]:
    """A validation request without its content: which fields it filled, the layers it
    asked for, the output's shape and size, and how many criteria and sources it named."""
    return {
        OUTLINE: True,
        "fields": sorted(body.model_fields_set),
        "validation_types": [layer.value for layer in body.validation_types],
        **_output_shape(body.output),
        "acceptance_criteria": len(body.acceptance_criteria),
        "trusted_sources": len(body.trusted_sources),
        "expected_schema": body.expected_schema is not None,
        "context_fields": len(body.context),
    }


def result_outline(result: Mapping[str, Any]) -> dict[str, Any]:
    """A validation result (as dumped to JSON) without its content: the verdict, scores,
    each issue's severity and kind (not its message, location or suggestion, which quote
    the output), how many criteria passed and failed, and the metadata (ids, layers, counts,
    usage), which the service made itself."""
    return {
        OUTLINE: True,
        "valid": result["valid"],
        "confidence": result["confidence"],
        "quality_score": result["quality_score"],
        "issues": [{"severity": i["severity"], "type": i["type"]} for i in result["issues"]],
        "passed_criteria": len(result["passed_criteria"]),
        "failed_criteria": len(result["failed_criteria"]),
        "metadata": result["metadata"],
    }


def judgment_outline(record: JudgmentRecord) -> dict[str, Any]:
    """A judgment without its content: status, normalised score, confidence, cause,
    how many checks it made, and its usage (tokens, cost, latency, model)."""
    judgment = record.judgment
    metadata = judgment.get("metadata") or {}
    cause = metadata.get("cause")
    checks = judgment.get("checks") or ()
    return {
        OUTLINE: True,
        "status": record.status,
        "score": record.score,
        "confidence": record.confidence,
        "cause": cause if isinstance(cause, str) and cause in _CAUSES else None,
        "checks": len(checks),
        "usage": judgment.get("usage"),
    }


def validate_audit(body: ValidationRequest) -> dict[str, Any]:
    """The audit log's detail of a POST /validate: enough to investigate a request (what it
    asked for, how big it was; the row keeps the body's sha256), no content."""
    outline = request_outline(body)
    del outline[OUTLINE]
    return outline


def judge_audit(body: "JudgeRequest") -> dict[str, Any]:
    """The audit log's detail of a POST /judge: the fields it filled, which of them named
    its judge (not its value: a rubric id not yet checked is the caller's text) and the
    output's shape and size; no content."""
    by = next((f for f in ("rubric", "criteria", "judge") if getattr(body, f) is not None), "")
    return {
        "fields": sorted(body.model_fields_set),
        "judge_by": by or "judge",
        **_output_shape(body.context.output),
    }


def judged_by(body: "JudgeRequest") -> str:
    """What the plain `judge` column holds of a POST /judge's judge, once it is built: the
    rubric's library id, "criteria", or the spec's type (a name the caller gave is
    content)."""
    if isinstance(body.rubric, str):
        return f"rubric:{body.rubric}"[:200]
    if body.rubric is not None:
        return "rubric:inline"
    if body.criteria is not None:
        return "criteria"
    kind = (body.judge or {}).get("type")
    return f"spec:{kind}"[:200] if isinstance(kind, str) else "spec"


def _output_shape(output: Any) -> dict[str, Any]:
    kind = (
        "string"
        if isinstance(output, str)
        else "object"
        if isinstance(output, dict)
        else "array"
        if isinstance(output, list)
        else "null"
        if output is None
        else "scalar"
    )
    size = len(output) if isinstance(output, str | dict | list) else None
    return {"output_type": kind, "output_length": size}
