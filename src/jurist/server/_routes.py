"""The service's endpoints."""

import asyncio
import functools
import logging
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from jurist import __version__
from jurist.core import Context, Judge, Judgment, run_judge
from jurist.judges import UnknownSource
from jurist.llm import CallBudget
from jurist.rubrics import list_rubrics
from jurist.server._auth import OPERATOR, Principal
from jurist.server._edge import JsonAnswer, StrictJsonRoute
from jurist.server._errors import ServiceError, error_responses, summary
from jurist.server._outline import judge_audit, judged_by, validate_audit
from jurist.server._records import (
    RawCopy,
    audit_detail,
    finish_validation,
    prepare_validation,
    sealed_judgment,
    sealed_validation,
    shown_content,
    stored_judgment,
)
from jurist.server._remote_sources import (
    SearchRequest,
    SearchResponse,
    SourcesError,
    SourcesRequest,
)
from jurist.server._schemas import (
    Health,
    JudgeRequest,
    JudgeResponse,
    Readiness,
    RubricSummary,
    StoredJudgmentBody,
    StoredValidationBody,
)
from jurist.server._sealing import Sealer
from jurist.server._service import Service
from jurist.specs import JudgeSpecError, judge_from_spec
from jurist.store import JudgmentRecord, StoredJudgment, StoreError
from jurist.validation import (
    RequestError,
    Validation,
    ValidationRequest,
    ValidationResult,
)
from jurist.viewer import FieldError

log = logging.getLogger("jurist.server")
MAX_CALLS_SETTING = "JURIST_MAX_MODEL_CALLS"
router = APIRouter(route_class=StrictJsonRoute)
_bearer = HTTPBearer(auto_error=False, description="an API key from JURIST_API_KEYS")


