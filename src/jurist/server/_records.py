"""What the service stores of a validation or a judgment, and what it shows of one stored.

With JURIST_STORE_CONTENT=sealed (the default) a record's content (the request, the result,
every judgment) is kept only sealed in its `sealed` column (see `_sealing`), and its plain
columns hold a content-free outline (see `_outline`): nothing is redacted on the way in. A
GET shows the key that made the record its content as it was; any other reader (an
administrator) gets it redacted then, at read time.

With JURIST_STORE_CONTENT=redacted, records hold the redacted copy of their content,
redacted as the audit log is; with JURIST_STORE_RAW the raw content is kept as well, sealed,
and shown again only to the key that made the record.

Either way queries, lists and logs of the store never see personal data, and the caller's
own answer is built from memory, never from the store, so it is the full result.
"""

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from jurist.core import Judgment
from jurist.llm import Redactor, redact_json
from jurist.server._outline import is_outline, judgment_outline, request_outline, result_outline
from jurist.server._sealing import Sealer, SealError
from jurist.store import JudgmentRecord, ValidationRecord, new_id
from jurist.validation import Validation, ValidationRequest, ValidationResult

AUDIT_EXCERPT = 2000

log = logging.getLogger("jurist.server")

# What became of a record's raw content, as a GET (or the POST that made it) tells it:
# none kept (only the redacted copy is stored); shown (the answer holds it); withheld (kept,
# but only the key that made the record sees it: others get it redacted); unreadable (kept,
# but no key of this service unseals it: none configured, or the one it was sealed with was
# rotated away; a sealed record then shows only its outline).
RawCopy = Literal["none", "shown", "withheld", "unreadable"]


@dataclass(frozen=True)
class PreparedValidation:
    """A validation's records before they are sealed or redacted: the request, the result
    as answered, its raw content and its judgments' records."""

    body: ValidationRequest
    result: ValidationResult
    raw: dict[str, Any]
    judgments: list[JudgmentRecord]
    request_sha256: str
    key_id: str | None

    @property
    def to_redact(self) -> dict[str, Any]:
        """What the redactor reads (JURIST_STORE_CONTENT=redacted): everything in one pass,
        which costs about what one text does. Its cost grows with the text analysed, so the
        service's own ids, which hold no personal data and are stamped back in
        `finish_validation`, are left out of it."""
        return {
            "validation": _without_ids(self.raw),
            "judgments": [_content(j) for j in self.judgments],
        }


def prepare_validation(
    body: ValidationRequest,
    validation: Validation,
    *,
    request_sha256: str,
    key_id: str | None = None,
) -> PreparedValidation:
    """The result as answered (with `validation_id` and each layer's `judgment_id` in its
    metadata), and what of it the redactor reads before it is stored."""
    result = validation.result
    validation_id = new_id()
    layers = {
        layer: summary.model_copy(update={"judgment_id": new_id()})
        if layer in validation.judgments
        else summary
        for layer, summary in result.metadata.layers.items()
    }
    metadata = result.metadata.model_copy(update={"validation_id": validation_id, "layers": layers})
    result = result.model_copy(update={"metadata": metadata})
    raw = {"request": body.model_dump(mode="json"), "result": result.model_dump(mode="json")}
    judgments = [
        JudgmentRecord.of(
            judgment,
            judge=layer.value,
            layer=layer.value,
            validation_id=validation_id,
            id=layers[layer].judgment_id,
            key_id=key_id,
        )
        for layer, judgment in validation.judgments.items()
    ]
    return PreparedValidation(body, result, raw, judgments, request_sha256, key_id)


def sealed_validation(
    prepared: PreparedValidation, sealer: Sealer | None
) -> tuple[ValidationResult, ValidationRecord, list[JudgmentRecord]]:
    """The result as answered and the records that hold it sealed (JURIST_STORE_CONTENT=
    sealed): each record's raw content serialised and encrypted once, its plain columns an
    outline. Cheap enough for the event loop: no redactor runs."""
    assert sealer is not None, "sealed content always has a key (see content_sealer)"
    result = prepared.result
    record = _validation_record(
        prepared,
        request=request_outline(prepared.body),
        result=result_outline(prepared.raw["result"]),
        sealed=sealer.seal(_validation_id(prepared), prepared.raw),
    )
    judgments = [
        dataclasses.replace(
            item,
            judgment=judgment_outline(item),
            parameters=None,
            sealed=sealer.seal(item.id, _content(item)),
        )
        for item in prepared.judgments
    ]
    return result, record, judgments


def _validation_id(prepared: PreparedValidation) -> str:
    validation_id = prepared.result.metadata.validation_id
    assert validation_id is not None  # set by prepare_validation
    return validation_id


def _validation_record(
    prepared: PreparedValidation,
    *,
    request: dict[str, Any],
    result: dict[str, Any],
    sealed: str | None,
) -> ValidationRecord:
    answered = prepared.result
    metadata = answered.metadata
    return ValidationRecord(
        id=_validation_id(prepared),
        request_sha256=prepared.request_sha256,
        valid=answered.valid,
        confidence=answered.confidence,
        quality_score=answered.quality_score,
        error_count=metadata.error_count,
        warning_count=metadata.warning_count,
        duration_ms=metadata.duration_ms,
        request=request,
        result=result,
        key_id=prepared.key_id,
        sealed=sealed,
    )


