"""Two runs of one dataset compared over HTTP: each item's two verdicts and what changed,
status flips first, counts of each change, "only changed", pages; runs of different
datasets refused unless forced; bad parameters named."""

import json

import httpx
import pytest
from seed_items import CHANGED, every_change, judge_run, seeded, write_dataset


@pytest.fixture
def two_runs(tmp_path, viewer_database, open_viewer):
    dataset = write_dataset(tmp_path)
    seeded(judge_run(viewer_database, dataset, "before"))
    seeded(judge_run(viewer_database, dataset, "after", CHANGED))
    # The same answers in another file with one more row: a different dataset.
    other = tmp_path / "other" / "harbour.jsonl"
    other.parent.mkdir()
    extra = {
        "id": "4",
        "goal": "Where is the town?",
        "output": "Port Ellis is on the north coast.",
        "context": ["Port Ellis is a fishing town on the north coast."],
    }
    other.write_text(dataset.read_text() + json.dumps(extra) + "\n")
    seeded(judge_run(viewer_database, other, "elsewhere"))
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        yield client


def test_each_item_shows_both_verdicts_with_the_status_flips_first(two_runs):
    answer = two_runs.get("/view/api/compare", params={"a": "before", "b": "after"})
    assert answer.status_code == 200
    compared = answer.json()
    assert compared["same_dataset"] is True
    assert compared["changes"] == {"status": 2, "score": 0, "added": 0, "removed": 0, "same": 1}
    assert compared["flips"] == {"pass→fail": 1, "fail→pass": 1}
    rows = [
        (r["item_id"], r["change"], r["status_a"], r["status_b"], r["delta"])
        for r in compared["rows"]
    ]
    assert rows == [
        ("1", "status", "pass", "fail", pytest.approx(-1.0)),
        ("2", "status", "fail", "pass", pytest.approx(0.5)),
        ("3", "same", "pass", "pass", pytest.approx(0.0)),
    ]
    assert compared["total"] == 3


def test_only_changed_items_and_pages_of_them(two_runs):
    changed = two_runs.get(
        "/view/api/compare", params={"a": "before", "b": "after", "only": "changed"}
    ).json()
    assert [r["item_id"] for r in changed["rows"]] == ["1", "2"]
    assert changed["total"] == 2
    assert changed["changes"]["same"] == 1  # the counts stay over every item
    second = two_runs.get(
        "/view/api/compare",
        params={"a": "before", "b": "after", "only": "changed", "per_page": 1, "page": 2},
    ).json()
    assert [r["item_id"] for r in second["rows"]] == ["2"]
    assert second["pages"] == 2
    same = two_runs.get(
        "/view/api/compare", params={"a": "before", "b": "after", "only": "same"}
    ).json()
    assert [r["item_id"] for r in same["rows"]] == ["3"]


def test_the_page_marks_changed_rows_and_links_both_items(two_runs):
    before = two_runs.get("/view/api/runs/before/items/1").json()["run"]["id"]
    after = two_runs.get("/view/api/runs/after/items/1").json()["run"]["id"]
    page = two_runs.get("/view/compare", params={"a": "before", "b": "after", "only": "changed"})
    assert page.status_code == 200
    html = page.text
    assert html.count('class="compare-row change-status changed"') == 2
    assert f'href="/view/runs/{before}/items/1"' in html
    assert f'href="/view/runs/{after}/items/1"' in html
    assert "PASS→FAIL <strong>1</strong>" in html
    assert 'class="compare-row change-same' not in html


def test_runs_of_different_datasets_are_refused_unless_forced(two_runs):
    refused = two_runs.get("/view/api/compare", params={"a": "before", "b": "elsewhere"})
    assert refused.status_code == 422
    message = refused.json()["message"]
    assert "judged different datasets" in message
    assert "force=1" in message
    page = two_runs.get("/view/compare", params={"a": "before", "b": "elsewhere"})
    assert page.status_code == 422
    assert "judged different datasets" in page.text
    forced = two_runs.get(
        "/view/api/compare", params={"a": "before", "b": "elsewhere", "force": "1"}
    ).json()
    assert forced["same_dataset"] is False
    assert forced["changes"]["added"] == 1  # item 4 only in the second run
    added = [r for r in forced["rows"] if r["change"] == "added"]
    assert added == [
        {
            "item_id": "4",
            "change": "added",
            "status_a": None,
            "status_b": "pass",
            "score_a": None,
            "score_b": 1.0,
            "delta": None,
        }
    ]


def test_bad_parameters_are_named(two_runs):
    wrong = two_runs.get("/view/api/compare", params={"a": "before", "b": "after", "only": "x"})
    assert wrong.status_code == 422
    assert wrong.json()["message"].startswith("only: one of all, changed, status")
    missing = two_runs.get("/view/api/compare", params={"a": "before", "b": "nowhere"})
    assert missing.status_code == 404
    assert missing.json()["message"] == "no run 'nowhere'"
    no_b = two_runs.get("/view/api/compare", params={"a": "before"})
    assert no_b.status_code == 422
    assert "b" in no_b.json()["message"]


def test_every_kind_of_change_is_counted_and_ordered(viewer_database, open_viewer):
    seeded(every_change(viewer_database))
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        compared = client.get("/view/api/compare", params={"a": "a", "b": "b"}).json()
    assert compared["changes"] == {"status": 1, "score": 2, "added": 1, "removed": 1, "same": 1}
    assert compared["flips"] == {"error→pass": 1}
    assert [(r["item_id"], r["change"]) for r in compared["rows"]] == [
        ("10", "status"),
        ("2", "score"),  # the largest move first
        ("11", "score"),
        ("3", "removed"),
        ("4", "added"),
        ("1", "same"),
    ]
    assert compared["rows"][1]["delta"] == pytest.approx(-0.3)
