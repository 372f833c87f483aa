"""The integration pages' examples run as written, their SDK clients and the judge's model
answered by a scripted provider on 127.0.0.1."""

import json
from collections.abc import Iterator

import pytest
from doc_snippets import run_python

from jurist.settings import get_settings
from provider_server import (
    CHAT,
    MESSAGES,
    RESPONSES,
    ProviderServer,
    chat_completion,
    judge_message,
    message,
    provider_server,
    response,
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProviderServer]:
    with provider_server() as served:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{served.url}/v1")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", served.url)
        monkeypatch.setenv("JURIST_CACHE", "0")
        get_settings.cache_clear()
        yield served
        get_settings.cache_clear()


def test_openai_page_runs(server: ProviderServer, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    answer = "You have 30 days to return them, unworn."
    # Through OpenAI the criterion judge reads its confidence from the logprobs.
    verdict = {"answer": "yes", "reason": "It gives 30 days."}
    server.script(CHAT, chat_completion(answer), chat_completion(json.dumps(verdict)))
    server.script(CHAT, chat_completion(answer))
    server.script(RESPONSES, response("Within 30 days of delivery."))
    run_python("integrations/openai.md", with_model=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "pass It gives 30 days."
    assert printed[1] == "pass"
    assert printed[2] == "success {'input_tokens': 14, 'output_tokens': 9, 'total_tokens': 23}"
    assert printed[3] == "pass"
    # The judge was shown the answer the SDK call returned.
    judged = json.dumps(server.requests[1][1])
    assert answer in judged


def test_anthropic_page_runs(server: ProviderServer, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("anthropic")
    answer = "Yes: choose two instalments at checkout."
    verdict = {"answer": "yes", "reason": "It says yes, in two instalments.", "confidence": 0.9}
    server.script(MESSAGES, message(answer), judge_message(verdict))
    server.script(MESSAGES, message("Yes, at checkout you can choose", "max_tokens"))
    run_python("integrations/anthropic.md", with_model=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "pass It says yes, in two instalments.",
        "success True max_tokens",
        "pass",
    ]
    assert answer in json.dumps(server.requests[1][1])


def test_langchain_page_runs(server: ProviderServer, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("langchain_core")
    verdict = {"answer": "yes", "reason": "The context gives 30 days."}
    server.script(CHAT, chat_completion(json.dumps(verdict)))
    run_python("integrations/langchain.md", with_model=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "pass The context gives 30 days.",
        "success True [{'id': 'policy-7', 'score': 0.91, 'source': 'returns.md'}]",
        "fail",
    ]
    # The judge was shown the chain's answer and the retrieved document.
    (judged,) = [json.dumps(body) for _path, body in server.requests]
    assert "within 30 days of delivery" in judged
    assert "Items can be returned within 30 days of delivery." in judged


def test_llamaindex_page_runs(server: ProviderServer, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_index.core")
    verdict = {"answer": "yes", "reason": "The context gives 30 days."}
    server.script(CHAT, chat_completion(json.dumps(verdict)))
    run_python("integrations/llamaindex.md", with_model=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "pass The context gives 30 days.",
        "success ['returns.md', 'shipping.md']",
        "pass",
    ]
    # The judge was shown the retrieved text.
    (judged,) = [json.dumps(body) for _path, body in server.requests]
    assert "Items can be returned within 30 days of delivery." in judged
