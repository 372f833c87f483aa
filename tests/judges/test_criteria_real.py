"""One acceptance criterion on the default embedded model, for real: P(yes) must separate an
output that meets it from one that does not."""

import pytest

from jurist.core import Context, NumericScore, Status
from jurist.judges import CriterionJudge
from jurist.llm._get_model import get_model
from jurist.settings import Settings

CRITERION = "The answer states that the refund window is 30 days"
GOAL = "What is the refund window?"


@pytest.fixture(scope="module")
def model():
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return get_model("local:qwen2.5-1.5b", settings=settings)


async def test_p_yes_separates_a_met_criterion_from_an_unmet_one(model):
    judge = CriterionJudge(CRITERION, model)
    good = await judge.judge(Context(GOAL, output="You can get a refund within 30 days."))
    bad = await judge.judge(Context(GOAL, output="You can get a refund within 90 days."))
    for result in (good, bad):
        assert result.status in (Status.PASS, Status.FAIL), result.reasoning
        assert result.metadata["method"] == "logprobs"
        assert isinstance(result.score, NumericScore)
        assert result.metadata["parameters"]["logprobs"] is True
        assert result.reasoning
        assert result.usage.calls == 1
    assert good.metadata["p_yes"] > bad.metadata["p_yes"]
    assert bad.status is Status.FAIL
