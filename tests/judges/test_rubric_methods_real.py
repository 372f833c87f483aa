"""The summarization rubric by its methods (the rubric judge's default) on the default
embedded model: each criterion scored by the method the rubric names, and a faithful,
well-written summary scored above a wrong, broken one."""

import pytest

from jurist import Context, Status
from jurist.judges import RubricJudge, RubricResult
from jurist.llm import get_model
from jurist.rubrics import CriterionMethod
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
    return RubricJudge("summarization", get_model("local:qwen2.5-1.5b", settings=settings))


async def test_each_criterion_by_its_method_and_the_faithful_summary_above_the_wrong_one(judge):
    good = await judge.judge(Context("Summarise the article.", output=GOOD, context=ARTICLE))
    bad = await judge.judge(Context("Summarise the article.", output=BAD, context=ARTICLE))
    results = []
    for judgment in (good, bad):
        assert judgment.status in (Status.PASS, Status.FAIL), judgment.reasoning
        result = RubricResult.from_judgment(judgment)
        assert {c.criterion_name: c.criterion_method for c in result.criteria_results} == {
            "coherence": CriterionMethod.SENTENCES,
            "consistency": CriterionMethod.CLAIMS,
            "fluency": CriterionMethod.SENTENCES,
            "relevance": CriterionMethod.COVERAGE,
        }
        for criterion in result.criteria_results:
            assert 1.0 <= criterion.expected_score <= 5.0
            assert criterion.reasoning
            assert criterion.fallback is None
            assert criterion.signals
        results.append({c.criterion_name: c for c in result.criteria_results})
    good_scores, bad_scores = results
    assert good_scores["consistency"].expected_score > bad_scores["consistency"].expected_score
    assert RubricResult.from_judgment(good).overall_score > (
        RubricResult.from_judgment(bad).overall_score
    )
