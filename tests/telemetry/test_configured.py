"""The jurist command and the service turn tracing on from the configuration: the standard
OTEL_EXPORTER_OTLP_ENDPOINT (or JURIST_OTEL) sends their spans over OTLP/HTTP."""

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from otlp_receiver import attributes, receiver
from typer.testing import CliRunner

from jurist.cli import app
from jurist.core import stop_tracing, tracing_enabled
from jurist.llm import estimate_input_tokens
from jurist.server import ServiceSettings, create_app
from jurist.settings import Settings, get_settings
from jurist.testing import FakeModel
from server.running import run_app

REQUEST = {
    "output": {"code": "def f(): pass"},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "required": ["code", "tests"]},
}


def _validate(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    variables = {
        key: value for key, value in os.environ.items() if not key.startswith(("OTEL_", "JURIST_"))
    }
    variables |= {"JURIST_HOME": str(tmp_path / "home"), **env}
    request = tmp_path / "request.json"
    request.write_text(json.dumps(REQUEST), "utf-8")
    return subprocess.run(
        [sys.executable, "-m", "jurist", "validate", str(request), *args],
        capture_output=True,
        text=True,
        env=variables,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )


def test_the_command_sends_spans_to_the_standard_endpoint(tmp_path: Path) -> None:
    with receiver() as received:
        done = _validate(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=received.url)
        assert done.returncode == 1, done.stderr  # invalid: "tests" is missing
    assert received.services == {"jurist"}
    spans = {span.name: span for span in received.spans}
    assert sorted(spans) == ["validate", "validation layer schema"]
    assert spans["validation layer schema"].parent_span_id == spans["validate"].span_id
    assert attributes(spans["validate"])["jurist.validation.valid"] is False


def test_jurist_otel_alone_sends_to_the_traces_endpoint_given(tmp_path: Path) -> None:
    with receiver() as received:
        done = _validate(
            tmp_path,
            JURIST_OTEL="1",
            OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=f"{received.url}/v1/traces",
        )
        assert done.returncode == 1, done.stderr
    assert "validate" in {span.name for span in received.spans}


def test_the_service_name_is_the_standard_variables_when_set(tmp_path: Path) -> None:
    with receiver() as received:
        done = _validate(
            tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=received.url, OTEL_SERVICE_NAME="evals"
        )
        assert done.returncode == 1, done.stderr
    assert received.services == {"evals"}


def test_the_command_sends_nothing_unless_configured(tmp_path: Path) -> None:
    with receiver() as received:
        done = _validate(tmp_path)
        assert done.returncode == 1, done.stderr
    assert received.spans == []


def test_settings_name_the_traces_endpoint() -> None:
    assert not Settings().tracing
    assert Settings(JURIST_OTEL="1").traces_endpoint is None  # the exporter's default
    based = Settings(OTEL_EXPORTER_OTLP_ENDPOINT="http://collector:4318/")
    assert based.tracing
    assert based.traces_endpoint == "http://collector:4318/v1/traces"
    exact = Settings(
        OTEL_EXPORTER_OTLP_ENDPOINT="http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="http://traces:4318/x",
    )
    assert exact.traces_endpoint == "http://traces:4318/x"


def test_the_service_sends_spans_while_it_runs(tmp_path: Path) -> None:
    model = FakeModel({"answer": "yes", "reason": "It does."}, name="fake:service")
    with receiver() as received:
        settings = Settings(
            JURIST_HOME=str(tmp_path / "home"),
            JURIST_CACHE="0",
            JURIST_DATABASE_URL=f"sqlite:///{tmp_path / 'service.sqlite3'}",
            OTEL_EXPORTER_OTLP_ENDPOINT=received.url,
        )
        config = ServiceSettings(JURIST_RATE_LIMIT="none", LOG_LEVEL="warning")
        running = run_app(create_app(settings, config, model=model))
        try:
            assert tracing_enabled()
            body = {**REQUEST, "validation_types": ["schema", "criteria"]}
            body["acceptance_criteria"] = ["It defines a function"]
            answer = httpx.post(f"{running.url}/validate", json=body, timeout=60)
            assert answer.status_code == 200, answer.text
        finally:
            running.stop()  # the service's shutdown sends the spans it holds
        assert not tracing_enabled()
    assert received.services == {"jurist-service"}
    names = sorted(span.name for span in received.spans)
    assert names == [
        "chat service",
        "judge criteria",
        "validate",
        "validation layer criteria",
        "validation layer schema",
    ]
    call = next(span for span in received.spans if span.name == "chat service")
    assert model.calls == 1
    assert attributes(call)["gen_ai.usage.input_tokens"] == sum(
        estimate_input_tokens(request) for request in model.requests
    )


def test_jurist_serve_leaves_tracing_to_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    # The service turns tracing on in each worker's start, as `jurist-service`; the command
    # must not have turned it on already in the process.
    seen: list[bool] = []
    monkeypatch.setattr(
        "jurist.server.serve", lambda host, port, workers: seen.append(tracing_enabled())
    )
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["serve"])
    finally:
        get_settings.cache_clear()
        stop_tracing()
    assert result.exit_code == 0, result.output
    assert seen == [False]
