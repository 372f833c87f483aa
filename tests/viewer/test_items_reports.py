"""Any report kind shows: one this process does not know is drawn as the fields it holds,
and one whose fields do not validate says so beside them; neither breaks the page."""

import httpx
import pytest
from seed_items import judge_run, seeded, write_dataset

from jurist.core import Check, Judgment
from jurist.store import JudgmentRecord, RecordStore


async def odd_reports(database: str) -> None:
    novel = Judgment.ok(
        "two widgets found",
        checks=[Check.ok("widgets", "2 of 2")],
        metadata={
            "report": "widgets",
            "widgets": [{"name": "cog", "teeth": 12}, {"name": "gear", "size": 0.25}],
            "inspected_by": "a program",
        },
    )
    broken = Judgment.fail("claims, badly kept", metadata={"report": "claims", "claims": "none"})
    async with await RecordStore.open(database) as store:
        run_id = await store.create_run("eval", name="odd", spec={"judge": {"name": "widgets"}})
        await store.save_judgments(
            [
                JudgmentRecord.of(novel, judge="widgets", run_id=run_id, item_id="a"),
                JudgmentRecord.of(broken, judge="legacy", run_id=run_id, item_id="a"),
            ]
        )


@pytest.fixture
def viewer(viewer_database, open_viewer):
    seeded(odd_reports(viewer_database))
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        yield client


def test_a_report_kind_unknown_here_or_malformed_is_shown_field_by_field(viewer):
    item = viewer.get("/view/api/runs/odd/items/a").json()
    assert item["inputs"] is None
    assert item["inputs_note"] == "the run records no dataset"
    novel, broken = item["judgments"]  # the run's judge first
    assert novel["judge"] == "widgets"
    assert novel["report"]["kind"] == "widgets"
    assert novel["report"]["fields"]["widgets"][1] == {"name": "gear", "size": 0.25}
    assert novel["report"]["problem"] is None
    assert broken["judge"] == "legacy"
    assert broken["report"]["kind"] == "claims"
    assert "malformed" in broken["report"]["problem"]
    assert broken["report"]["claims"] is None

    page = viewer.get("/view/runs/odd/items/a")
    assert page.status_code == 200
    html = page.text
    assert "<th>name</th><th>teeth</th><th>size</th>" in html  # rows as a table
    assert "<td>gear</td>" in html
    assert "<dt>inspected_by</dt><dd>a program" in html
    assert "malformed" in html
    assert "the run records no dataset" in html


async def stray_item(database: str, dataset_spec: dict) -> None:
    """A run of the harbour file holding a judgment of an item the file has no row for."""
    async with await RecordStore.open(database) as store:
        run_id = await store.create_run("eval", name="stray", spec=dataset_spec)
        record = JudgmentRecord.of(
            Judgment.ok("fine"), judge="faithfulness", run_id=run_id, item_id="9"
        )
        await store.save_judgments([record])


def test_an_item_the_dataset_has_no_row_for_says_so(tmp_path, viewer_database, open_viewer):
    dataset = write_dataset(tmp_path)
    harbour = seeded(judge_run(viewer_database, dataset, "harbour"))
    seeded(stray_item(viewer_database, harbour.spec))
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        item = client.get("/view/api/runs/stray/items/9").json()
        assert item["inputs"] is None
        assert item["inputs_note"] == "the run's dataset holds no readable row with this id"
        assert item["judgments"][0]["reasoning"] == "fine"
        assert "holds no readable row" in client.get("/view/runs/stray/items/9").text