def finish_validation(
    prepared: PreparedValidation, redacted: dict[str, Any], sealer: Sealer | None = None
) -> tuple[ValidationResult, ValidationRecord, list[JudgmentRecord]]:
    """The result as answered and the records that hold it, from what the redactor made of
    `prepared.to_redact`; the raw content sealed in when `sealer` is given."""
    result = prepared.result
    metadata = result.metadata
    validation_id = _validation_id(prepared)
    kept = redacted["validation"]
    # The ids are the service's own, and must still name the records after redaction.
    ids = {layer.value: {"judgment_id": s.judgment_id} for layer, s in metadata.layers.items()}
    _stamp_ids(kept["result"], validation_id, ids)
    record = _validation_record(
        prepared,
        request=kept["request"],
        result=kept["result"],
        sealed=None if sealer is None else sealer.seal(validation_id, prepared.raw),
    )
    kept_judgments = [
        _kept(item, content, sealer)
        for item, content in zip(prepared.judgments, redacted["judgments"], strict=True)
    ]
    return result, record, kept_judgments


def _stamp_ids(result: dict[str, Any], validation_id: Any, layers: Mapping[str, Any]) -> None:
    """The validation's and its layers' judgment ids written back into a redacted result
    (`layers`: the layer summaries that hold them, as JSON)."""
    result["metadata"]["validation_id"] = validation_id
    for name, summary in result["metadata"].get("layers", {}).items():
        judgment_id = (layers.get(name) or {}).get("judgment_id")
        if judgment_id is not None and isinstance(summary, dict):
            summary["judgment_id"] = judgment_id


def _without_ids(raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` with the result's validation and judgment ids blanked (copies of the dicts on
    the way to them; the rest is shared)."""
    metadata = raw["result"]["metadata"]
    layers = {
        name: {**summary, "judgment_id": None} if isinstance(summary, dict) else summary
        for name, summary in metadata.get("layers", {}).items()
    }
    blank = {**metadata, "validation_id": None, "layers": layers}
    return {**raw, "result": {**raw["result"], "metadata": blank}}


def stored_judgment(
    judgment: Judgment,
    *,
    judge: str,
    redactor: Redactor,
    key_id: str | None = None,
    sealer: Sealer | None = None,
) -> tuple[JudgmentRecord, JudgmentRecord]:
    """A judgment of POST /judge as answered (raw) and as stored (redacted, the raw content
    sealed in when `sealer` is given), with the same id and time. CPU-bound: run it in a
    worker thread."""
    raw = dataclasses.replace(
        JudgmentRecord.of(judgment, judge=judge, key_id=key_id), created_at=datetime.now(UTC)
    )
    # A spec names its judge as the caller likes: the name is content too.
    redacted = redact_json({"judge": judge, **_content(raw)}, redactor)
    kept = dataclasses.replace(_kept(raw, redacted, sealer), judge=redacted["judge"] or "judge")
    return raw, kept


def sealed_judgment(
    judgment: Judgment,
    *,
    judge: str,
    outline_judge: str,
    sealer: Sealer | None,
    key_id: str | None = None,
) -> tuple[JudgmentRecord, JudgmentRecord]:
    """A judgment of POST /judge as answered (raw) and as stored sealed
    (JURIST_STORE_CONTENT=sealed), with the same id and time. The judge's name is content (a
    spec names its judge as the caller likes): it is sealed with the judgment, and the plain
    column holds `outline_judge`, a name the service chose."""
    assert sealer is not None, "sealed content always has a key (see content_sealer)"
    raw = dataclasses.replace(
        JudgmentRecord.of(judgment, judge=judge, key_id=key_id), created_at=datetime.now(UTC)
    )
    kept = dataclasses.replace(
        raw,
        judge=outline_judge,
        judgment=judgment_outline(raw),
        parameters=None,
        sealed=sealer.seal(raw.id, {"judge": judge, **_content(raw)}),
    )
    return raw, kept


Redact = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


async def shown_content(
    record_id: str,
    plain: dict[str, Any],
    sealed: str | None,
    *,
    owner: str | None,
    reader: str | None,
    sealer: Sealer | None,
    redact: Redact,
) -> tuple[dict[str, Any], RawCopy]:
    """What a GET shows of a stored record's content (`plain`: its plain columns by name),
    and what became of its raw copy.

    A record stored redacted shows the key that made it (`owner`, None: the operator) its
    raw copy when one was kept, and anyone else its redacted copy. A record stored sealed
    shows its owner the content unsealed, and anyone else the content unsealed then redacted
    with `redact` (off the event loop: the redactor is CPU-bound). A record no key opens
    shows what the plain columns hold (a redacted copy, or an outline)."""
    if sealed is None:
        return plain, "none"
    outline = any(is_outline(value) for value in plain.values())
    if owner != reader and not outline:
        return plain, "withheld"
    if sealer is None:
        return plain, "unreadable"
    try:
        raw = sealer.unseal(record_id, sealed)
    except SealError as exc:
        log.warning("the raw copy of record %s is not shown: %s", record_id, exc)
        return plain, "unreadable"
    shown = {name: raw.get(name, value) for name, value in plain.items()}
    if owner == reader:
        return shown, "shown"
    result = shown.get("result")
    if not isinstance(result, dict) or not isinstance(result.get("metadata"), dict):
        return await redact(shown), "withheld"
    # The service's ids hold no personal data and must name the records after redaction.
    metadata = result["metadata"]
    redacted = await redact(_without_ids(shown))
    _stamp_ids(redacted["result"], metadata.get("validation_id"), metadata.get("layers", {}))
    return redacted, "withheld"


def _content(record: JudgmentRecord) -> dict[str, Any]:
    return {"judgment": record.judgment, "parameters": record.parameters}


def _kept(
    record: JudgmentRecord, redacted: Mapping[str, Any], sealer: Sealer | None
) -> JudgmentRecord:
    return dataclasses.replace(
        record,
        judgment=redacted["judgment"],
        parameters=redacted["parameters"],
        sealed=None if sealer is None else sealer.seal(record.id, _content(record)),
    )


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
