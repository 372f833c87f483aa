"""The RAG relevance judges on the default embedded model, for real: a relevant passage and
an on-topic answer must get a higher P(yes) than an off-topic one."""

import pytest

from jurist.core import Context, Status
from jurist.judges import AnswerRelevanceJudge, ContextRelevanceJudge
from jurist.llm._get_model import get_model
from jurist.settings import Settings

QUESTION = "When was the Eiffel Tower completed?"
RELEVANT = "The Eiffel Tower was completed in 1889 as the entrance arch of the World's Fair."
OFF_TOPIC = "To cook pasta, bring a large pot of salted water to the boil."


@pytest.fixture(scope="module")
def model():
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return get_model("local:qwen2.5-1.5b", settings=settings)


async def test_a_relevant_passage_outranks_an_off_topic_one(model):
    result = await ContextRelevanceJudge(model).judge(
        Context(QUESTION, context=(RELEVANT, OFF_TOPIC))
    )
    assert result.status in (Status.PASS, Status.FAIL), result.reasoning
    relevant, off_topic = result.metadata["passages"]
    # Measured 2026-11-22: 0.54 against 0.03. The 1.5B model is shy of "yes" even for a
    # passage that answers the question, so the test holds the gap, not the threshold.
    assert relevant["p_yes"] - off_topic["p_yes"] > 0.3
    assert off_topic["relevant"] is False


async def test_an_answer_to_the_question_outranks_an_evasive_one(model):
    judge = AnswerRelevanceJudge(model)
    direct = await judge.judge(Context(QUESTION, output="It was completed in 1889."))
    evasive = await judge.judge(
        Context(QUESTION, output="Paris has many famous museums, such as the Louvre.")
    )
    assert direct.status in (Status.PASS, Status.FAIL), direct.reasoning
    # Measured 2026-11-22: 0.61 against 0.04.
    assert direct.metadata["p_yes"] - evasive.metadata["p_yes"] > 0.3
    assert evasive.status is Status.FAIL, evasive.reasoning
