"""The providers' HTTP clients: sent through aiohttp when it is installed (httpx2's own
transport otherwise), one client per event loop, closed when the loop shuts down."""

import asyncio
import gc
import logging
from typing import Any

import openai
import pytest

from fault_server import FaultServer, ok, reset, slow
from jurist.llm import ErrorKind, ModelError, Request
from jurist.llm import _http as http
from jurist.llm._openai import OpenAIModel
from jurist.llm._transport import AiohttpTransport


def ask(timeout_s: float = 5.0) -> Request:
    return Request.of("Is the sky blue?", timeout_s=timeout_s)


def model(server: FaultServer) -> OpenAIModel:
    return OpenAIModel("judge-1", base_url=server.openai_url, api_key="sk-test")


def transport_of(client: openai.AsyncOpenAI) -> Any:
    return client._client._transport


async def test_requests_go_through_aiohttp_and_answer_as_before(
    fault_server: FaultServer,
) -> None:
    fault_server.script(ok("Yes.", usage=(31, 4)), ok("No."))
    m = model(fault_server)

    first = await m.complete(ask())
    second = await m.complete(ask())

    assert (first.text, second.text) == ("Yes.", "No.")
    assert first.usage.input_tokens == 31
    assert isinstance(transport_of(m._shared_client()), AiohttpTransport)
    assert [body["messages"][-1]["content"] for body in fault_server.bodies] == [
        "Is the sky blue?"
    ] * 2


async def test_without_aiohttp_httpx2s_own_transport_answers(
    fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "aiohttp_installed", lambda: False)
    fault_server.script(ok("Yes."))
    m = model(fault_server)

    response = await m.complete(ask())

    assert response.text == "Yes."
    assert not isinstance(transport_of(m._shared_client()), AiohttpTransport)


async def test_a_lost_connection_and_a_timeout_keep_their_kinds(
    fault_server: FaultServer,
) -> None:
    fault_server.script(reset(), slow(5.0))
    m = model(fault_server)

    with pytest.raises(ModelError) as lost:
        await m.complete(ask())
    with pytest.raises(ModelError) as late:
        await m.complete(ask(timeout_s=0.3))

    assert lost.value.kind is ErrorKind.CONNECTION
    assert late.value.kind is ErrorKind.TIMEOUT


def test_a_loops_clients_are_closed_when_it_ends_and_forgotten(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def judged() -> tuple[str, openai.AsyncOpenAI]:
        async with FaultServer() as server:
            server.script(ok("Yes."))
            m = model(server)
            response = await m.complete(ask())
            return response.text, m._shared_client()

    with caplog.at_level(logging.ERROR):
        text, client = asyncio.run(judged())
        gc.collect()

    assert text == "Yes."
    assert client.is_closed()
    assert transport_of(client)._session is None
    assert "Unclosed" not in caplog.text
    assert not any(loop.is_closed() for loop in http._clients)


def test_each_loop_has_its_own_client() -> None:
    built: list[object] = []

    class Client:
        async def close(self) -> None:
            built.remove(self)

    def build() -> Client:
        client = Client()
        built.append(client)
        return client

    async def twice() -> bool:
        return http.loop_client(("test", 1), build) is http.loop_client(("test", 1), build)

    assert asyncio.run(twice())
    assert asyncio.run(twice())
    assert built == []  # each loop's one client, built once and closed as the loop ended


async def test_the_environments_proxy_carries_the_requests(
    fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", fault_server.url)
    fault_server.script(ok("Through the proxy."))
    # A host that does not resolve: only the proxy can answer for it.
    m = OpenAIModel("judge-1", base_url="http://judge.invalid/v1", api_key="sk-test")

    response = await m.complete(ask())

    assert response.text == "Through the proxy."
    assert len(fault_server.bodies) == 1
