"""`calibrate` with the anchored method through the default embedded model on the first two
SummEval items: each is judged with examples from the other document only, and scored."""

import dataclasses

from jurist.calibration import Anchored, calibrate, calibration_dataset
from jurist.data import summeval_100_path
from jurist.llm._get_model import get_model
from jurist.settings import Settings


async def test_two_summeval_items_anchored_on_the_embedded_model():
    settings = Settings(JURIST_MODELS_DIR=str(Settings().models_dir), JURIST_CACHE="0")
    model = get_model("local:qwen2.5-1.5b", settings=settings)
    # Items 0 and 4 are summaries of two different documents, so each has the other's
    # document to draw one example from.
    full = calibration_dataset(summeval_100_path(), limit=8)
    chosen = (full.ratings[0], full.ratings[4])
    assert chosen[0].doc_id != chosen[1].doc_id
    dataset = dataclasses.replace(full, items=chosen)
    done = await calibrate(
        dataset,
        "summarization",
        dimensions=["fluency"],
        model=model,
        goal="Summarise the article.",
        method=Anchored(1),
        n_boot=50,
    )
    points = done.report.dimensions["fluency"].points
    assert [p.id for p in points] == [item.id for item in chosen]
    assert all(p.judge is not None and 1.0 <= p.judge <= 5.0 for p in points)
    docs = {item.id: item.doc_id for item in chosen}
    for item_id, judgment in done.run.judgments.items():
        shown = judgment.metadata["anchors"]["fluency"]
        assert [docs[a["id"]] for a in shown] == [d for i, d in docs.items() if i != item_id]
