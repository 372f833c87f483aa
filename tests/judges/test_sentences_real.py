"""SentenceChecksJudge on the default embedded model, for real, on a SummEval-style summary
(lower-cased, tokenized): every sentence gets its checks, each a P(yes) read from the
answer token. The plumbing is what is held here; how well the P(yes) values rank summaries
is measured by `jurist calibrate --method sentences`, not asserted in a test."""

import math

import pytest

from jurist.core import Context, Status
from jurist.judges._sentences import SentenceChecksJudge
from jurist.llm._get_model import get_model
from jurist.settings import Settings

SUMMARY = (
    "the queen 's guard was left red-faced after he slipped on a manhole cover . "
    "he lost his footing and dropped his rifle on the side of the box . "
    "the incident was caught on camera camera camera ."
)


@pytest.fixture(scope="module")
def model():
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return get_model("local:qwen2.5-1.5b", settings=settings)


async def test_every_sentence_gets_a_probability_for_each_dimension(model):
    result = await SentenceChecksJudge(model).judge(Context("Summarise.", output=SUMMARY))

    assert result.status in (Status.PASS, Status.FAIL), result.reasoning
    assert result.metadata["sentences"] == 3
    checks = result.metadata["checks"]
    assert [(c["dimension"], c["question"], c["sentence"]) for c in checks] == [
        ("fluency", "fluent", 1),
        ("fluency", "fluent", 2),
        ("fluency", "fluent", 3),
        ("coherence", "opening", 1),
        ("coherence", "follows", 2),
        ("coherence", "follows", 3),
    ]
    for check in checks:
        assert check["method"] == "logprobs", check
        assert math.isfinite(check["p_yes"]), check
        assert 0.0 <= check["p_yes"] <= 1.0, check
    for dimension in ("fluency", "coherence"):
        aggregate = result.metadata[dimension]
        assert aggregate["checks"] == 3
        assert 1.0 <= aggregate["score"] <= 5.0
        assert aggregate["p_min"] <= aggregate["p_mean"]
    assert result.usage is not None
    assert result.usage.calls == 6
