"""Token log-probabilities read from a chat completion: built without pydantic's validation
(an answer carries hundreds), yet the same records validation builds, and a malformed one is
still an unreadable completion. Their alternatives are built when first read, and a token
whose alternatives were never read is the same value as one built with them."""

import copy
import dataclasses
import pickle
from typing import Any

import pytest
from pydantic import TypeAdapter

from jurist.llm import (
    ErrorKind,
    ModelError,
    TokenLogprob,
    TopLogprob,
    field_probabilities,
    label_probabilities,
)
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


# -- alternatives built when read ---------------------------------------------------------

REASONING = 'The answer gives 3 facts, all "in the source"; none is 4 or 2.'


def real_shaped(score: str = "4") -> list[dict[str, Any]]:
    """A hosted provider's answer to a rubric: one entry per token (a reasoning sentence with
    digits and quotes in it, then the score), 10 alternatives each, the score's spread over
    its neighbours."""
    pieces = ['{"', "reasoning", '":', ' "', *REASONING.replace('"', '\\"').split(" "), '",']
    pieces += [' "', "score", '":', " ", score, "}"]
    fillers = [" the", ",", " and", ".", " of", " to", " in", " is", " that", " it"]
    content = []
    for piece in pieces:
        if piece == score:
            spread = {score: -0.2, "5": -2.0, "3": -2.5, "2": -5.0, "1": -7.0}
            top = [{"token": t, "logprob": p, "bytes": list(t.encode())} for t, p in spread.items()]
        else:
            top = [{"token": piece, "logprob": -0.001, "bytes": list(piece.encode())}]
        top += [{"token": f, "logprob": -16.0 - i} for i, f in enumerate(fillers)][: 10 - len(top)]
        content.append({"token": piece, "logprob": top[0]["logprob"], "top_logprobs": top})
    return content


def eager(content: list[dict[str, Any]]) -> tuple[TokenLogprob, ...]:
    return tuple(
        TokenLogprob(
            item["token"],
            item["logprob"],
            tuple(TopLogprob(t["token"], t["logprob"]) for t in item["top_logprobs"]),
        )
        for item in content
    )


def test_readers_find_the_same_probabilities_on_lazily_read_tokens() -> None:
    content = real_shaped("4")
    labels = ["1", "2", "3", "4", "5"]

    lazy = field_probabilities(parsed(content), "score", labels)
    validated = field_probabilities(eager(content), "score", labels)

    assert lazy == validated
    assert lazy[0] is not None
    assert max(lazy[0], key=lazy[0].__getitem__) == "4"
    yes_no = [
        token("yes", -0.1, [{"token": "yes", "logprob": -0.1}, {"token": "no", "logprob": -2.4}])
    ]
    assert label_probabilities(parsed(yes_no), ["yes", "no"]) == label_probabilities(
        eager(yes_no), ["yes", "no"]
    )


def test_unread_alternatives_copy_compare_and_serialise_as_built_ones() -> None:
    content = real_shaped("5")
    validated = eager(content)
    adapter = TypeAdapter(tuple[TokenLogprob, ...])

    # Each starts from tokens whose alternatives no one has read yet.
    assert parsed(content) == validated
    assert hash(parsed(content)) == hash(validated)
    assert repr(parsed(content)) == repr(validated)
    assert pickle.loads(pickle.dumps(parsed(content))) == validated
    assert copy.deepcopy(parsed(content)) == validated
    assert adapter.dump_json(parsed(content)) == adapter.dump_json(validated)
    assert adapter.validate_json(adapter.dump_json(parsed(content))) == validated
    first = parsed(content)[0]
    assert dataclasses.replace(first, logprob=-1.0).top == validated[0].top
    assert all(isinstance(t, TopLogprob) for t in parsed(content)[-2].top)
    assert TokenLogprob("a", -1.0).top == ()


@pytest.mark.parametrize(
    "spelled",
    [
        ['{"score":', "4", "}"],
        ['{"', "score", '"', " :", "\n  ", "4", "}"],
        ['{"score": "', " ", '"4', '"}'],
        ['{"score"\u00a0:\u2003', "4", "}"],
        ['{"reasoning": "a score: 2", "', "score", '":', "4", "}"],
        ['{"scores": 2, "score": ', "4", "}"],
    ],
)
def test_the_field_is_found_however_its_key_is_spaced_and_cut(spelled: list[str]) -> None:
    top = [{"token": "4", "logprob": -0.3}, {"token": "2", "logprob": -1.5}]
    content = [token(piece, -0.01, top if piece.strip('"') == "4" else []) for piece in spelled]

    (found,) = field_probabilities(parsed(content), "score", ["2", "4"])

    assert found is not None
    assert found["4"] > found["2"] > 0.0
