"""The validation pipeline behind POST /validate: an output goes through the layers a
request asks for (schema, facts, criteria, hallucination, quality), concurrently, and comes
back as one result with every issue, its severity and a suggestion.

    from jurist.validation import validate
    result = await validate({
        "output": {"code": "def sort_list(lst): return sorted(lst)"},
        "validation_types": ["schema", "criteria"],
        "expected_schema": {"type": "object", "required": ["code", "tests"]},
        "acceptance_criteria": ["Code implements sorting functionality"],
    })
    result.valid, [issue.message for issue in result.issues]

The request and result are the public API's, field for field; jurist's additions (per-layer
status, timing, usage and cost) are under `result.metadata`, a ValidationMetadata.
"""

from jurist.validation._inputs import TASK_KEYS, context_for, passages_of, task_of
from jurist.validation._layers import LayerOutcome, LayerReading
from jurist.validation._models import (
    LAYER_ORDER,
    LayerSummary,
    LayerVerdict,
    NoUsage,
    UsageSummary,
    ValidationIssue,
    ValidationMetadata,
    ValidationRequest,
    ValidationResult,
    ValidationType,
    usage_summary,
)
from jurist.validation._pipeline import (
    NOT_ASSESSED_QUALITY,
    QUALITY_RUBRIC,
    RequestError,
    Validation,
    Validator,
    validate,
)
from jurist.validation._policy import (
    DEFAULT_POLICY,
    FINDING_KINDS,
    IssueType,
    Severity,
    SeverityPolicy,
)

__all__ = [
    "DEFAULT_POLICY",
    "FINDING_KINDS",
    "LAYER_ORDER",
    "NOT_ASSESSED_QUALITY",
    "QUALITY_RUBRIC",
    "TASK_KEYS",
    "IssueType",
    "LayerOutcome",
    "LayerReading",
    "LayerSummary",
    "LayerVerdict",
    "NoUsage",
    "RequestError",
    "Severity",
    "SeverityPolicy",
    "UsageSummary",
    "Validation",
    "ValidationIssue",
    "ValidationMetadata",
    "ValidationRequest",
    "ValidationResult",
    "ValidationType",
    "Validator",
    "context_for",
    "passages_of",
    "task_of",
    "usage_summary",
    "validate",
]