def service_of(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


async def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str | None:
    """The API key's id (None when the service runs without keys), after the rate limit.
    The whole caller (role, own rate) is kept in `request.state.caller` for `caller_of`."""
    service = service_of(request)
    who = OPERATOR
    try:
        if await service.auth.required():
            found = await service.auth.identify(request.headers.get("authorization"))
            if found is None:
                raise ServiceError(
                    401,
                    "unauthorized",
                    "missing, unknown or revoked API key: send Authorization: Bearer <key>",
                    headers={"WWW-Authenticate": "Bearer"},
                )
            who = found
            request.state.key_id = who.key_id
        request.state.caller = who
        if service.limiter is not None:
            client = request.client.host if request.client else "unknown"
            decision = await service.limiter.hit(who.key_id or f"client:{client}", who.rate)
            if not decision.allowed:
                raise ServiceError(
                    429,
                    "rate_limited",
                    f"rate limit of {decision.limit} requests reached; retry in "
                    f"{decision.retry_after_s} s",
                    headers={"Retry-After": str(decision.retry_after_s)},
                )
    except StoreError as exc:  # the key table or the shared counts could not be read
        raise ServiceError(503, "store_unavailable", f"cannot check the API key: {exc}") from None
    return who.key_id


def caller_of(request: Request) -> Principal:
    """The caller `caller` admitted (the operator when the route asked for none)."""
    found: Principal = getattr(request.state, "caller", OPERATOR)
    return found


Caller = Annotated[str | None, Depends(caller)]


def _unavailable(what: str, exc: Exception) -> ServiceError:
    return ServiceError(
        503,
        "store_unavailable",
        f"{what} could not be saved, so nothing is returned as saved: {exc}",
    )


async def _within_deadline(service: Service, work: Any) -> Any:
    seconds = service.config.request_timeout_s
    try:
        async with asyncio.timeout(seconds):
            return await work
    except TimeoutError:
        raise ServiceError(
            504,
            "deadline_exceeded",
            f"the request took longer than its deadline of {seconds:g} s "
            "(JURIST_REQUEST_TIMEOUT_S); nothing was stored",
        ) from None


@router.post(
    "/validate",
    response_model=ValidationResult,
    responses=error_responses(401, 413, 422, 429, 503, 504),
    summary="Validate an output through the requested layers",
)
async def validate(body: ValidationRequest, request: Request, key_id: Caller) -> Response:
    service = service_of(request)
    sealing = service.config.store_content == "sealed"
    # Made only if the request ends before it is stored (the stored request replaces it);
    # with sealed content, an outline with no content, which the redactor need not read.
    request.state.audit_detail = functools.partial(
        validate_audit if sealing else _request_detail, body
    )
    request.state.audit_redacted = sealing
    try:
        work = service.validator.run(
            body, max_model_calls=service.config.max_model_calls, setting=MAX_CALLS_SETTING
        )
        validation: Validation = await _within_deadline(service, work)
    except RequestError as exc:
        service.metrics.validations.labels("rejected").inc()
        raise ServiceError(
            422,
            "invalid_request",
            str(exc),
            errors=[FieldError(field=exc.field, message=exc.message)],
        ) from None
    except (SourcesError, StoreError) as exc:  # the knowledge base could not be asked
        service.metrics.validations.labels("unavailable").inc()
        raise ServiceError(503, "sources_unavailable", f"{type(exc).__name__}: {exc}") from None
    except ServiceError:
        service.metrics.validations.labels("timeout").inc()
        raise
    prepared = prepare_validation(
        body,
        validation,
        request_sha256=getattr(request.state, "request_sha256", None) or "-",
        key_id=key_id,
    )
    # The answer is the result as dumped for the store's raw copy, encoded now: FastAPI
    # would validate the returned model against `response_model` and dump it again.
    answer = JsonAnswer(prepared.raw["result"])
    if sealing:
        # One serialisation and one encryption per record, on the loop: no redactor.
        result, record, judgments = sealed_validation(prepared, service.sealer)
    else:
        # The redactor is CPU-bound: off the event loop, with the other requests' records
        # that wait for it. The answer is `result`, from memory.
        redacted = await service.redactions.redact(prepared.to_redact)
        result, record, judgments = finish_validation(prepared, redacted, _sealing(service))
        # The audit's detail comes from the request as stored, redacted already: the
        # redactor's analysis, the costliest step of a request, runs once, not twice.
        request.state.audit_detail = audit_detail(record.request)
        request.state.audit_redacted = True
    try:
        await service.require_store().save_validation(record, judgments)
    except StoreError as exc:
        service.metrics.validations.labels("unavailable").inc()
        raise _unavailable("the validation", exc) from None
    _observe(service, validation, result)
    request.state.verdict = "valid" if result.valid else "invalid"
    return answer


def _request_detail(body: ValidationRequest) -> dict[str, Any]:
    return audit_detail(body.model_dump(mode="json"))


def _observe(service: Service, validation: Validation, result: ValidationResult) -> None:
    metrics = service.metrics
    metrics.validations.labels("valid" if result.valid else "invalid").inc()
    metrics.validation_seconds.observe(result.metadata.duration_ms / 1000)
    metrics.confidence.labels("validation").observe(result.confidence)
    metrics.observe_layers((o.layer.value, o.duration_ms, o.cause) for o in validation.outcomes)
    for judgment in validation.judgments.values():
        metrics.observe_judgment(judgment, "layer")
    if service.config.log_validation_results:
        metadata = result.metadata
        log.info(
            "validation",
            extra={
                "validation_id": metadata.validation_id,
                "valid": result.valid,
                "confidence": result.confidence,
                "quality_score": result.quality_score,
                "errors": metadata.error_count,
                "warnings": metadata.warning_count,
                "layers": {k.value: v.status for k, v in metadata.layers.items()},
                "duration_ms": metadata.duration_ms,
            },
        )


@router.get(
    "/validations/{validation_id}",
    response_model=StoredValidationBody,
    responses=error_responses(401, 404, 429, 503),
    summary="A stored validation: its request and result",
)
async def get_validation(
    validation_id: str, request: Request, key_id: Caller
) -> StoredValidationBody:
    service = service_of(request)
    try:
        stored = await service.require_store().get_validation(validation_id)
    except StoreError as exc:
        raise ServiceError(503, "store_unavailable", str(exc)) from None
    # Another tenant's record answers exactly as a missing one does.
    if stored is None or not caller_of(request).may_read(stored.key_id):
        raise ServiceError(404, "not_found", f"no validation {validation_id!r}")
    content, raw_copy = await shown_content(
        stored.id,
        {"request": stored.request, "result": stored.result},
        stored.sealed,
        owner=stored.key_id,
        reader=key_id,
        sealer=service.sealer,
        redact=service.redactions.redact_for_reading,
    )
    return StoredValidationBody(
        id=stored.id,
        created_at=stored.created_at,
        request=content["request"],
        result=content["result"],
        judgment_ids=list(stored.judgment_ids),
        redacted=raw_copy != "shown",
        raw_copy=raw_copy,
    )


@router.post(
    "/judge",
    response_model=JudgeResponse,
    responses=error_responses(401, 413, 422, 429, 503, 504),
    summary="Judge a context with a rubric, acceptance criteria or a judge spec",
)
async def judge(body: JudgeRequest, request: Request, key_id: Caller) -> JudgeResponse:
    service = service_of(request)
    sealing = service.config.store_content == "sealed"
    if sealing:
        request.state.audit_detail = judge_audit(body)
        request.state.audit_redacted = True
    else:
        request.state.audit_detail = audit_detail(
            {"output": body.context.output, **body.model_dump(exclude={"context"})}
        )
    judge_ = _build_judge(service, body)
    ctx = _context(body)
    # Whatever a judge raises is an ERROR judgment with its cause, never a 500.
    judgment: Judgment = await _within_deadline(service, run_judge(judge_, ctx))
    # A spec may name its judge at any length; the column keeps the first 200 characters.
    sealer: Sealer | None
    if sealing:
        sealer = service.sealer
        raw, kept = sealed_judgment(
            judgment,
            judge=judge_.name[:200],
            outline_judge=judged_by(body),
            key_id=key_id,
            sealer=sealer,
        )
    else:
        sealer = _sealing(service)
        # The redactor is CPU-bound: off the event loop. The answer is `raw`, from memory.
        raw, kept = await asyncio.to_thread(
            stored_judgment,
            judgment,
            judge=judge_.name[:200],
            key_id=key_id,
            redactor=service.redactor,
            sealer=sealer,
        )
    try:
        await service.require_store().save_judgment(kept)
    except StoreError as exc:
        raise _unavailable("the judgment", exc) from None
    service.metrics.observe_judgment(judgment, "judgment")
    request.state.verdict = judgment.status.value
    answer = _judgment_body(
        raw, _judgment_content(raw), redacted=False, raw_copy="none" if sealer is None else "shown"
    )
    return JudgeResponse(**answer.model_dump())


def _sealing(service: Service) -> Sealer | None:
    # Redacted records keep raw content, sealed, only when asked for; the keys alone only
    # unseal.
    return service.sealer if service.config.store_raw else None


def _build_judge(service: Service, body: JudgeRequest) -> Judge:
    # Rubrics, criteria and specs all go through the spec builder, which looks rubrics up
    # by library id only: a client's string must never be read as a file on this machine.
    spec: dict[str, Any]
    if body.rubric is not None:
        field, spec = "rubric", {"type": "rubric", "rubric": body.rubric}
    elif body.criteria is not None:
        field, spec = "criteria", {"type": "criteria", "criteria": body.criteria}
    else:
        field, spec = "judge", dict(body.judge or {})
        unsafe = _unsafe_types(spec)
        if unsafe:
            raise ServiceError(
                422,
                "invalid_request",
                f"judge: {unsafe} judges are not accepted over HTTP (a client's regular "
                "expression could stall the service: Python's re has no timeout)",
                errors=[FieldError(field="judge", message=f"{unsafe} is not accepted here")],
            )
    # Whatever the spec holds, one request makes at most this many model calls.
    model = CallBudget(
        service.validator.model(), service.config.max_model_calls, setting=MAX_CALLS_SETTING
    )
    try:
        return judge_from_spec(spec, model=model, max_judges=service.config.max_spec_judges)
    except JudgeSpecError as exc:
        errors = [
            FieldError(field=_spec_field(field, problem.path), message=problem.message)
            for problem in exc.problems
        ]
        # The spec's paths already start at the request's field: naming the field again
        # would say "rubric: rubric: ...".
        raise ServiceError(422, "invalid_request", summary(errors), errors=errors) from None


_UNSAFE_OVER_HTTP = frozenset({"regex"})


def _unsafe_types(spec: Any) -> str | None:
    # A stack of its own: the spec's depth is checked later, by the spec builder.
    pending = [spec]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if node.get("type") in _UNSAFE_OVER_HTTP:
                return str(node["type"])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return None


def _spec_field(field: str, path: str) -> str:
    if field == "judge":
        return f"judge.{path}" if path else "judge"
    # The shortcut's own value sits at "rubric"/"criteria" inside the spec built for it.
    return path if path.startswith(field) else field


def _context(body: JudgeRequest) -> Context:
    given = body.context
    try:
        return Context(
            goal=given.goal,
            output=given.output,
            context=(given.context,) if isinstance(given.context, str) else tuple(given.context),
            reference=given.reference,
            metadata=given.metadata,
        )
    except (ValueError, TypeError) as exc:
        raise ServiceError(
            422,
            "invalid_request",
            f"context: {exc}",
            errors=[FieldError(field="context", message=str(exc))],
        ) from None


@router.get(
    "/judgments/{judgment_id}",
    response_model=StoredJudgmentBody,
    responses=error_responses(401, 404, 429, 503),
    summary="A stored judgment, with its prompt hash, model, parameters and usage",
)
async def get_judgment(judgment_id: str, request: Request, key_id: Caller) -> StoredJudgmentBody:
    service = service_of(request)
    try:
        stored = await service.require_store().get_judgment(judgment_id)
    except StoreError as exc:
        raise ServiceError(503, "store_unavailable", str(exc)) from None
    if stored is None or not caller_of(request).may_read(stored.key_id):
        raise ServiceError(404, "not_found", f"no judgment {judgment_id!r}")
    content, raw_copy = await shown_content(
        stored.id,
        _judgment_content(stored),
        stored.sealed,
        owner=stored.key_id,
        reader=key_id,
        sealer=service.sealer,
        redact=service.redactions.redact_for_reading,
    )
    return _judgment_body(stored, content, redacted=raw_copy != "shown", raw_copy=raw_copy)


def _judgment_content(stored: StoredJudgment | JudgmentRecord) -> dict[str, Any]:
    # The judge's name too: a spec's name is content, sealed with the judgment.
    return {"judge": stored.judge, "judgment": stored.judgment, "parameters": stored.parameters}


def _judgment_body(
    stored: StoredJudgment | JudgmentRecord,
    content: dict[str, Any],
    *,
    redacted: bool,
    raw_copy: RawCopy,
) -> StoredJudgmentBody:
    return StoredJudgmentBody(
        id=stored.id,
        created_at=stored.created_at or datetime.now(UTC),
        judge=content["judge"],
        status=stored.status,
        score=stored.score,
        confidence=stored.confidence,
        model=stored.model,
        prompt_sha256=stored.prompt_sha256,
        parameters=content["parameters"],
        usage={
            "input_tokens": stored.input_tokens,
            "output_tokens": stored.output_tokens,
            "cost_usd": stored.cost_usd,
            "latency_ms": stored.latency_ms,
        },
        validation_id=stored.validation_id,
        judgment=content["judgment"],
        redacted=redacted,
        raw_copy=raw_copy,
    )


@router.get(
    "/rubrics",
    response_model=list[RubricSummary],
    responses=error_responses(401, 429),
    summary="The rubric library",
)
async def rubrics(request: Request, key_id: Caller) -> list[RubricSummary]:
    return [
        RubricSummary(
            id=r.id,
            name=r.name,
            description=r.description,
            version=r.version,
            pass_score=r.pass_score,
            criteria=[c.name for c in r.criteria],
        )
        for r in list_rubrics()
    ]


@router.get(
    "/rubrics/{rubric_id}",
    responses=error_responses(401, 404, 429),
    summary="One rubric in full: criteria, steps, anchors, examples",
)
async def rubric(rubric_id: str, request: Request, key_id: Caller) -> dict[str, Any]:
    found = {r.id: r for r in list_rubrics()}.get(rubric_id)
    if found is None:
        raise ServiceError(404, "not_found", f"no rubric {rubric_id!r} in the library")
    return found.model_dump(mode="json")


@router.post(
    "/sources/search",
    response_model=SearchResponse,
    responses=error_responses(401, 413, 422, 429, 503),
    summary="Search this service's knowledge base (the trusted-sources protocol)",
)
async def search_sources(body: SearchRequest, request: Request, key_id: Caller) -> SearchResponse:
    retriever = _retriever(service_of(request))
    try:
        passages = await retriever.retrieve(body.query, body.sources, body.limit)
    except UnknownSource as exc:
        raise _unknown_source(body.sources, exc) from None
    except StoreError as exc:
        raise ServiceError(503, "store_unavailable", str(exc)) from None
    except ValueError as exc:
        # The knowledge base's own reading of a name ("\x1e" is blank to it) is the last word.
        raise ServiceError(422, "invalid_request", f"sources: {exc}") from None
    return SearchResponse(passages=passages)


@router.post(
    "/sources/check",
    responses={
        204: {"description": "every source is known"},
        **error_responses(401, 413, 422, 429, 503),
    },
    status_code=204,
    summary="Check that trusted sources exist in this service's knowledge base",
)
async def check_sources(body: SourcesRequest, request: Request, key_id: Caller) -> Response:
    retriever = _retriever(service_of(request))
    try:
        await retriever.check_sources(body.sources)
    except UnknownSource as exc:
        raise _unknown_source(body.sources, exc) from None
    except StoreError as exc:
        raise ServiceError(503, "store_unavailable", str(exc)) from None
    return Response(status_code=204)


def _retriever(service: Service) -> Any:
    if service.validator.retriever is None:
        raise ServiceError(503, "sources_unavailable", "this service has no knowledge base")
    return service.validator.retriever


def _unknown_source(sources: list[str], exc: UnknownSource) -> ServiceError:
    index = sources.index(exc.source) if exc.source in sources else 0
    field = f"sources[{index}]"
    return ServiceError(
        422, "unknown_source", str(exc), errors=[FieldError(field=field, message=str(exc))]
    )


@router.get("/health", response_model=Health, summary="Liveness: the process answers")
async def health() -> Health:
    return Health(status="alive", version=__version__)


@router.get(
    "/ready",
    response_model=Readiness,
    responses={
        503: {"model": Readiness, "description": "not ready: see model, database and redactor"}
    },
    summary="Readiness: the model and the redactor are loaded and the database reachable",
)
async def ready(request: Request, response: Response) -> Readiness:
    service = service_of(request)
    state = service.model_state
    model = {"spec": service.validator.model_spec, "loaded": state.ready, "error": state.error}
    database: dict[str, Any] = {"url": service.describe_database(), "reachable": False}
    try:
        await service.require_store().ping()
        database["reachable"] = True
    except StoreError as exc:
        database["error"] = str(exc)
    built, why = service.redactor_state()
    redactor = {"loaded": built, "error": why}
    ok = state.ready and database["reachable"] and built
    response.status_code = 200 if ok else 503
    return Readiness(ready=ok, model=model, database=database, redactor=redactor)


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus exposition"}},
    summary="Prometheus metrics",
)
async def metrics(request: Request) -> Response:
    payload, content_type = service_of(request).metrics.exposition()
    return Response(payload, media_type=content_type)
