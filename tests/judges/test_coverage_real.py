"""CoverageJudge on the default embedded model, for real: a summary that keeps the source's
key facts must cover more of them than one about something else, and the second summary
of the same source must not pay for the key facts again."""

from jurist.core import Context, Status
from jurist.judges import CoverageJudge
from jurist.llm._get_model import get_model
from jurist.settings import Settings

SOURCE = (
    "The city council of Lyon voted on Tuesday to close the Pont Morand bridge to cars from "
    "1 March. The bridge will stay open to buses, bicycles and pedestrians. The council said "
    "the closure should cut traffic noise in the old town by a third. Shop owners on the quay "
    "opposed the plan, saying they would lose customers who arrive by car."
)
KEEPS = (
    "Lyon's council voted to close the Pont Morand bridge to cars from 1 March, keeping it "
    "open to buses, bicycles and pedestrians; shop owners opposed the plan."
)
ELSEWHERE = "A new museum of modern art opened in Marseille with a collection of 300 paintings."


async def test_a_summary_that_keeps_the_key_facts_covers_more_than_an_unrelated_one():
    settings = Settings(JURIST_MODELS_DIR=str(Settings().models_dir), JURIST_CACHE="0")
    judge = CoverageJudge(get_model("local:qwen2.5-1.5b", settings=settings), facts=3)
    keeps = await judge.judge(Context("Summarise the article.", output=KEEPS, context=SOURCE))
    elsewhere = await judge.judge(
        Context("Summarise the article.", output=ELSEWHERE, context=SOURCE)
    )
    assert keeps.status in (Status.PASS, Status.FAIL), keeps.reasoning
    assert elsewhere.status in (Status.PASS, Status.FAIL), elsewhere.reasoning
    assert 1 <= keeps.metadata["key_facts"] <= 3
    assert keeps.metadata["key_facts"] == elsewhere.metadata["key_facts"]
    assert keeps.metadata["p_covered_mean"] - elsewhere.metadata["p_covered_mean"] > 0.3
    # The key facts were extracted for the first summary only.
    assert keeps.usage is not None
    assert elsewhere.usage is not None
    assert elsewhere.usage.calls < keeps.usage.calls
