"""PairwiseJudge with the default embedded model, Qwen2.5 1.5B, on pairs written for it: a
clear good/bad pair in either position (the direct method), and for the pointwise default a
detailed answer against an empty one, a right sum against a wrong one, and a correct short
answer against a long rambling one."""

import pytest

from jurist.core import Status
from jurist.judges import PairwiseJudge, PairwiseReport
from jurist.llm._get_model import get_model
from jurist.settings import Settings

INSTRUCTION = "What is the capital of Australia?"
RIGHT = "The capital of Australia is Canberra."
WRONG = "The capital of Australia is Sydney."

REFUND = "Explain the refund policy"
DETAILED = (
    "Refunds are accepted within 30 days of purchase, and the money reaches your card in 10 days."
)
VAGUE = "We do refunds."

CUBE = "What is 5 x 5 x 5?"
RAMBLING = (
    "Great question! Multiplication is one of the oldest operations in mathematics, used by "
    "merchants and astronomers for thousands of years. To multiply, we combine equal groups. "
    "Here we have three fives, so we multiply them step by step, carefully, as every good "
    "student should: 5 x 5 x 5 = 625. I hope this thorough explanation helps you understand "
    "multiplication better and gives you confidence in your future calculations."
)
SHORT = "5 x 5 x 5 = 125."


@pytest.fixture(scope="module")
def model():
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return get_model("local:qwen2.5-1.5b", settings=settings)


async def test_the_right_answer_wins_in_either_position(model):
    judge = PairwiseJudge(model, method="direct")
    as_a = await judge.compare(INSTRUCTION, RIGHT, WRONG)
    assert as_a.metadata["method"] == "logprobs", as_a.reasoning
    assert as_a.metadata["p_a"] > 0.5, as_a.reasoning
    assert as_a.status is Status.PASS, as_a.reasoning

    as_b = await judge.compare(INSTRUCTION, WRONG, RIGHT)
    assert as_b.metadata["p_a"] < 0.5, as_b.reasoning
    assert as_b.status is Status.FAIL, as_b.reasoning


async def test_the_detailed_refund_answer_wins(model):
    judgment = await PairwiseJudge(model).compare(REFUND, VAGUE, DETAILED)
    # Every signal leans to the detailed answer. The lean is modest (P(A better) 0.42 when
    # measured), which the former tie band of 0.5 +- 0.1 turned into a tie.
    assert judgment.status is Status.FAIL, judgment.reasoning
    report = PairwiseReport.of(judgment)
    assert report is not None
    assert report.comparison == "pointwise"
    assert report.p_a is not None
    assert report.p_a < 0.5 - report.tie_margin, judgment.reasoning
    assert report.signals is not None
    assert report.signals.requirements < 0, judgment.reasoning


async def test_a_long_rambling_miscalculation_loses_to_a_correct_short_answer(model):
    judgment = await PairwiseJudge(model).compare(CUBE, RAMBLING, SHORT)
    assert judgment.status is Status.FAIL, judgment.reasoning
    report = PairwiseReport.of(judgment)
    assert report is not None
    assert len(report.errors_a) == 1, judgment.reasoning
    assert report.errors_b == ()
