"""Any report kind shows: one this process does not know is drawn as the fields it holds,
and one whose fields do not validate says so beside them; neither breaks the page."""

import httpx
import pytest
from seed_items import seeded

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
