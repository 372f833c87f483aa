"""One item of a run over HTTP: its inputs read again from the dataset file, its whole
judgment (a claims report with each quote located in the source, a jury's votes under its
verdict), what it cost; a 404 for an item or run that is not there; the same value as JSON
and as a page."""

import json

import httpx
import pytest
from seed_items import SOURCE, judge_jury_run, judge_run, seeded, write_dataset


@pytest.fixture
def harbour(tmp_path, viewer_database, open_viewer):
    """A viewer over a faithfulness run ("before") and a jury run ("panel") of one file."""
    dataset = write_dataset(tmp_path)
    seeded(judge_run(viewer_database, dataset, "before"))
    seeded(judge_jury_run(viewer_database, dataset, "panel"))
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        yield client, dataset


def test_an_item_holds_its_inputs_and_its_claims_with_their_quotes_found_in_the_source(harbour):
    client, _ = harbour
    answer = client.get("/view/api/runs/before/items/2")
    assert answer.status_code == 200
    item = answer.json()
    assert item["item_id"] == "2"
    assert item["run"]["name"] == "before"
    assert item["run"]["judge"] == "faithfulness"
    assert item["inputs"]["goal"] == "When does the market open?"
    assert item["inputs"]["output"].startswith("The market opens every Saturday morning.")
    (verdict,) = item["judgments"]
    assert verdict["judge"] == "faithfulness"
    assert verdict["status"] == "fail"
    assert verdict["score"] == pytest.approx(0.5)
    assert verdict["model"] == "fake:grounding"
    assert [check["passed"] for check in verdict["checks"]] == [True, False]
    report = verdict["report"]
    assert report["kind"] == "claims"
    assert report["fields"]["total_claims"] == 2
    found, invented = report["claims"]
    assert found["p_supported"] == pytest.approx(0.91)
    assert found["supported"] is True
    quote = "The harbour market opens every Saturday morning."
    start = SOURCE.index(quote)
    assert found["located"] == {"passage": 0, "spans": [[start, start + len(quote)]]}
    assert invented["supported"] is False
    assert invented["located"] is None  # "The market sells crabs on the pier." is not there

    (passage,) = item["inputs"]["passages"]
    assert "".join(segment["text"] for segment in passage["segments"]) == SOURCE
    marked = [segment for segment in passage["segments"] if segment["claims"]]
    assert marked == [{"text": quote, "claims": [1], "supported": True}]
    assert item["total"]["input_tokens"] == verdict["cost"]["input_tokens"] > 0
    assert item["calls_kept"] is False
    assert "--keep-calls" in item["calls_note"]


def test_the_item_page_draws_the_same_value_with_the_quote_marked_in_the_source(harbour):
    client, _ = harbour
    page = client.get("/view/runs/before/items/2")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    html = page.text
    assert '<mark class="supported" title="quoted for claim 1">The harbour market opens' in html
    assert "not found in the source" in html  # the invented quote
    assert '<td class="num p-supported">0.91</td>' in html
    assert "--keep-calls" in html
    for forbidden in ("style=", "<script>", "onclick"):
        assert forbidden not in html


def test_a_jurys_votes_stand_under_its_verdict_and_any_report_kind_shows_its_fields(harbour):
    client, _ = harbour
    item = client.get("/view/api/runs/panel/items/1").json()
    (verdict,) = item["judgments"]
    assert verdict["judge"] == "panel"
    members = {member["name"]: member for member in verdict["members"]}
    assert set(members) == {"faithfulness", "brevity"}
    assert members["faithfulness"]["judge"] == "panel/faithfulness"
    assert members["faithfulness"]["report"]["claims"][0]["p_supported"] == pytest.approx(0.93)
    criterion = members["brevity"]["report"]
    assert criterion["kind"] == "criterion"
    assert criterion["claims"] is None
    assert criterion["fields"]["answer"] == "yes"
    # the verdict states the jury's usage, or the sum of its votes'
    votes_in = sum(member["cost"]["input_tokens"] for member in members.values())
    assert item["total"]["input_tokens"] in (verdict["cost"]["input_tokens"], votes_in)
    assert item["total"]["input_tokens"] > 0
    page = client.get("/view/runs/panel/items/1").text
    assert page.count('class="card judgment"') == 3
    assert "<dt>answer</dt><dd>yes" in page  # the criterion report drawn field by field


def test_a_missing_item_or_run_is_404_as_json_and_as_a_page(harbour):
    client, _ = harbour
    for path, what in [
        ("/view/api/runs/before/items/99", "no item '99' in run 'before'"),
        ("/view/api/runs/nowhere/items/1", "no run 'nowhere'"),
    ]:
        answer = client.get(path)
        assert answer.status_code == 404
        assert answer.json() == {"error": "not_found", "message": what, "errors": []}
    page = client.get("/view/runs/before/items/99")
    assert page.status_code == 404
    assert "no item &#39;99&#39; in run &#39;before&#39;" in page.text


def test_an_item_whose_dataset_changed_since_the_run_shows_its_judgment_and_says_so(harbour):
    client, dataset = harbour
    rows = [json.loads(line) for line in dataset.read_text().splitlines()]
    rows[1]["output"] = "Something else entirely."
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    item = client.get("/view/api/runs/before/items/2").json()
    assert item["inputs"] is None
    assert "has changed since the run" in item["inputs_note"]
    assert item["judgments"][0]["report"]["claims"][0]["located"] is None
    page = client.get("/view/runs/before/items/2").text
    assert "has changed since the run" in page
    dataset.unlink()
    gone = client.get("/view/api/runs/before/items/2").json()
    assert "cannot be read again" in gone["inputs_note"]


def test_the_item_and_compare_endpoints_are_documented(harbour):
    client, _ = harbour
    paths = client.get("/view/api/openapi.json").json()["paths"]
    for path in ("/view/api/runs/{run}/items/{item_id}", "/view/api/compare"):
        operation = paths[path]["get"]
        assert operation["tags"] == ["viewer"]
        assert operation["summary"]
        assert operation["description"]
    assert "/view/runs/{run}/items/{item_id}" not in paths
