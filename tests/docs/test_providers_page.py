"""docs/integrations/providers.md: its Python examples run as written, each provider answered
by the fault server on 127.0.0.1 (tests/fault_server.py) in a thread of its own, since the
examples call `complete_sync`."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from doc_snippets import run_python

from fault_server import FaultServer, ok, serving
from jurist.settings import get_settings

PAGE = "integrations/providers.md"


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with serving() as served:
        yield served


@pytest.fixture
def environment(
    server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    variables = {
        "JURIST_HOME": str(tmp_path),
        "JURIST_CACHE": "0",
        "JURIST_OLLAMA_BASE_URL": server.openai_url,
        "AZURE_OPENAI_ENDPOINT": server.url,
        "AZURE_OPENAI_API_KEY": "az-test",
        "OPENAI_API_VERSION": "2024-10-21",
        "JURIST_LITELLM_API_BASE": server.url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_providers_page_runs(
    server: FaultServer, environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openai")
    pytest.importorskip("litellm")
    server.script(
        ok("Yes.", usage=(20, 2)),
        ok(json={"answer": "yes"}),
        ok(json={"answer": "yes"}, usage=(40, 8)),
    )

    run_python(PAGE, with_model=False)

    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "Yes. ollama:llama3.1 None",
        "{'answer': 'yes'}",
        "{'answer': 'yes'} False True",
    ]
    ollama, azure, litellm = server.requests
    assert (ollama.path, ollama.body["model"]) == ("/v1/chat/completions", "llama3.1")
    assert azure.path == "/openai/deployments/my-gpt-4o/chat/completions?api-version=2024-10-21"
    assert azure.headers["api-key"] == "az-test"
    assert (litellm.api, litellm.body["model"]) == ("anthropic", "claude-3-5-haiku-20241022")
    assert litellm.headers["x-api-key"] == "sk-ant-test"
