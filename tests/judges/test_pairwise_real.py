"""PairwiseJudge with the default embedded model, Qwen2.5 1.5B, on a clear good/bad pair.

Four model calls in all: one judgment with the right answer as A, one with it as B.
"""

import pytest

from jurist.core import Status
from jurist.judges import PairwiseJudge
from jurist.llm._get_model import get_model
from jurist.settings import Settings

INSTRUCTION = "What is the capital of Australia?"
RIGHT = "The capital of Australia is Canberra."
WRONG = "The capital of Australia is Sydney."


@pytest.fixture(scope="module")
def judge() -> PairwiseJudge:
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return PairwiseJudge(get_model("local:qwen2.5-1.5b", settings=settings))


async def test_the_right_answer_wins_in_either_position(judge: PairwiseJudge):
    as_a = await judge.compare(INSTRUCTION, RIGHT, WRONG)
    assert as_a.metadata["method"] == "logprobs", as_a.reasoning
    assert as_a.metadata["p_a"] > 0.5, as_a.reasoning
    assert as_a.status is Status.PASS, as_a.reasoning

    as_b = await judge.compare(INSTRUCTION, WRONG, RIGHT)
    assert as_b.metadata["p_a"] < 0.5, as_b.reasoning
    assert as_b.status is Status.FAIL, as_b.reasoning
