"""The validation pipeline: the requested layers run concurrently and their issues are
merged into one result.

    result = await validate({"output": {...}, "validation_types": ["schema", "criteria"], ...})

Each issue's severity is the severity policy's for its type (the request's
`severity_policy`, over the settings' JURIST_VALIDATION_SEVERITY, over the defaults).
valid = no issue is an error, which is every layer's verdict pass or warn; confidence = the
mean of the layer confidences; quality_score = the quality layer's score, or 0.5 when
quality was not asked for (the API's value for "not assessed"; `metadata.quality_assessed`
tells the two apart).
"""

import functools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jurist.core import (
    AttributeValue,
    Cause,
    Judge,
    Judgment,
    JuristError,
    Steps,
    Usage,
    gather_ordered,
    judge_name,
    judgment_attributes,
    report,
    trace_span,
)
from jurist.judges import (
    FactChecker,
    HallucinationJudge,
    Retriever,
    SharedClaimExtractor,
    UnknownSource,
)
from jurist.llm import (
    CallBudget,
    Model,
    ModelError,
    get_model,
    load_redactor,
    parse_spec,
    redaction_hook,
)
from jurist.rubrics import Rubric, get_rubric
from jurist.settings import Settings, get_settings
from jurist.specs import judge_from_spec
from jurist.validation._inputs import context_for
from jurist.validation._layers import (
    LayerOutcome,
    LayerReading,
    Reader,
    layer_error,
    merged_issues,
    quality_reader,
    read_criteria,
    read_facts,
    read_hallucination,
    read_schema,
    run_layer,
)
from jurist.validation._models import (
    ValidationRequest,
    ValidationResult,
    ValidationType,
    usage_summary,
)
from jurist.validation._policy import DEFAULT_POLICY, Severity, SeverityPolicy

NOT_ASSESSED_QUALITY = 0.5
QUALITY_RUBRIC = "output-quality"
_MODEL_LAYERS = frozenset(ValidationType) - {ValidationType.SCHEMA}


