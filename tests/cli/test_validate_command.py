"""`jurist validate`, `jurist keys new` and `jurist serve` as a user runs them."""

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.server import KeyRing
from service_script import ServiceScript, scripted_model

EXAMPLES = Path(__file__).parents[2] / "examples"
runner = CliRunner()
SCHEMA_ONLY = {
    "output": {"answer": 3},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "properties": {"answer": {"type": "string"}}},
}


def write(tmp_path: Path, body: object) -> str:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body))
    return str(path)


def test_an_invalid_output_exits_1_naming_the_violation(tmp_path):
    result = runner.invoke(app, ["validate", write(tmp_path, SCHEMA_ONLY)])
    assert result.exit_code == 1, result.output
    assert "INVALID" in result.stdout
    assert "schema_violation" in result.stdout
    assert "$.answer" in result.stdout


def test_json_output_is_the_service_result(tmp_path):
    body = {**SCHEMA_ONLY, "output": {"answer": "fine"}}
    result = runner.invoke(app, ["validate", write(tmp_path, body), "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["valid"] is True
    assert answer["metadata"]["validation_types_run"] == ["schema"]


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"output": 1, "validation_types": ["schema"]}, "expected_schema"),
        ({"output": 1, "validation_types": ["magic"]}, "validation_types"),
        ("{not json", "not JSON"),
    ],
)
def test_bad_requests_exit_2_naming_the_field(tmp_path, body, named):
    path = tmp_path / "request.json"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert named in result.stderr


def test_a_requests_severity_policy_decides_the_verdict_and_the_layers_status(tmp_path):
    body = {**SCHEMA_ONLY, "severity_policy": {"schema_violation": "warning"}}
    result = runner.invoke(app, ["validate", write(tmp_path, body)])
    assert result.exit_code == 0, result.output
    assert "VALID" in result.stdout
    assert "INVALID" not in result.stdout
    assert re.search(r"^schema\s+warn\b", result.stdout, re.MULTILINE), result.stdout
    strict = runner.invoke(app, ["validate", write(tmp_path, SCHEMA_ONLY)])
    assert re.search(r"^schema\s+fail\b", strict.stdout, re.MULTILINE), strict.stdout


def test_a_bad_severity_policy_exits_2_naming_the_field_and_the_value(tmp_path):
    body = {**SCHEMA_ONLY, "severity_policy": {"schema_violation": "fatal"}}
    result = runner.invoke(app, ["validate", write(tmp_path, body)])
    assert result.exit_code == 2
    assert "severity_policy" in result.stderr
    assert "'fatal'" in result.stderr


def test_a_broken_layer_alone_exits_3(tmp_path, monkeypatch):
    from jurist.llm import ErrorKind, ModelError

    model = scripted_model(ServiceScript(fail_with=ModelError(ErrorKind.TIMEOUT, "slow")))
    monkeypatch.setattr("jurist.validation._pipeline.get_model", lambda *a, **k: model)
    body = {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": ["Polite"]}
    result = runner.invoke(app, ["validate", write(tmp_path, body)])
    assert result.exit_code == 3, result.output
    assert "layer_error" in result.stdout


def test_the_example_request_is_well_formed():
    from jurist.validation import ValidationRequest

    request = ValidationRequest.model_validate_json(
        (EXAMPLES / "validation-request.json").read_text()
    )
    assert len(request.validation_types) == 5


def test_keys_new_env_prints_a_key_and_the_entry_that_accepts_it():
    result = runner.invoke(app, ["keys", "new", "ci", "--env"])
    assert result.exit_code == 0
    key = re.search(r"key:\s+(\S+)", result.stdout)[1]
    entry = re.search(r"entry:\s+(\S+)", result.stdout)[1]
    assert key not in entry
    ring = KeyRing.parse(entry)
    assert ring.identify(f"Bearer {key}").id == "ci"


def _jurist(tmp_path: Path, *args: str, **env: str) -> subprocess.Popen:
    environment = {
        **os.environ,
        "JURIST_HOME": str(tmp_path),
        "JURIST_API_KEYS": "",
        "LOG_LEVEL": "warning",
        **env,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "jurist.cli", *args],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_serve_refuses_to_listen_beyond_loopback_without_keys(tmp_path):
    process = _jurist(tmp_path, "serve", "--host", "0.0.0.0")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "refusing to listen on 0.0.0.0 without API keys" in err
    assert "JURIST_API_KEYS" in err


@pytest.mark.parametrize(
    ("variable", "value"),
    [("QUALITY_MIN_SCORE", "2"), ("JUDGE_PORT", "eighty"), ("JURIST_API_KEYS", "ci:s3cr3t")],
)
def test_serve_stops_on_a_bad_setting_naming_it(tmp_path, variable, value):
    process = _jurist(tmp_path, "serve", **{variable: value})
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert variable in err
    if variable == "JURIST_API_KEYS":
        assert "s3cr3t" not in err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_health(client: httpx.Client, process: subprocess.Popen) -> httpx.Response:
    """/health once the port is open, after /ready said the service is ready (the model, the
    database and the redactor every stored record goes through), as a client waits."""
    for _ in range(2400):  # waiting for the service to come up, not timing anything
        try:
            if client.get("/ready").status_code == 200:
                return client.get("/health")
        except httpx.ConnectError:
            if process.poll() is not None:
                pytest.fail(process.stderr.read())
        time.sleep(0.05)
    pytest.fail("jurist serve did not become ready")


def test_serve_answers_over_http_until_stopped(tmp_path):
    port = _free_port()
    process = _jurist(tmp_path, "serve", "--port", str(port), JURIST_MODEL="local:smollm2-135m")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            assert _wait_for_health(client, process).status_code == 200
            answer = client.post("/validate", json=SCHEMA_ONLY)
            assert answer.status_code == 200
            assert answer.json()["valid"] is False
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert (tmp_path / "jurist.sqlite3").exists()  # the default store, under JURIST_HOME


def test_two_workers_share_one_metrics_view(tmp_path):
    """With --workers 2 each request lands on either process; /metrics counts them all."""
    port = _free_port()
    process = _jurist(
        tmp_path, "serve", "--port", str(port), "--workers", "2", JURIST_MODEL="local:smollm2-135m"
    )
    try:
        # A fresh connection per request, so both workers get some.
        for _ in range(6):
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
                _wait_for_health(client, process)
                assert client.post("/validate", json=SCHEMA_ONLY).status_code == 200
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            text = client.get("/metrics").text
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert 'jurist_validations_total{outcome="invalid"} 6.0' in text
