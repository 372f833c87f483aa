"""Structured output: JSON found tolerantly but never guessed, validated, re-asked once."""

import pytest

from jurist.core import Usage
from jurist.llm import Choice, ErrorKind, ModelError, Request, Response
from jurist.llm._structured import Structured, extract_json, json_candidates, reask_prompt
from scripted import ScriptedModel, answer

SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"enum": ["pass", "fail"]},
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["verdict", "score"],
}
REQUEST = Request.of("Judge this answer.", json_schema=SCHEMA)
GOOD = '{"verdict": "pass", "score": 4}'


# Extraction


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD, {"verdict": "pass", "score": 4}),
        ("  [1, 2]\n", [1, 2]),
        ("7", 7),
        ('Here you go:\n```json\n{"a": 1}\n```\nHope it helps.', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('My verdict, after some thought: {"a": {"b": [1, 2]}} -- done.', {"a": {"b": [1, 2]}}),
        (
            'Note: {"text": "braces } and { inside", "n": 1}',
            {"text": "braces } and { inside", "n": 1},
        ),
        ('First {"a": 1} then {"b": 2}', {"a": 1}),
        ('Use the {placeholder} form. Answer: {"a": 1}', {"a": 1}),
    ],
    ids=[
        "whole",
        "array",
        "scalar",
        "fenced-json",
        "fenced-bare",
        "leading-prose",
        "braces-in-strings",
        "two-objects",
        "braces-in-prose",
    ],
)
def test_extract_json_finds_the_answer(text: str, expected: object):
    assert extract_json(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I think it passes.",
        "",
        '{"verdict": "pass", "score": 4',  # truncated: not repaired
        "{'verdict': 'pass'}",  # single quotes: not fixed
        '{"score": NaN}',  # not JSON
        'Sure: {"a": {"b": 1}, "c": "trunc',  # no fragment of a truncated object
        '{"a": {"b": 1}, oops}',  # no fragment of a broken object
        '```python\n{"a": True}\n```',  # Python, not JSON
    ],
    ids=[
        "prose",
        "empty",
        "truncated",
        "single-quotes",
        "nan",
        "truncated-nested",
        "broken-nested",
        "python-fence",
    ],
)
def test_extract_json_never_guesses(text: str):
    with pytest.raises(ValueError, match="no JSON value found"):
        extract_json(text)


def test_candidates_come_in_order_fences_first_each_once():
    text = 'Example: {"a": 0}\n```json\n{"a": 1}\n```\nor [2]'
    assert list(json_candidates(text)) == [{"a": 1}, {"a": 0}, [2]]


# The middleware


async def test_a_valid_answer_gets_its_json_in_one_call():
    model = ScriptedModel(script=[answer(f"Here it is: {GOOD}")])
    response = await Structured(model).complete(REQUEST)
    assert response.json == {"verdict": "pass", "score": 4}
    assert response.text == f"Here it is: {GOOD}"
    assert model.calls == 1


async def test_requests_without_a_schema_pass_through_untouched():
    original = answer("not JSON at all")
    model = ScriptedModel(script=[original])
    assert await Structured(model).complete(Request.of("hi")) is original


async def test_the_first_candidate_valid_against_the_schema_wins():
    text = f'For example {{"verdict": "maybe"}} -- but really: {GOOD}'
    model = ScriptedModel(script=[answer(text)])
    response = await Structured(model).complete(REQUEST)
    assert response.json == {"verdict": "pass", "score": 4}


async def test_no_json_is_re_asked_with_the_bad_answer_and_the_problem():
    model = ScriptedModel(
        script=[
            answer("It passes, 4 out of 5.", input_tokens=100, output_tokens=10),
            answer(GOOD, input_tokens=150, output_tokens=12),
        ]
    )
    response = await Structured(model).complete(REQUEST)
    assert response.json == {"verdict": "pass", "score": 4}
    reask = model.requests[1]
    assert reask.messages[:-2] == REQUEST.messages
    assert reask.messages[-2].role == "assistant"
    assert reask.messages[-2].content == "It passes, 4 out of 5."
    assert reask.messages[-1].role == "user"
    assert "holds no JSON value" in reask.messages[-1].content
    assert '"maximum": 5' in reask.messages[-1].content  # the schema comes along
    assert reask.json_schema == SCHEMA
    assert response.usage.input_tokens == 250
    assert response.usage.output_tokens == 22
    assert response.usage.calls == 2


async def test_a_schema_violation_is_re_asked_quoting_the_path():
    model = ScriptedModel(script=[answer('{"verdict": "pass", "score": 9}'), answer(GOOD)])
    response = await Structured(model).complete(REQUEST)
    assert response.json == {"verdict": "pass", "score": 4}
    prompt = model.requests[1].messages[-1].content
    assert "$.score: 9 is greater than the maximum of 5" in prompt


