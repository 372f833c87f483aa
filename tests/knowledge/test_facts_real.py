"""A knowledge-base round trip through the real embedded model, on SQLite and on a real
PostgreSQL server: ingest documents, search them, fact-check an output against them."""

import pytest

from jurist.core import Context, Status
from jurist.judges import FactChecker
from jurist.knowledge import KnowledgeBase
from jurist.llm._get_model import get_model
from jurist.settings import Settings

HANDBOOK = {
    "refunds.md": "# Refunds\n\nCustomers may return any item within 30 days of delivery "
    "for a full refund. Refunds are paid to the original card within 5 business days.",
    "shipping.md": "# Shipping\n\nStandard shipping takes 3 to 7 business days. Express "
    "shipping arrives the next business day and costs 12 euros.",
}


@pytest.fixture(scope="module")
def model():
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return get_model("local:qwen2.5-1.5b", settings=settings)


async def test_ingest_search_and_fact_check(database_url, tmp_path, model):
    for name, text in HANDBOOK.items():
        (tmp_path / name).write_text(text, "utf-8")
    async with await KnowledgeBase.open(database_url) as knowledge:
        report = await knowledge.add(tmp_path, "handbook")
        assert len(report.added) == 2
        [best] = await knowledge.search("how many days to return an item", limit=1)
        assert best.document.startswith("refunds")

        checker = FactChecker(knowledge, model, sources=["handbook"], passages=2)
        good = await checker.judge(
            Context("What is the refund window?", output="Items can be returned within 30 days.")
        )
        bad = await checker.judge(
            Context("What is the refund window?", output="Items can be returned within 90 days.")
        )
    assert good.status is Status.PASS, good.reasoning
    assert bad.status is Status.FAIL, bad.reasoning
    [good_claim] = good.metadata["claims"][:1]
    assert good_claim["evidence_document"].startswith("handbook/refunds")
    assert bad.metadata["issues"][0]["type"] == "unverified_fact"
    assert good_claim["p_supported"] > bad.metadata["claims"][0]["p_supported"]
