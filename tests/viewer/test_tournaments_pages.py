"""Tournaments as `jurist tournament` keeps them (a run of kind "tournament" whose summary
holds the standings, each reputation change naming it), listed and shown with their
standings over HTTP and in headless Chromium, each variant linked to its reputation."""

import httpx

from jurist.autonomy import AutonomyStore, tournament_of
from jurist.store import RecordStore
from viewer.seed_cycles import run_apart, tournament


def test_a_recorded_tournament_keeps_its_standings_and_names_itself_in_reputations(
    viewer_database,
):
    run_id = tournament(viewer_database, "cup")

    async def read():
        async with await RecordStore.open(viewer_database) as records:
            stored = await records.get_run("cup")
        async with await AutonomyStore.open(viewer_database) as store:
            history = await store.reputation_history("variant:right")
        return stored, history

    stored, history = run_apart(read())
    assert (stored.id, stored.kind, stored.status) == (run_id, "tournament", "done")
    rows = stored.summary["rows"]
    assert [(r["rank"], r["variant"]["id"], r["judge_id"]) for r in rows] == [
        (1, "right", "variant:right"),
        (2, "lenient", "variant:lenient"),
    ]
    assert rows[0]["balanced_accuracy"] == 1.0
    assert "verdicts" not in rows[0]  # case by case answers are not kept
    assert stored.summary["cases"] == 4
    assert [tournament_of(change.cycle_id) for change in history] == [run_id]
    assert tournament_of("a-cycle-id") is None


def test_tournaments_are_listed_and_one_shows_its_standings(open_viewer, viewer_database):
    first = tournament(viewer_database, "first")
    second = tournament(viewer_database)
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        listed = client.get("/view/api/tournaments").json()
        assert listed["total"] == 2
        assert [t["id"] for t in listed["tournaments"]] == [second, first]  # newest first
        row = listed["tournaments"][1]
        assert (row["name"], row["model"], row["variants"], row["cases"], row["winner"]) == (
            "first",
            "fake:panel",
            2,
            4,
            "right",
        )
        paged = client.get("/view/api/tournaments", params={"per_page": 1, "page": 2}).json()
        assert [t["id"] for t in paged["tournaments"]] == [first]

        detail = client.get("/view/api/tournaments/first").json()
        assert detail["id"] == first
        assert [s["variant_id"] for s in detail["standings"]] == ["right", "lenient"]
        right = detail["standings"][0]
        assert (right["accuracy"], right["consistency"], right["errors"]) == (1.0, 1.0, 0)
        assert right["tokens"] > 0
        assert detail["fitness"] == {"ground_truth": 0.6, "consistency": 0.2, "peer_agreement": 0.2}
        assert [(p["first"], p["second"], p["agreement"]) for p in detail["pairs"]] == [
            ("lenient", "right", 0.5)
        ]

        page = client.get(f"/view/tournaments/{first}")
        assert 'href="/view/reputations/variant%3Aright"' in page.text
        assert client.get("/view/api/tournaments/nothing").status_code == 404

        # In the list of every run, a tournament is its own kind and leads to its standings.
        runs = client.get("/view/api/runs", params={"kind": "tournament"}).json()["runs"]
        assert {run["id"]: run["href"] for run in runs} == {
            first: f"/view/tournaments/{first}",
            second: f"/view/tournaments/{second}",
        }


def test_a_run_that_is_no_tournament_is_not_one(open_viewer, viewer_database):
    async def other_run() -> str:
        async with await RecordStore.open(viewer_database) as records:
            return await records.create_run("eval", name="plain")

    run_apart(other_run())
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        assert client.get("/view/api/tournaments").json()["total"] == 0
        answer = client.get("/view/api/tournaments/plain")
        assert answer.status_code == 404
        assert answer.json()["message"] == "no tournament plain"


def test_the_standings_in_the_browser_lead_to_a_variants_reputation(
    open_viewer, viewer_database, browser_page, screenshots
):
    tournament(viewer_database, "cup")
    running = open_viewer(viewer_database)
    page = browser_page
    page.goto(f"{running.url}/view/tournaments")
    page.get_by_role("link", name="cup").click()
    page.wait_for_url("**/view/tournaments/*")
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 2
    assert rows.first.get_attribute("data-id") == "right"
    assert rows.first.locator("td").nth(3).inner_text() == "0.900"
    page.screenshot(path=screenshots / "tournament.png", full_page=True)

    rows.first.get_by_role("link", name="right").click()
    page.wait_for_url("**/view/reputations/variant%3Aright")
    assert page.locator("#reputation-chart svg.plot").count() == 1
    assert "rank 1 of 2 on 4 cases" in page.locator("#changes").inner_text()
