"""Token log-probabilities read from a chat completion: built without pydantic's validation
(an answer carries hundreds), yet the same records validation builds, and a malformed one is
still an unreadable completion."""

import pickle
from typing import Any

import pytest

from jurist.llm import ErrorKind, ModelError, TokenLogprob, TopLogprob
from jurist.llm._openai_wire import parse_completion


def completion(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "choices": [
            {
                "message": {"role": "assistant", "content": "yes"},
                "finish_reason": "stop",
                "logprobs": {"content": content},
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }


def token(text: Any = "yes", logprob: Any = -0.1, top: Any = None) -> dict[str, Any]:
    alternatives = top if top is not None else [{"token": "yes", "logprob": -0.1}]
    return {"token": text, "logprob": logprob, "top_logprobs": alternatives}


def parsed(content: list[dict[str, Any]]) -> tuple[TokenLogprob, ...]:
    data = completion(content)
    response = parse_completion(data, model_name="m", latency_ms=1.0, want_json=False)
    logprobs = response.choices[0].logprobs
    assert logprobs is not None
    return logprobs


def test_read_tokens_are_the_records_validation_builds() -> None:
    top = [{"token": "yes", "logprob": -0.1}, {"token": "no", "logprob": -2}]
    (read,) = parsed([token("yes", -0.1, top)])
    validated = TokenLogprob("yes", -0.1, (TopLogprob("yes", -0.1), TopLogprob("no", -2.0)))

    assert read == validated
    assert hash(read) == hash(validated)
    assert repr(read) == repr(validated)
    assert pickle.loads(pickle.dumps(read)) == validated
    assert isinstance(read.top[1].logprob, float)
    assert read.probability == pytest.approx(validated.probability)
    with pytest.raises(AttributeError):
        read.token = "no"  # type: ignore[misc]


@pytest.mark.parametrize(
    "bad",
    [
        token(text=7),
        token(logprob="not a number"),
        token(top=[{"token": None, "logprob": -1.0}]),
        token(top=[{"token": "yes"}]),
    ],
    ids=["token not text", "logprob not a number", "alternative not text", "no logprob"],
)
def test_a_malformed_token_is_an_unparseable_completion(bad: dict[str, Any]) -> None:
    with pytest.raises(ModelError) as caught:
        parsed([bad])

    assert caught.value.kind is ErrorKind.UNPARSEABLE
