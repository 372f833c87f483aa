"""Judges' reputations: every judge's score and metrics with their scores over time in one
chart, one judge's history as a line chart and a table of its changes, each naming the cycle
or tournament that moved it; over HTTP and in headless Chromium."""

import httpx

from viewer.seed_cycles import paused_cycle, tournament


def test_reputations_list_every_judge_with_its_scores_over_time(open_viewer, viewer_database):
    first = tournament(viewer_database, "first")
    second = tournament(viewer_database, "second")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        listed = client.get("/view/api/reputations").json()
        assert [j["judge_id"] for j in listed["judges"]] == ["variant:right", "variant:lenient"]
        right = listed["judges"][0]
        assert right["metrics"]["accuracy_rate"] == 1.0
        assert right["metrics"]["total_evaluations"] == 8  # four cases, twice
        points = listed["series"]["variant:right"]
        assert [p["score"] for p in points] == [0.5, right["score"], right["score"]]

        detail = client.get("/view/api/reputations/variant:lenient").json()
        changes = detail["changes"]
        assert [c["tournament"] for c in changes] == [second, first]  # newest first
        assert [c["event"] for c in changes] == ["seed", "seed"]
        assert changes[-1]["before"] == 0.5  # a new judge starts at the initial score
        assert "rank 2 of 2 on 4 cases" in changes[0]["note"]
        assert detail["score"] == changes[0]["after"]

        page = client.get("/view/reputations/variant:lenient")
        assert f'href="/view/tournaments/{second}"' in page.text
        assert page.text.count('<path class="line s0"') == 1  # one judge, one line

        missing = client.get("/view/api/reputations/nobody")
        assert missing.status_code == 404
        assert missing.json()["message"] == "no reputation of judge nobody"
        assert client.get("/view/api/reputations/" + "x" * 300).status_code == 404
        assert client.get("/view/api/reputations/%20").status_code == 404


def test_a_cycles_roles_link_back_to_the_cycle(open_viewer, viewer_database):
    cycle = paused_cycle(viewer_database, "bullets")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        judges = [j["judge_id"] for j in client.get("/view/api/reputations").json()["judges"]]
        assert "meta@fake:judge" in judges  # it agreed with the outcome: consensus alignment
        detail = client.get("/view/api/reputations/meta@fake:judge").json()
        assert [(c["event"], c["cycle_id"], c["tournament"]) for c in detail["changes"]] == [
            ("consensus_alignment", cycle, None)
        ]
        page = client.get("/view/reputations/meta@fake:judge")
        assert f'href="/view/cycles/{cycle}"' in page.text


def test_the_reputations_chart_in_the_browser(
    open_viewer, viewer_database, browser_page, screenshots
):
    tournament(viewer_database, "first")
    tournament(viewer_database, "second")
    running = open_viewer(viewer_database)
    page = browser_page
    page.goto(f"{running.url}/view/reputations")
    chart = page.locator("#reputation-chart svg.plot")
    assert chart.count() == 1
    assert chart.locator("path.line").count() == 2  # one line per judge
    assert chart.locator("circle.dot").count() == 6  # where each started, and each change
    assert page.locator("#reputations tbody tr").count() == 2
    assert page.locator("#reputations tbody tr td.num").last.inner_text() == "2"  # changes
    page.screenshot(path=screenshots / "reputations.png", full_page=True)

    page.locator("#reputations tbody tr").first.locator("a").click()
    page.wait_for_url("**/view/reputations/variant%3Aright")
    assert page.locator("#reputation-chart svg.plot path.line").count() == 1
    assert page.locator("#changes tbody tr").count() == 2
    page.screenshot(path=screenshots / "reputation.png", full_page=True)
