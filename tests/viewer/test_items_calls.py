"""The prompts sent and the raw answers of an item, when its run kept them: each call with
its messages, its answer, its model and tokens, as JSON and as a collapsible part of the
item page; a run that did not keep them says how to."""

import httpx
import pytest
from seed_items import judge_kept_run, judge_run, seeded, write_dataset


@pytest.fixture
def viewer(tmp_path, viewer_database, open_viewer):
    dataset = write_dataset(tmp_path)
    seeded(judge_kept_run(viewer_database, dataset, "kept"))
    seeded(judge_run(viewer_database, dataset, "plain"))
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        yield client


def test_a_run_that_kept_its_calls_shows_each_prompt_and_raw_answer(viewer):
    item = viewer.get("/view/api/runs/kept/items/2").json()
    assert item["calls_kept"] is True
    assert item["calls_note"] is None
    calls = item["judgments"][0]["calls"]
    assert len(calls) == 3  # the claims listed, then each of the two claims checked
    extraction = calls[0]
    assert extraction["messages"][0]["role"] == "system"
    assert "It sells fresh crabs." in extraction["messages"][-1]["content"]
    assert '"claims"' in extraction["answer"]
    assert extraction["model"] == "fake:grounding"
    assert extraction["input_tokens"] > 0
    checked = [
        call["messages"][-1]["content"].rsplit("Claim: ", 1)[1].strip() for call in calls[1:]
    ]
    assert sorted(checked) == [
        "The market opens every Saturday morning.",
        "The market sells fresh crabs.",
    ]
    assert all('"verdict"' in call["answer"] for call in calls[1:])

    page = viewer.get("/view/runs/kept/items/2").text
    assert page.count('<details class="call">') == 3
    assert "It sells fresh crabs." in page
    assert 'id="calls-note"' not in page


def test_a_run_that_did_not_keep_its_calls_says_how_to_keep_them(viewer):
    item = viewer.get("/view/api/runs/plain/items/2").json()
    assert item["calls_kept"] is False
    assert item["judgments"][0]["calls"] is None
    assert "jurist eval --keep-calls" in item["calls_note"]
    page = viewer.get("/view/runs/plain/items/2").text
    assert '<details class="call">' not in page
    assert "jurist eval --keep-calls" in page
