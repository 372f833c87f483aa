"""The research verdict with the default embedded model (Qwen2.5 1.5B), for real: two calls."""

import pytest

from jurist.core import Context, Status
from jurist.judges import ResearchVerdict, ResearchVerdictJudge
from jurist.judges._research import SIGNALS
from jurist.llm._get_model import get_model
from jurist.settings import Settings

QUERY = "What are the main health benefits of regular aerobic exercise?"
CONSTRAINTS = ["cite at least one source"]
ON_TOPIC = (
    "Regular aerobic exercise lowers blood pressure and resting heart rate, improves insulin "
    "sensitivity, cuts the risk of heart disease and type 2 diabetes, helps weight control, "
    "and improves mood and sleep (WHO guidelines on physical activity, 2020)."
)
OFF_TOPIC = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris and is about "
    "330 metres tall (Encyclopaedia Britannica)."
)


@pytest.fixture(scope="module")
def judge() -> ResearchVerdictJudge:
    settings = Settings(JURIST_MODELS_DIR=str(Settings().models_dir), JURIST_CACHE="0")
    return ResearchVerdictJudge(get_model("local:qwen2.5-1.5b", settings=settings))


def research(findings: str) -> Context:
    return Context(QUERY, output=findings, metadata={"constraints": CONSTRAINTS, "confidence": 0.8})


async def test_off_topic_findings_do_not_pass_and_are_less_relevant(judge):
    on_topic = await judge.judge(research(ON_TOPIC))
    off_topic = await judge.judge(research(OFF_TOPIC))
    for result in (on_topic, off_topic):
        assert result.status in (Status.PASS, Status.FAIL), result.reasoning
        assert result.metadata["method"] == "logprobs"
        probabilities = result.metadata["probabilities"]
        assert set(probabilities) == {*SIGNALS, "verdict"}
        for distribution in probabilities.values():
            assert sum(distribution.values()) == pytest.approx(1.0)
        assert [c.name for c in result.checks] == list(SIGNALS)
        assert result.confidence is not None
        assert ResearchVerdict.from_judgment(result).verdict == result.metadata["verdict"]

    assert off_topic.status is Status.FAIL
    assert off_topic.metadata["verdict"] != "PASS"
    relevant = on_topic.metadata["probabilities"]["relevance"]["yes"]
    assert relevant > off_topic.metadata["probabilities"]["relevance"]["yes"]
