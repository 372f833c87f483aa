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
    and an excerpt of the output.

    Never raises, and what it returns is plain JSON at most a few levels deep: redaction and
    the store recurse into it, and a request must never lose its audit record (nor answer
    500) because of what it held. Deeper values are cut short with a marker.
    """
    import json
    import math

    max_depth = 16

    def bounded(value: Any, depth: int) -> Any:
        if value is None or isinstance(value, bool | int | str):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else str(value)
        if depth >= max_depth:
            return "<nested deeper: not kept>"
        if isinstance(value, dict):
            return {str(k): bounded(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [bounded(v, depth + 1) for v in value]
        return str(value)[:AUDIT_EXCERPT]

    try:
        output = body.get("output")
        text = output if isinstance(output, str) else json.dumps(bounded(output, 1))
        return {
            "request": {str(k): bounded(v, 1) for k, v in body.items() if k != "output"},
            "output_excerpt": text[:AUDIT_EXCERPT],
        }
    except Exception as exc:  # noqa: BLE001 - the record matters more than its detail
        return {"unrecorded": f"{type(exc).__name__}: {str(exc)[:200]}"}
