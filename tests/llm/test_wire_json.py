"""Request bodies and answers on the wire to a provider go through orjson (_wire_json), yet
read and write what the standard json module and the SDK's own encoder did: the same
values decoded, the same bytes sent, the same errors for what they refused."""

import json
import math
from typing import Any

import pytest
from openai._utils._json import openapi_dumps

from fault_server import FaultServer, ok
from jurist.llm import Request
from jurist.llm._openai import OpenAIModel
from jurist.llm._openai_wire import chat_payload
from jurist.llm._wire_json import decode_body, encode_body

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 2000},
        "score": {"type": "integer", "minimum": 1, "maximum": 5},
        "confidence": {"type": ["number", "null"], "minimum": 0.0, "maximum": 1.0},
    },
    "required": ["reasoning", "score"],
    "additionalProperties": False,
}


def per_token_answer() -> bytes:
    """A hosted provider's answer with a log-probability entry (and 10 alternatives) for
    every token, written as the standard module writes JSON."""
    text = '{"reasoning": "Le résumé est fidèle — ✓ 3 faits.\\n", "score": 5}'
    pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
    content = [
        {
            "token": piece,
            "logprob": -0.0001 * i - 1e-05,
            "bytes": list(piece.encode()),
            "top_logprobs": [
                {"token": f"{piece}{k}", "logprob": -1.5e-7 * k - i, "bytes": [k, 200]}
                for k in range(10)
            ],
        }
        for i, piece in enumerate(pieces)
    ]
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_790_000_000,
        "model": "gpt-4.1-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "finish_reason": "stop",
                "logprobs": {"content": content, "refusal": None},
            }
        ],
        "usage": {"prompt_tokens": 512, "completion_tokens": len(pieces), "total_tokens": 530},
        "system_fingerprint": None,
    }
    return json.dumps(completion).encode()


@pytest.mark.parametrize(
    "body",
    [
        per_token_answer(),
        per_token_answer().decode(),
        b'{"a": 1e400, "b": -1e-320, "c": 12345678901234567890123, "d": 1.0, "e": -0}',
        # orjson alone would read these integers as floats
        b'{"created": 18446744073709551616, "usage": {"prompt_tokens": -9223372036854775809}}',
        '{"big": [12345678901234567890123, 18446744073709551615, 9223372036854775807]}',
        b'{"id": "chatcmpl-1234567890123456789012", "n": 1.5}',
        b'{"nan": NaN, "inf": Infinity, "ninf": -Infinity}',  # the json module reads these
        b'{"lone": "\\ud800", "pair": "\\ud83d\\ude00", "ctl": "\\u0000\\t"}',
        '{"utf16": "é"}'.encode("utf-16"),
        b'  {"padded": [1, 2, {"x": null}]}\n',
        b'{"dup": 1, "dup": 2}',
    ],
)
def test_an_answer_decodes_to_what_the_json_module_reads(body: bytes | str) -> None:
    decoded = decode_body(body)
    expected = json.loads(body)
    # NaN is not equal to itself: compare the text of both, with their types.
    assert json.dumps(decoded, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert repr(decoded) == repr(expected)


@pytest.mark.parametrize(
    "body", [b"", b"{", b"<html>bad gateway</html>", b'{"a": 1} trailing', b"\xff\xfe\x00"]
)
def test_what_is_not_json_is_a_value_error_as_before(body: bytes) -> None:
    with pytest.raises(ValueError, match=r"."):
        json.loads(body)
    with pytest.raises(ValueError, match=r"."):
        decode_body(body)


def requests() -> list[Request]:
    long_prompt = "Judge this answer.\n```\n" + 'Ein Text — «quoted» "x" \\ \u2028 \x01\n' * 50
    return [
        Request.of("Is the sky blue?", system="You are a judge."),
        Request.of(
            long_prompt,
            system="Système: réponds en JSON 🙂",
            json_schema=SCHEMA,
            logprobs=True,
            top_logprobs=10,
            temperature=0.7,
            seed=12345678901,
            max_tokens=512,
            timeout_s=30.0,
        ),
        Request.of("Two samples", n=3, temperature=1.3, stop=("\n\n", "END"), seed=None),
    ]


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "none"])
@pytest.mark.parametrize("index", range(3))
def test_a_request_body_is_the_bytes_the_sdk_would_send(index: int, mode: Any) -> None:
    payload = chat_payload(requests()[index], "gpt-4.1-mini", mode)
    assert encode_body(payload) == openapi_dumps(payload)


def test_floats_are_written_with_the_same_values() -> None:
    payload = {"temperature": 1e-05, "values": [0.1, 1e16, 123456.789, -0.0, 2.5e-300, 1.0]}
    # orjson may spell an exponent differently (1e-5 for 1e-05): the numbers are the same.
    assert json.loads(encode_body(payload)) == json.loads(openapi_dumps(payload))
    assert [math.copysign(1, v) for v in json.loads(encode_body(payload))["values"]] == [
        1,
        1,
        1,
        -1,
        1,
        1,
    ]


def test_what_orjson_refuses_is_written_by_the_json_module() -> None:
    payload = {"seed": 2**70, "schema": {"maximum": -(2**65)}}
    assert encode_body(payload) == openapi_dumps(payload)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_is_refused_as_the_sdk_refuses_it(bad: float) -> None:
    payload = {"messages": [], "response_format": {"schema": {"maximum": [1, {"x": bad}]}}}
    with pytest.raises(ValueError, match="not JSON compliant"):
        openapi_dumps(payload)
    with pytest.raises(ValueError, match="not JSON compliant"):
        encode_body(payload)


def test_a_null_beside_finite_numbers_is_still_sent_by_orjson() -> None:
    payload = {"type": ["number", "null"], "default": None, "maximum": 1.5}
    assert encode_body(payload) == openapi_dumps(payload)


def test_a_lone_surrogate_fails_as_the_sdk_fails() -> None:
    payload = {"messages": [{"role": "user", "content": "bad \ud800 text"}]}
    with pytest.raises(UnicodeEncodeError):
        openapi_dumps(payload)
    with pytest.raises(UnicodeEncodeError):
        encode_body(payload)


async def test_the_provider_sends_the_encoded_body_as_json(fault_server: FaultServer) -> None:
    fault_server.script(ok(json={"score": 4, "reasoning": "fine"}))
    model = OpenAIModel("judge-1", base_url=fault_server.openai_url, api_key="sk-test")
    request = requests()[1]

    response = await model.complete(request)

    assert response.json == {"score": 4, "reasoning": "fine"}
    [received] = fault_server.requests
    assert received.headers["content-type"] == "application/json"
    sent = openapi_dumps(chat_payload(request, "judge-1", "json_schema"))
    assert received.body == json.loads(sent)
