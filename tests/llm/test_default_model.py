"""The default judge model, Qwen2.5 1.5B, for real: its probabilities carry the judgment."""

import pytest

from jurist.llm import Request
from jurist.llm._get_model import get_model
from jurist.llm._logprobs import label_probabilities
from jurist.settings import Settings

# Each pair asks the same kind of question once with a true premise, once with a false one.
PAIRS = [
    ("Is Paris the capital of France?", "Is Madrid the capital of France?"),
    ("Is water made of hydrogen and oxygen?", "Is water made of helium and carbon?"),
    ("Does a triangle have three sides?", "Does a triangle have five sides?"),
]


@pytest.fixture(scope="module")
def model():
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return get_model("local:qwen2.5-1.5b", settings=settings)


async def p_yes(model, question: str) -> float:
    response = await model.complete(
        Request.of(
            f"Question: {question}\nAnswer with yes or no.",
            logprobs=True,
            top_logprobs=10,
            max_tokens=2,
        )
    )
    probabilities = label_probabilities(response.logprobs, ["yes", "no"])
    assert probabilities is not None, response.logprobs
    return probabilities["yes"]


@pytest.mark.parametrize(("right", "wrong"), PAIRS)
async def test_p_yes_is_higher_for_the_right_answer(model, right: str, wrong: str):
    assert await p_yes(model, right) > await p_yes(model, wrong)
