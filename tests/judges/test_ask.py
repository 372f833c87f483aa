"""ask: one way to call a model, its call policy, and the typed causes of its failures."""

import pytest

from jurist.core import Cause, Context, Judgment, Status
from jurist.judges import Answer, CallPolicy, Unreadable, ask, json_object
from jurist.llm import ErrorKind, ModelError
from jurist.prompts import Prompt, PromptTemplate
from jurist.settings import get_settings
from scripted import ScriptedModel, answer

CTX = Context(goal="g", output="o")
PROMPT = Prompt(PromptTemplate("Judge {{ output }} for {{ thing }}.", name="t"), {"type": "object"})


def read_flag(response):
    value = json_object(response).get("flag")
    if not isinstance(value, bool):
        raise Unreadable("no flag")
    return value


CONTRACT = PROMPT.reading(read_flag)


def test_every_model_error_kind_is_a_cause():
    assert {kind.value for kind in ErrorKind} <= {cause.value for cause in Cause}


def test_the_policy_comes_from_the_settings_once():
    settings = get_settings().model_copy(update={"temperature": 0.3, "timeout_s": 7.0})
    policy = CallPolicy.from_settings(settings, max_tokens=99, seed=None)
    assert (policy.temperature, policy.timeout_s, policy.max_tokens, policy.seed) == (
        0.3,
        7.0,
        99,
        0,
    )


async def test_an_answer_is_read_and_the_request_follows_the_policy():
    model = ScriptedModel(script=[answer('{"flag": true}')])
    policy = CallPolicy(temperature=0.2, seed=4, max_tokens=33, timeout_s=9.0)
    got = await ask(model, CONTRACT, CTX, policy=policy, judge="j", variables={"thing": "x"})
    assert isinstance(got, Answer)
    assert got.value is True
    request = model.requests[0]
    assert (request.temperature, request.seed, request.max_tokens, request.timeout_s) == (
        0.2,
        4,
        33,
        9.0,
    )
    assert request.json_schema == {"type": "object"}
    assert request.messages[0].role == "system"
    meta = got.metadata("j")
    assert meta["template"] == "t"
    assert meta["model"] == "test:scripted"
    assert meta["prompt_sha256"] == got.prompt.sha256


@pytest.mark.parametrize(
    ("step", "cause"),
    [
        (ModelError(ErrorKind.TIMEOUT, "slow"), Cause.TIMEOUT),
        (ModelError(ErrorKind.UNAVAILABLE, "gone"), Cause.MODEL_UNAVAILABLE),
        (answer('{"flag": "maybe"}'), Cause.UNPARSEABLE),
    ],
)
async def test_a_failure_is_an_error_with_a_typed_cause_and_the_call(step, cause):
    model = ScriptedModel(script=[step])
    got = await ask(model, CONTRACT, CTX, policy=CallPolicy(), judge="j", variables={"thing": 1})
    assert isinstance(got, Judgment)
    assert got.status is Status.ERROR
    assert got.cause is cause
    assert got.metadata["cause"] == cause.value
    assert got.metadata["template"] == "t"
    assert got.metadata["model"] == "test:scripted"
    assert "prompt_sha256" in got.metadata


async def test_a_template_that_does_not_render_is_a_prompt_error_and_no_call():
    model = ScriptedModel(script=[])
    got = await ask(model, CONTRACT, CTX, policy=CallPolicy(), judge="j")
    assert isinstance(got, Judgment)
    assert got.cause is Cause.PROMPT
    assert model.requests == []
