"""`calibrate` through the default embedded model on the first two SummEval items: the
rubric's scores reach the report with their latencies, and the run is stored."""

from jurist.calibration import calibrate, calibration_dataset, stored_report
from jurist.data import summeval_100_path
from jurist.llm._get_model import get_model
from jurist.settings import Settings
from jurist.store import RecordStore


async def test_two_summeval_items_on_the_embedded_model(tmp_path):
    settings = Settings(JURIST_MODELS_DIR=str(Settings().models_dir), JURIST_CACHE="0")
    model = get_model("local:qwen2.5-1.5b", settings=settings)
    dataset = calibration_dataset(summeval_100_path(), limit=2)
    async with await RecordStore.open(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        done = await calibrate(
            dataset,
            "summarization",
            dimensions=["fluency"],
            model=model,
            goal="Summarise the article.",
            store=store,
            name="real",
            n_boot=50,
        )
        kept = await stored_report(store, "real")
    points = done.report.dimensions["fluency"].points
    assert [p.id for p in points] == [item.id for item in dataset.ratings]
    assert all(p.judge is not None and 1.0 <= p.judge <= 5.0 for p in points)
    assert done.report.latency is not None
    assert done.report.latency.n == 2
    assert kept.dimensions["fluency"].points == points
