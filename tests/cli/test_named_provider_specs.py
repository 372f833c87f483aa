"""`--model ollama:...` / `vllm:...` / `azure:...` from the command line: a command judges
through the named server (a real HTTP server on 127.0.0.1), and a configuration no call can
succeed with stops it before any work, naming the setting to change."""

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fault_server import ok, serving
from jurist.cli import app
from jurist.settings import get_settings

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
ANSWER = "You can return any item within 30 days for a full refund."
VERDICT = {"answer": "yes", "reason": "It offers a full refund."}
# The answer's tokens with their log-probabilities: the judge reads P(yes) at "yes".
TOKENS = [
    ('{"answer": "', -0.01, []),
    ("yes", -0.1, [("yes", -0.1), ("no", -2.4)]),
    ('", "reason": "It offers a full refund."}', -0.2, []),
]


@pytest.fixture
def answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.chdir(tmp_path)
    for variable in ("JURIST_MODEL", "OLLAMA_HOST", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("JURIST_CACHE", "0")
    monkeypatch.setenv("JURIST_HOME", str(tmp_path))
    path = tmp_path / "answer.txt"
    path.write_text(ANSWER, "utf-8")
    get_settings.cache_clear()
    yield str(path)
    get_settings.cache_clear()


def test_a_command_judges_through_an_ollama_server(answer: str) -> None:
    pytest.importorskip("openai")
    with serving() as server:
        server.default = ok(json=VERDICT, logprobs=TOKENS)
        env = {**WIDE, "JURIST_OLLAMA_BASE_URL": server.openai_url}
        result = runner.invoke(
            app, ["criteria", answer, "-c", "Mentions a refund", "-m", "ollama:llama3"], env=env
        )
    assert result.exit_code == 0, result.output
    assert "It offers a full refund." in result.output
    # P(yes) read from the logprobs, among yes and no: e^-0.1 / (e^-0.1 + e^-2.4)
    assert "P(yes) 0.91" in result.output
    assert len(server.requests) == 1
    assert server.bodies[0]["model"] == "llama3"
    assert ANSWER in str(server.bodies[0]["messages"])


def test_an_unreachable_vllm_server_stops_the_command(answer: str) -> None:
    with socket.socket() as bound:  # bound, never listening: a connection is refused
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/v1"
        env = {**WIDE, "JURIST_VLLM_BASE_URL": url}
        result = runner.invoke(app, ["criteria", answer, "-c", "x", "-m", "vllm:qwen"], env=env)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().startswith("error: JURIST_VLLM_BASE_URL: ")
    assert "unreachable" in result.stderr


def test_azure_without_its_endpoint_names_the_variable(answer: str) -> None:
    result = runner.invoke(app, ["criteria", answer, "-c", "x", "-m", "azure:gpt4o"], env=WIDE)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().startswith("error: AZURE_OPENAI_ENDPOINT: not set")
