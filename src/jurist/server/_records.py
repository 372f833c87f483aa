"""What the service stores of a validation: the result with its ids, the validation record
and one judgment record per layer; and what the audit log keeps of a request."""

from typing import Any

from jurist.store import JudgmentRecord, ValidationRecord, new_id
from jurist.validation import Validation, ValidationRequest, ValidationResult

AUDIT_EXCERPT = 2000


def stored_validation(
    body: ValidationRequest,
    validation: Validation,
    *,
    request_sha256: str,
    key_id: str | None = None,
) -> tuple[ValidationResult, ValidationRecord, list[JudgmentRecord]]:
    """The result as answered (with `validation_id` and each layer's `judgment_id` in its
    metadata) and the records that hold it."""
    result = validation.result
    validation_id = new_id()
    layers = {name: dict(summary) for name, summary in result.metadata["layers"].items()}
    for layer in validation.judgments:
        layers[layer.value]["judgment_id"] = new_id()
    metadata = {**result.metadata, "validation_id": validation_id, "layers": layers}
    result = result.model_copy(update={"metadata": metadata})
    record = ValidationRecord(
        id=validation_id,
        request_sha256=request_sha256,
        valid=result.valid,
        confidence=result.confidence,
        quality_score=result.quality_score,
        error_count=metadata["error_count"],
        warning_count=metadata["warning_count"],
        duration_ms=metadata["duration_ms"],
        request=body.model_dump(mode="json"),
        result=result.model_dump(mode="json"),
        key_id=key_id,
    )
    judgments = [
        JudgmentRecord.of(
            judgment,
            judge=layer.value,
            layer=layer.value,
            validation_id=validation_id,
            id=layers[layer.value]["judgment_id"],
            key_id=key_id,
        )
        for layer, judgment in validation.judgments.items()
    ]
    return result, record, judgments


def audit_detail(body: dict[str, Any]) -> dict[str, Any]:
    """What the audit log keeps of a request, before redaction: its fields but the output,
    and an excerpt of the output."""
    output = body.get("output")
    text = output if isinstance(output, str) else repr(output)
    return {
        "request": {k: v for k, v in body.items() if k != "output"},
        "output_excerpt": text[:AUDIT_EXCERPT],
    }
