"""The off-topic check of relevance on the default embedded model, for real: in a summary
that states one of the source's key facts and then wanders off to another subject, the
wandering claim must be the less on-topic one and be flagged, and the judgment's relevance
must be the harmonic mean of its coverage and focus."""

import pytest

from jurist.core import Context, Status
from jurist.judges import CoverageJudge, relevance_f1
from jurist.llm._get_model import get_model
from jurist.settings import Settings

SOURCE = (
    "The city council of Lyon voted on Tuesday to close the Pont Morand bridge to cars from "
    "1 March. The bridge will stay open to buses, bicycles and pedestrians. The council said "
    "the closure should cut traffic noise in the old town by a third. Shop owners on the quay "
    "opposed the plan, saying they would lose customers who arrive by car."
)
SUMMARY = (
    "Lyon's council voted to close the Pont Morand bridge to cars from 1 March. "
    "Marseille has opened a new museum of modern art with 300 paintings."
)


async def test_a_claim_about_another_subject_is_off_topic():
    settings = Settings(JURIST_MODELS_DIR=str(Settings().models_dir), JURIST_CACHE="0")
    model = get_model("local:qwen2.5-1.5b", settings=settings)
    judge = CoverageJudge(model, facts=3, off_topic=True)
    judgment = await judge.judge(Context("Summarise the article.", output=SUMMARY, context=SOURCE))

    assert judgment.status in (Status.PASS, Status.FAIL), judgment.reasoning
    meta = judgment.metadata
    statements = {s["statement"]: s["p_on_topic"] for s in meta["statements"]}
    bridge = [p for s, p in statements.items() if "Morand" in s or "bridge" in s]
    museum = [p for s, p in statements.items() if "Marseille" in s or "museum" in s]
    assert bridge, statements
    assert museum, statements
    assert min(bridge) - max(museum) > 0.3, statements
    assert any("Marseille" in i["statement"] or "museum" in i["statement"] for i in meta["issues"])
    assert meta["relevance"] == pytest.approx(
        relevance_f1(meta["p_covered_mean"], meta["p_on_topic_mean"])
    )