class RequestError(JuristError, ValueError):
    """A request this validator cannot run as asked, naming the field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Validation:
    """A validation's result and what produced it: each layer's outcome and judgment."""

    result: ValidationResult
    outcomes: tuple[LayerOutcome, ...]

    @property
    def judgments(self) -> dict[ValidationType, Judgment]:
        return {o.layer: o.judgment for o in self.outcomes if o.judgment is not None}


class Validator:
    """Runs validation requests. One per process is enough: it holds the model, the
    knowledge base (for the facts layer) and the settings; requests share them.

    `model` is a spec or a `Model` (default: the settings' model). Given a spec, and with
    JURIST_REDACT_PII on, every request to a remote provider passes through the PII
    redactor first; a `Model` passed in is used as it is. `retriever` answers the facts
    layer's searches (a `jurist.knowledge.KnowledgeBase`, say); without one, facts cannot run.
    """

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        retriever: Retriever | None = None,
        settings: Settings | None = None,
        quality_rubric: Rubric | str = QUALITY_RUBRIC,
    ) -> None:
        self.settings = settings or get_settings()
        self.retriever = retriever
        self._model_choice = model
        self._model: Model | None = model if not isinstance(model, str | None) else None
        self.quality_rubric = (
            quality_rubric
            if isinstance(quality_rubric, Rubric)
            else _library_rubric(quality_rubric)
        )
        self.policy = _settings_policy(self.settings.validation_severity)

    @functools.cached_property
    def _read_quality(self) -> Reader:
        # Made on first use: most validations ask for no quality layer.
        return quality_reader(self.quality_rubric, self.settings.quality_min_score)

    def policy_for(self, request: ValidationRequest) -> SeverityPolicy:
        """The severity policy a request is judged by: its own overrides over this
        validator's (the settings' over the defaults)."""
        return self.policy.overridden(request.severity_policy)

    @property
    def model_spec(self) -> str:
        if isinstance(self._model_choice, str):
            return self._model_choice
        if self._model_choice is not None:
            return self._model_choice.name
        return self.settings.model

    def model(self) -> Model:
        """The judges' model, built on first use (schema-only validations never need one)."""
        if self._model is None:
            spec = self.model_spec
            hooks = []
            if self.settings.redact_pii and parse_spec(spec).provider != "local":
                hooks.append(redaction_hook(load_redactor(self.settings.redactor)))
            self._model = get_model(spec, settings=self.settings, on_request=hooks)
        return self._model

    def check(self, request: ValidationRequest) -> None:
        """Refuses what this deployment cannot run, naming the field: a disabled layer, or
        facts without a knowledge base."""
        asked = set(request.validation_types)
        disabled = {
            ValidationType.HALLUCINATION: (
                self.settings.enable_hallucination_detection,
                "ENABLE_HALLUCINATION_DETECTION",
            ),
            ValidationType.FACTS: (self.settings.enable_fact_checking, "ENABLE_FACT_CHECKING"),
        }
        for layer, (enabled, variable) in disabled.items():
            if layer in asked and not enabled:
                raise RequestError(
                    "validation_types",
                    f"{layer.value} is disabled on this server ({variable}=false)",
                )
        if ValidationType.FACTS in asked and self.retriever is None:
            raise RequestError(
                "validation_types",
                "facts needs a knowledge base and none is configured (pass retriever=)",
            )

    async def check_sources(self, request: ValidationRequest) -> None:
        if ValidationType.FACTS not in request.validation_types or self.retriever is None:
            return
        try:
            await self.retriever.check_sources(request.trusted_sources)
        except UnknownSource as exc:
            index = request.trusted_sources.index(exc.source)
            raise RequestError(f"trusted_sources[{index}]", str(exc)) from None

    async def run(
        self,
        request: ValidationRequest | Mapping[str, Any],
        *,
        max_model_calls: int | None = None,
        setting: str | None = None,
    ) -> Validation:
        """Validates, and keeps what each layer's judge said. Raises pydantic's
        `ValidationError` for a malformed request and `RequestError` for one this validator
        cannot run. With `max_model_calls`, the calls past it fail, so their layers are
        errors (`setting` names what raises the limit)."""
        # One span for the request, the parent of its layers' spans; a refused request
        # fails it with the error.
        with trace_span("validate") as span:
            if not isinstance(request, ValidationRequest):
                request = ValidationRequest.model_validate(request)
            self.check(request)
            await self.check_sources(request)
            if span is not None:
                span.set({"jurist.validation.layers": [t.value for t in request.validation_types]})
            started = time.perf_counter()
            policy = self.policy_for(request)
            ran = await self._layers(request, max_model_calls, setting)
            outcomes = tuple(outcome.with_policy(policy) for outcome in ran)
            elapsed_ms = (time.perf_counter() - started) * 1000
            result = self._result(request, outcomes, elapsed_ms)
            if span is not None:
                span.set(_result_attributes(result, outcomes))
        return Validation(result, outcomes)

    async def validate(self, request: ValidationRequest | Mapping[str, Any]) -> ValidationResult:
        return (await self.run(request)).result

    async def _layers(
        self, request: ValidationRequest, max_model_calls: int | None, setting: str | None
    ) -> tuple[LayerOutcome, ...]:
        ctx = context_for(request.output, request.context, request.trusted_sources)
        jobs: list[tuple[ValidationType, Judge, Reader]] = []
        broken: list[LayerOutcome] = []
        model: Model | None = None
        if _MODEL_LAYERS & set(request.validation_types):
            try:
                model = self.model()
                if max_model_calls is not None:
                    model = CallBudget(model, max_model_calls, setting=setting)
            except (ModelError, ValueError) as exc:
                cause = Cause(exc.kind.value) if isinstance(exc, ModelError) else Cause.BAD_MODEL
                broken = [
                    _unavailable(layer, str(exc), cause)
                    for layer in request.validation_types
                    if layer in _MODEL_LAYERS
                ]
        # Facts and hallucination read the output's claims once, together.
        claims = SharedClaimExtractor(model) if model is not None else None
        for layer in request.validation_types:
            if layer is ValidationType.SCHEMA:
                jobs.append((layer, request.schema_judge, read_schema))
            elif model is not None and claims is not None:
                jobs.append(self._model_job(layer, request, model, claims))
        # Deterministic layers finish at once; model layers share the model's own limits.
        report(f"layers: {', '.join(layer.value for layer, _, _ in jobs)}")
        steps = Steps("layer", len(jobs))

        async def run(layer: ValidationType, judge: Judge, read: Reader) -> LayerOutcome:
            with trace_span(
                f"validation layer {layer.value}", {"jurist.validation.layer": layer.value}
            ) as span:
                outcome = await run_layer(layer, judge, ctx, read)
                if span is not None:
                    span.set(_layer_attributes(outcome, judge))
            steps.done(layer.value)
            return outcome

        if len(jobs) == 1:
            # One layer has nothing to run beside it: awaited here, a deterministic layer
            # finishes without a task or a turn of the event loop.
            ran = [await run(*jobs[0])]
        else:
            ran = await gather_ordered(run(layer, j, r) for layer, j, r in jobs)
        by_layer = {o.layer: o for o in [*ran, *broken]}
        return tuple(by_layer[layer] for layer in request.validation_types)

    def _model_job(
        self,
        layer: ValidationType,
        request: ValidationRequest,
        model: Model,
        claims: SharedClaimExtractor,
    ) -> tuple[ValidationType, Judge, Reader]:
        if layer is ValidationType.CRITERIA:
            criteria = {
                "type": "criteria",
                "criteria": request.acceptance_criteria,
                "name": "criteria",
            }
            return layer, judge_from_spec(criteria, model=model), read_criteria
        if layer is ValidationType.QUALITY:
            quality = {"type": "rubric", "rubric": self.quality_rubric, "name": "quality"}
            return layer, judge_from_spec(quality, model=model), self._read_quality
        # Built by hand: facts and hallucination share one claim extractor (one extraction
        # call for both), and the fact checker searches the retriever; neither is data a
        # spec can hold.
        if layer is ValidationType.HALLUCINATION:
            judge = HallucinationJudge(model, extractor=claims, name="hallucination")
            return layer, judge, read_hallucination
        assert self.retriever is not None  # check() refused facts without one
        checker = FactChecker(
            self.retriever,
            model,
            sources=request.trusted_sources,
            threshold=self.settings.fact_check_threshold,
            extractor=claims,
            name="facts",
        )
        return layer, checker, read_facts

    def _result(
        self, request: ValidationRequest, outcomes: Sequence[LayerOutcome], elapsed_ms: float
    ) -> ValidationResult:
        issues = merged_issues(outcomes)
        passed = [c for o in outcomes for c in o.reading.passed_criteria]
        failed = [c for o in outcomes for c in o.reading.failed_criteria]
        errors = sum(1 for i in issues if i.severity is Severity.ERROR)
        warnings = sum(1 for i in issues if i.severity is Severity.WARNING)
        quality = next(
            (o.reading.quality_score for o in outcomes if o.reading.quality_score is not None),
            None,
        )
        confidences = [o.reading.confidence for o in outcomes]
        usage = Usage.total(o.judgment.usage for o in outcomes if o.judgment is not None)
        # Every error-severity issue makes its layer's verdict fail or error, so the two
        # readings of validity agree; the verdicts are what the layers show.
        valid = all(o.verdict in ("pass", "warn") for o in outcomes)
        # Validated as one nested value: one pass through pydantic's core rather than a
        # model built (and validated) at a time.
        return ValidationResult.model_validate(
            {
                "valid": valid,
                "confidence": round(sum(confidences) / len(confidences), 4),
                "issues": issues,
                "passed_criteria": passed,
                "failed_criteria": failed,
                "quality_score": NOT_ASSESSED_QUALITY if quality is None else quality,
                "metadata": {
                    "validation_types_run": [o.layer for o in outcomes],
                    "total_issues": len(issues),
                    "error_count": errors,
                    "warning_count": warnings,
                    "info_count": len(issues) - errors - warnings,
                    "quality_assessed": quality is not None,
                    "duration_ms": round(elapsed_ms, 3),
                    "model": self.model_spec
                    if _MODEL_LAYERS & set(request.validation_types)
                    else None,
                    "usage": usage_summary(usage),
                    "layers": {o.layer: _layer_summary(o) for o in outcomes},
                },
            }
        )


