"""Tracing is off unless turned on: no OpenTelemetry import, no spans, and a clear error
naming the extra when it is asked for without OpenTelemetry installed."""

import subprocess
import sys
import textwrap

OFF = textwrap.dedent(
    """
    import sys

    import jurist
    from jurist.core import Context, judge_sync, tracing_enabled
    from jurist.judges import CriterionJudge
    from jurist.jury import Jury, Majority
    from jurist.testing import FakeModel

    model = FakeModel({"answer": "yes", "reason": "It says so."})
    jury = Jury([CriterionJudge("States the window", model, name="w")], Majority())
    ctx = Context("Refunds?", output="Within 30 days.")
    assert judge_sync(jury, ctx).passed
    assert not tracing_enabled()
    loaded = sorted(name for name in sys.modules if name.startswith("opentelemetry"))
    assert not loaded, loaded

    # A global provider the application set is not used until jurist is told to trace.
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    trace.set_tracer_provider(provider)
    assert judge_sync(jury, ctx).passed
    assert memory.get_finished_spans() == ()

    jurist.core.tracing()  # now to the global provider
    assert judge_sync(jury, ctx).passed
    print(sorted(span.name for span in memory.get_finished_spans()))
    """
)

MISSING = textwrap.dedent(
    """
    import sys

    sys.modules["opentelemetry"] = None  # as if the otel extra were not installed

    from jurist.core import TracingUnavailable, otlp_tracing, tracing

    for turn_on in (tracing, otlp_tracing):
        try:
            turn_on()
        except TracingUnavailable as exc:
            assert isinstance(exc, ImportError)
            print(exc)
        else:
            raise AssertionError("tracing turned on without OpenTelemetry")
    """
)


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_off_by_default_no_import_no_spans() -> None:
    printed = _python(OFF).strip()
    assert printed == "['chat model', 'judge jury(w)', 'judge w', 'jury jury(w)']"


def test_tracing_without_the_extra_names_it() -> None:
    printed = _python(MISSING).splitlines()
    assert len(printed) == 2
    for line in printed:
        assert "pip install 'jurist[otel]'" in line
