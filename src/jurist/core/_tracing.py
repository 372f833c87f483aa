"""OpenTelemetry spans of jurist's work: judgments, juries, validation layers, model calls.

Off unless turned on (`tracing(provider)`, `otlp_tracing()`, or JURIST_OTEL /
OTEL_EXPORTER_OTLP_ENDPOINT read by the CLI and the service at start). While off, nothing
here imports `opentelemetry` and a traced place costs one check of a module global. While
on, spans are made with the OpenTelemetry API, whose context follows asyncio tasks, so a
judge run inside a jury's task is the child of the jury's span.
"""

import contextlib
import importlib.metadata
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from jurist.core._errors import JuristError
from jurist.core._judgment import Judgment, normalized_score, qualified_type
from jurist.core._status import Status

if TYPE_CHECKING:
    from contextvars import Token

    from opentelemetry.context import Context as SpanContext
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
    from opentelemetry.trace import Span, Tracer, TracerProvider

# What an attribute may hold: OpenTelemetry's primitive values and sequences of them. A None
# leaves the attribute out.
AttributeValue: TypeAlias = str | bool | int | float | Sequence[str] | Sequence[int] | None

EXTRA_HINT = "pip install 'jurist[otel]'"
# The most characters of a message kept in a span's status description.
_DESCRIPTION_CHARS = 500


class _State:
    """The process's tracing: the tracer while on, and the provider jurist made, if any
    (flushed and shut down here)."""

    __slots__ = ("owned", "tracer")

    def __init__(self) -> None:
        self.tracer: Tracer | None = None
        self.owned: SdkTracerProvider | None = None


_state = _State()


class TracingUnavailable(JuristError, ImportError):
    """Tracing was asked for, but OpenTelemetry is not installed."""


def tracing_enabled() -> bool:
    """Whether jurist makes spans."""
    return _state.tracer is not None


def tracing(provider: "TracerProvider | None" = None) -> None:
    """Turn tracing on: spans go to `provider`, or to OpenTelemetry's global tracer provider
    when none is given (what your application configured with `trace.set_tracer_provider`).
    Calling it again replaces the provider; `stop_tracing()` turns tracing off."""
    try:
        from opentelemetry import trace
    except ImportError as exc:
        raise TracingUnavailable(f"tracing needs OpenTelemetry: {EXTRA_HINT}") from exc
    source = provider if provider is not None else trace.get_tracer_provider()
    _shutdown_owned(except_for=provider)
    _state.tracer = source.get_tracer("jurist", _version())


def otlp_tracing(endpoint: str | None = None, *, service_name: str = "jurist") -> None:
    """Turn tracing on with a provider of jurist's own that sends spans over OTLP/HTTP to
    `endpoint` (the full traces URL, such as http://127.0.0.1:4318/v1/traces), or, when
    None, where the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT
    variables say (default http://localhost:4318). The spans come from the service
    `service_name` unless OTEL_SERVICE_NAME names another. Spans are sent in batches; the
    batch left at exit, or at `stop_tracing()`, is sent then."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise TracingUnavailable(
            f"sending spans over OTLP needs OpenTelemetry's SDK and exporter: {EXTRA_HINT}"
        ) from exc
    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the service when they say one.
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": service_name}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    tracing(provider)
    _state.owned = provider


def stop_tracing() -> None:
    """Turn tracing off; a provider `otlp_tracing` made sends what it holds and shuts down."""
    _state.tracer = None
    _shutdown_owned(except_for=None)


def _shutdown_owned(*, except_for: object) -> None:
    owned, _state.owned = _state.owned, None
    if owned is not None and owned is not except_for:
        owned.shutdown()


def _version() -> str:
    try:
        return importlib.metadata.version("jurist")
    except importlib.metadata.PackageNotFoundError:
        return "0"


class TraceSpan:
    """One open span, as jurist's code writes to it (no OpenTelemetry type leaks out)."""

    __slots__ = ("_failed", "_span", "_token")

    def __init__(self, span: "Span", token: "Token[SpanContext]") -> None:
        self._span = span
        self._token = token  # what makes the span current, undone by `end`
        self._failed = False

    def end(self, error: BaseException | None = None) -> None:
        """End the span and make its parent current again; an `error` that ended it early
        (cancellation included) fails it, unless it was failed with a kind already."""
        from opentelemetry import context

        if error is not None and not self._failed:
            self._span.record_exception(error)
            self.fail(qualified_type(error), str(error) or type(error).__name__)
        context.detach(self._token)
        self._span.end()

    def set(self, attributes: Mapping[str, AttributeValue]) -> None:
        """Set these attributes; a None value is left out."""
        for key, value in attributes.items():
            if value is not None:
                self._span.set_attribute(key, value)

    def fail(self, error_type: str, message: str) -> None:
        """Mark the span failed: status ERROR with the message, `error.type` the kind."""
        from opentelemetry.trace import Status as SpanStatus
        from opentelemetry.trace import StatusCode

        self._failed = True
        self._span.set_attribute("error.type", error_type)
        self._span.set_status(SpanStatus(StatusCode.ERROR, message[:_DESCRIPTION_CHARS]))

    def judged(self, judgment: Judgment) -> None:
        """Record a judgment: its status, normalised score and, for ERROR or ABSTAIN, its
        cause; an ERROR judgment fails the span with its cause as the error's type."""
        self.set(judgment_attributes(judgment))
        if judgment.status is Status.ERROR:
            cause = judgment.cause
            self.fail(cause.value if cause is not None else "error", judgment.reasoning)


def judgment_attributes(judgment: Judgment) -> dict[str, AttributeValue]:
    """What a span records of a judgment."""
    attributes: dict[str, AttributeValue] = {
        "jurist.judgment.status": judgment.status.value,
        "jurist.judgment.score": normalized_score(judgment),
    }
    if judgment.status in (Status.ERROR, Status.ABSTAIN):
        cause = judgment.cause
        attributes["jurist.judgment.cause"] = cause.value if cause is not None else None
    return attributes


def trace_span(
    name: str, attributes: Mapping[str, AttributeValue] | None = None
) -> contextlib.AbstractContextManager[TraceSpan | None]:
    """A span named `name`, current inside the `with` (its children nest under it), or
    None when tracing is off. An exception leaving the block fails the span and goes on."""
    if _state.tracer is None:
        return _OFF
    return _open(name, attributes or {})


_OFF: contextlib.AbstractContextManager[None] = contextlib.nullcontext()


def start_span(name: str, attributes: Mapping[str, AttributeValue]) -> TraceSpan | None:
    """A span named `name`, made current (the spans started under it in this task and the
    tasks it starts are its children) until its `end()`; None when tracing is off. For
    the hottest path, where a `with` would cost a context manager even while off."""
    tracer = _state.tracer
    if tracer is None:
        return None
    from opentelemetry import context, trace

    span = tracer.start_span(
        name, attributes={key: value for key, value in attributes.items() if value is not None}
    )
    return TraceSpan(span, context.attach(trace.set_span_in_context(span)))


@contextlib.contextmanager
def _open(name: str, attributes: Mapping[str, AttributeValue]) -> Iterator[TraceSpan | None]:
    span = start_span(name, attributes)
    try:
        yield span
    except BaseException as exc:  # cancellation too: the span says why it ended early
        if span is not None:
            span.end(exc)
        raise
    if span is not None:
        span.end()