# How long validators made one after another share a library rubric's lookup before it is
# looked up again: validate() makes a validator per call, and a lookup checks the library's
# files (a few system calls, more than the rest of a schema-only validation).
RUBRIC_RECHECK_S = 1.0
_RUBRICS_KEPT = 16
_rubrics: dict[tuple[str, str | None], tuple[float, Rubric]] = {}


def _library_rubric(id_or_path: str) -> Rubric:
    """get_rubric(id_or_path), as looked up at most RUBRIC_RECHECK_S ago (with the same
    JURIST_RUBRICS_PATH): a changed rubric file is seen by the validators made after that."""
    key = (id_or_path, get_settings().rubrics_path)
    now = time.monotonic()
    seen = _rubrics.get(key)
    if seen is not None and now - seen[0] < RUBRIC_RECHECK_S:
        return seen[1]
    rubric = get_rubric(id_or_path)
    _rubrics.pop(key, None)
    _rubrics[key] = (now, rubric)
    while len(_rubrics) > _RUBRICS_KEPT:  # bounded: the oldest lookup goes first
        _rubrics.pop(next(iter(_rubrics)), None)
    return rubric


def _settings_policy(overrides: Mapping[Any, object]) -> SeverityPolicy:
    """The settings' policy: the defaults, with JURIST_VALIDATION_SEVERITY's overrides."""
    if not overrides:
        return DEFAULT_POLICY
    return _overridden_policy(tuple(overrides.items()))


