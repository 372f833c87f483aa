"""The G-Eval rubric judge (every criterion asked plainly) on the default embedded model: the
structure of what it returns, read from the score token's probabilities."""

import pytest

from jurist import Context, Status
from jurist.judges import RubricJudge, RubricResult
from jurist.llm import get_model
from jurist.settings import Settings

ARTICLE = (
    "The city council of Millbrook voted 7 to 2 on Tuesday to build a public library on the "
    "site of the old train station. Construction will start in March and is expected to cost "
    "4 million dollars, paid for by a state grant. Mayor Ana Ruiz said the library will open "
    "in 2027 and will include a children's reading room."
)
GOOD = (
    "Millbrook's council voted 7-2 on Tuesday to build a library on the old train station "
    "site. The 4 million dollar project, funded by a state grant, starts in March and should "
    "open in 2027."
)
BAD = (
    "Millbrook council rejected the library by 9 votes, it will cost 40 million dollar paid "
    "by tax and mayor say the train station stay open forever and no children room."
)


@pytest.fixture(scope="module")
def judge():
    settings = Settings(JURIST_MODELS_DIR=str(Settings().models_dir), JURIST_CACHE="0")
    model = get_model("local:qwen2.5-1.5b", settings=settings)
    return RubricJudge("summarization", model, criteria=["consistency", "fluency"], methods="plain")


async def test_each_criterion_is_scored_from_the_score_tokens_probabilities(judge):
    good = await judge.judge(Context("Summarise the article.", output=GOOD, context=ARTICLE))
    bad = await judge.judge(Context("Summarise the article.", output=BAD, context=ARTICLE))
    for judgment in (good, bad):
        assert judgment.status in (Status.PASS, Status.FAIL), judgment.reasoning
        result = RubricResult.from_judgment(judgment)
        assert [c.criterion_name for c in result.criteria_results] == ["consistency", "fluency"]
        for criterion in result.criteria_results:
            assert criterion.method == "logprobs"
            assert criterion.score in range(1, 6)
            assert criterion.distribution is not None
            assert sum(criterion.distribution.values()) == pytest.approx(1.0)
            assert criterion.reasoning
            assert criterion.reasoning_first
        assert result.temperature == 0.0
        assert result.tokens_used.input > 0
    # No ordering is asserted: asked plainly, the 1.5B model scores both summaries near 1.5
    # (measured 2026-11-26: 1.538 and 1.547 within the full suite, the other way round run
    # alone), which is why the rubric's default scores by method; the ordering is held by
    # test_rubric_methods_real.py.