async def test_all_violations_are_reported():
    model = ScriptedModel(script=[answer('{"verdict": "perhaps"}'), answer(GOOD)])
    await Structured(model).complete(REQUEST)
    prompt = model.requests[1].messages[-1].content
    assert "$.verdict:" in prompt
    assert '"score" is a required property' in prompt


async def test_a_second_failure_is_unparseable_naming_the_problem():
    model = ScriptedModel(script=[answer("no idea"), answer('{"verdict": "pass", "score": 0}')])
    with pytest.raises(ModelError) as caught:
        await Structured(model).complete(REQUEST)
    error = caught.value
    assert error.kind is ErrorKind.UNPARSEABLE
    assert not error.retryable
    assert "after a re-ask" in error.cause
    assert "$.score: 0 is less than the minimum of 1" in error.cause
    assert model.calls == 2


async def test_an_invalid_schema_is_a_client_error_before_any_call():
    model = ScriptedModel(script=[answer(GOOD)])
    bad = Request.of("x", json_schema={"type": "nonsense"})
    with pytest.raises(ModelError) as caught:
        await Structured(model).complete(bad)
    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert "not a valid JSON Schema" in caught.value.cause
    assert "nonsense" in caught.value.cause
    assert model.calls == 0


async def test_a_providers_own_parse_is_used_first():
    parsed = Response(GOOD, json={"verdict": "fail", "score": 2}, usage=Usage(calls=1))
    model = ScriptedModel(script=[parsed])
    response = await Structured(model).complete(REQUEST)
    assert response.json == {"verdict": "fail", "score": 2}


async def test_with_several_samples_only_the_bad_ones_are_re_asked_in_place():
    first = Response.from_choices(
        [Choice('{"verdict": "pass", "score": 5}'), Choice("oops"), Choice(GOOD)], Usage(calls=1)
    )
    fixed = answer('{"verdict": "fail", "score": 1}')
    model = ScriptedModel(script=[first, fixed])
    sampled = Request.of("Judge.", json_schema=SCHEMA, n=3, temperature=1.0)
    response = await Structured(model).complete(sampled)
    assert [choice.json["score"] for choice in response.choices] == [5, 1, 4]  # type: ignore[index]
    assert model.requests[1].n == 1
    assert model.requests[1].messages[-2].content == "oops"


async def test_samples_still_bad_after_the_re_ask_are_dropped():
    first = Response.from_choices([Choice("oops"), Choice(GOOD)], Usage(calls=1))
    model = ScriptedModel(script=[first, answer("still oops")])
    sampled = Request.of("Judge.", json_schema=SCHEMA, n=2, temperature=1.0)
    response = await Structured(model).complete(sampled)
    assert [choice.json for choice in response.choices] == [{"verdict": "pass", "score": 4}]


def test_the_re_ask_prompt_comes_from_the_template_file():
    prompt = reask_prompt("it holds no JSON value", {"type": "object"})
    assert prompt.startswith("Your answer above cannot be used: it holds no JSON value")
    assert '"type": "object"' in prompt
    assert "$" not in prompt


async def test_a_valid_parse_of_the_provider_is_kept_without_searching_the_text(monkeypatch):
    import jurist.llm._structured as module

    searched: list[str] = []
    real = module.json_candidates

    def counted(text: str):  # type: ignore[no-untyped-def]
        searched.append(text)  # when the search starts, not when it is set up
        yield from real(text)

    monkeypatch.setattr(module, "json_candidates", counted)
    parsed = Response(GOOD, json={"verdict": "fail", "score": 2}, usage=Usage(calls=1))
    response = await Structured(ScriptedModel(script=[parsed])).complete(REQUEST)
    assert response == parsed
    assert searched == []

    # A parse that does not follow the schema: the text is searched, as before.
    wrong = Response(f"{GOOD}", json={"verdict": "nope"}, usage=Usage(calls=1))
    response = await Structured(ScriptedModel(script=[wrong])).complete(REQUEST)
    assert response.json == {"verdict": "pass", "score": 4}
    assert searched == [GOOD]


def test_schemas_are_compiled_once_whatever_their_key_order_and_apart_when_they_differ():
    from jurist.llm._structured import _validator

    one = {"type": "object", "properties": {"a": {"maximum": 3}, "b": {"type": "string"}}}
    reordered = {"properties": {"b": {"type": "string"}, "a": {"maximum": 3}}, "type": "object"}
    assert _validator(one, "m") is _validator(reordered, "m")
    nan = {"type": "object", "properties": {"a": {"default": float("nan")}}}
    null = {"type": "object", "properties": {"a": {"default": None}}}
    huge = {"type": "object", "properties": {"a": {"maximum": 2**70}}}
    validators = [_validator(schema, "m") for schema in (one, nan, null, huge)]
    assert len({id(v) for v in validators}) == 4
    assert validators[3].is_valid({"a": 2**69})
    assert not validators[3].is_valid({"a": 2**71})
