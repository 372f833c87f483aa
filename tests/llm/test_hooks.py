"""Hooks: request and response hooks run in order, and a broken hook stops the call."""

import dataclasses
import re

import pytest

from jurist.llm import ErrorKind, Message, ModelError, Request, Response
from jurist.llm._hooks import Hooked
from scripted import ScriptedModel, answer

EMAIL = re.compile(r"[\w.]+@[\w.]+")
REQUEST = Request.of("Mail ada@example.com about it.", system="Be brief.")


def redact(request: Request) -> Request:
    messages = tuple(Message(m.role, EMAIL.sub("[email]", m.content)) for m in request.messages)
    return dataclasses.replace(request, messages=messages)


async def tag(request: Request) -> Request:
    last = request.messages[-1]
    return dataclasses.replace(
        request, messages=(*request.messages[:-1], Message(last.role, last.content + " #tagged"))
    )


async def test_request_hooks_change_what_the_model_sees_in_order():
    model = ScriptedModel(script=[answer()])
    await Hooked(model, on_request=[redact, tag]).complete(REQUEST)
    sent = model.requests[0]
    assert sent.messages[-1].content == "Mail [email] about it. #tagged"
    assert sent.messages[0].content == "Be brief."


async def test_response_hooks_see_the_request_as_sent_and_may_change_the_response():
    seen: list[Request] = []

    def shout(request: Request, response: Response) -> Response:
        seen.append(request)
        return dataclasses.replace(response, text=response.text.upper())

    async def exclaim(request: Request, response: Response) -> Response:
        return dataclasses.replace(response, text=response.text + "!")

    model = ScriptedModel(script=[answer("done")])
    hooked = Hooked(model, on_request=[redact], on_response=[shout, exclaim])
    response = await hooked.complete(REQUEST)
    assert response.text == "DONE!"
    assert seen == [model.requests[0]]
    assert "[email]" in seen[0].messages[-1].content


async def test_a_failing_request_hook_stops_the_call_and_names_the_hook():
    def broken_redactor(request: Request) -> Request:
        raise RuntimeError("pattern table missing")

    model = ScriptedModel(script=[answer()])
    with pytest.raises(ModelError) as caught:
        await Hooked(model, on_request=[broken_redactor]).complete(REQUEST)
    error = caught.value
    assert error.kind is ErrorKind.CLIENT_ERROR
    assert not error.retryable
    assert "broken_redactor" in error.cause
    assert "pattern table missing" in error.cause
    assert model.calls == 0


async def test_a_failing_response_hook_is_a_model_error_too():
    async def audit(request: Request, response: Response) -> Response:
        raise OSError("audit log full")

    model = ScriptedModel(script=[answer()])
    with pytest.raises(ModelError, match=r"response hook .*audit.*audit log full"):
        await Hooked(model, on_response=[audit]).complete(REQUEST)


async def test_a_hook_may_refuse_with_its_own_model_error():
    budget = ModelError(ErrorKind.BUDGET, "spent")

    def over_budget(request: Request) -> Request:
        raise budget

    model = ScriptedModel(script=[answer()])
    with pytest.raises(ModelError) as caught:
        await Hooked(model, on_request=[over_budget]).complete(REQUEST)
    assert caught.value is budget
    assert model.calls == 0


async def test_a_hook_returning_the_wrong_type_is_an_error():
    model = ScriptedModel(script=[answer()])
    forgetful = Hooked(model, on_request=[lambda request: None])  # type: ignore[list-item,return-value]
    with pytest.raises(ModelError, match="returned NoneType, not a Request"):
        await forgetful.complete(REQUEST)
