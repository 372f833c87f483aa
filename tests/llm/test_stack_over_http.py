"""The whole default stack from get_model, against a real HTTP server that misbehaves."""

from pathlib import Path

import pytest

from fault_server import FaultServer, ok, prose, server_error, truncated
from jurist.llm import ErrorKind, ModelError, Request, get_model
from jurist.settings import Settings

VERDICT = {
    "type": "object",
    "properties": {"verdict": {"enum": ["yes", "no"]}},
    "required": ["verdict"],
}


@pytest.fixture
def model(fault_server: FaultServer, tmp_path: Path):
    settings = Settings(JURIST_HOME=str(tmp_path), JURIST_TIMEOUT_S="5")
    return get_model(f"openai-compatible:judge@{fault_server.openai_url}", settings=settings)


def verdict_request(**options: object) -> Request:
    return Request.of("Is the claim supported?", **{"json_schema": VERDICT, **options})


async def test_json_inside_prose_is_extracted_and_validated(model, fault_server: FaultServer):
    fault_server.script(ok('Sure. Here it is:\n```json\n{"verdict": "no"}\n```\nHope it helps.'))
    response = await model.complete(verdict_request())
    assert response.json == {"verdict": "no"}
    assert len(fault_server.requests) == 1


async def test_an_invalid_answer_is_re_asked_once_quoting_the_problem(
    model, fault_server: FaultServer
):
    fault_server.script(ok('{"verdict": "maybe"}'), ok('{"verdict": "yes"}'))
    response = await model.complete(verdict_request())
    assert response.json == {"verdict": "yes"}
    assert response.usage.calls == 2
    reask = fault_server.bodies[1]["messages"]
    assert reask[-2] == {"role": "assistant", "content": '{"verdict": "maybe"}'}
    assert "cannot be used" in reask[-1]["content"]
    assert '$.verdict: "maybe" is not one of' in reask[-1]["content"]


async def test_two_unreadable_answers_are_unparseable(model, fault_server: FaultServer):
    fault_server.script(ok("I think the answer is yes."), ok("Definitely yes!"))
    with pytest.raises(ModelError) as caught:
        await model.complete(verdict_request())
    assert caught.value.kind is ErrorKind.UNPARSEABLE
    assert len(fault_server.requests) == 2


async def test_garbage_bodies_and_server_errors_are_retried_then_cached(
    model, fault_server: FaultServer
):
    fault_server.script(truncated(), server_error(503), prose(), ok('{"verdict": "yes"}'))
    first = await model.complete(verdict_request())
    assert first.json == {"verdict": "yes"}
    assert len(fault_server.requests) == 4
    second = await model.complete(verdict_request())
    assert second.cached
    assert second.json == {"verdict": "yes"}
    assert len(fault_server.requests) == 4  # answered from the cache


async def test_a_sampled_request_is_not_cached(model, fault_server: FaultServer):
    request = verdict_request(temperature=0.7)
    fault_server.default = ok('{"verdict": "yes"}')
    await model.complete(request)
    again = await model.complete(request)
    assert not again.cached
    assert len(fault_server.requests) == 2