@functools.lru_cache(maxsize=16)
def _overridden_policy(overrides: tuple[tuple[Any, object], ...]) -> SeverityPolicy:
    # A policy is frozen: every validator made with the same settings shares one.
    return DEFAULT_POLICY.overridden(dict(overrides))


def _layer_attributes(outcome: LayerOutcome, judge: Judge) -> dict[str, AttributeValue]:
    """What a layer's span records: its judge and that judge's judgment (the layer runs it
    itself, so the layer's span is the judgment's), its verdict before the request's
    severity policy, its issues and, when it broke, why."""
    judged = judgment_attributes(outcome.judgment) if outcome.judgment is not None else {}
    return {
        "jurist.judge.name": judge_name(judge),
        **judged,
        "jurist.validation.verdict": outcome.verdict,
        "jurist.validation.issues": len(outcome.reading.issues),
        "jurist.judgment.cause": outcome.cause.value if outcome.cause is not None else None,
    }


def _result_attributes(
    result: ValidationResult, outcomes: Sequence[LayerOutcome]
) -> dict[str, AttributeValue]:
    """What the request's span records of its result."""
    return {
        "jurist.validation.valid": result.valid,
        "jurist.validation.confidence": result.confidence,
        "jurist.validation.quality_score": result.quality_score,
        "jurist.validation.issues": len(result.issues),
        "jurist.validation.verdicts": [f"{o.layer.value}={o.verdict}" for o in outcomes],
    }


def _unavailable(layer: ValidationType, message: str, cause: Cause) -> LayerOutcome:
    return LayerOutcome(
        layer, LayerReading([layer_error(layer, message, cause)], confidence=0.0), None, 0.0, cause
    )


def _layer_summary(outcome: LayerOutcome) -> dict[str, Any]:
    """A layer's LayerSummary, as the data it is validated from."""
    judgment = outcome.judgment
    return {
        "status": "error" if outcome.broke else "ok",
        "verdict": outcome.verdict,
        "cause": str(outcome.cause) if outcome.broke else None,
        "judge_status": judgment.status if judgment is not None else None,
        "confidence": round(outcome.reading.confidence, 4),
        "issues": len(outcome.reading.issues),
        "duration_ms": outcome.duration_ms,
        "usage": usage_summary(judgment.usage if judgment is not None else None),
    }


async def validate(
    request: ValidationRequest | Mapping[str, Any],
    *,
    model: Model | str | None = None,
    retriever: Retriever | None = None,
    settings: Settings | None = None,
) -> ValidationResult:
    """Validates one output. A malformed request raises pydantic's `ValidationError` (each
    error names its field), one that cannot run here a `RequestError`."""
    validator = Validator(model, retriever=retriever, settings=settings)
    return await validator.validate(request)
