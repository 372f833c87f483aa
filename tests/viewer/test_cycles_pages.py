"""The cycles' pages and their JSON twins over HTTP: the list with its status filter and
pages, one cycle's events made readable a page at a time with the change it waits on, and a
person's decision through the viewer's forms: recorded on a paused cycle only, refused
from another site's page."""

import httpx

from jurist.autonomy import CycleStatus
from viewer.seed_cycles import IMPROVED, INITIAL, failing_cycle, keyed_cycle, paused_cycle


def decide(client: httpx.Client, path: str, note: str = "", origin: str | None = None):
    origin = origin if origin is not None else str(client.base_url).rstrip("/")
    return client.post(
        path, data={"note": note}, headers={"Origin": origin}, follow_redirects=False
    )


def test_the_list_shows_each_cycle_with_its_scores_filtered_by_status_and_paged(
    open_viewer, viewer_database
):
    waiting = paused_cycle(viewer_database, "bullets")
    keyed_cycle(viewer_database, "theirs", "alice")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        listed = client.get("/view/api/cycles").json()
        assert listed["total"] == 2
        assert [c["name"] for c in listed["cycles"]] == ["theirs", "bullets"]  # newest first
        bullets = listed["cycles"][1]
        assert (bullets["id"], bullets["status"]) == (waiting, "paused")
        assert bullets["baseline_score"] == bullets["score"] < 0.5  # not yet applied
        assert bullets["calls"] > 0
        assert bullets["tokens"] > 0
        assert "held-out score rose" in bullets["reason"]

        second = client.get("/view/api/cycles", params={"per_page": 1, "page": 2}).json()
        assert (second["pages"], [c["name"] for c in second["cycles"]]) == (2, ["bullets"])
        none_done = client.get("/view/api/cycles", params={"status": "done"}).json()
        assert (none_done["total"], none_done["cycles"]) == (0, [])

        bad = client.get("/view/api/cycles", params={"status": "sleeping"})
        assert bad.status_code == 422
        assert bad.json()["message"].startswith("status: Input should be '', 'running'")
        beyond = client.get("/view/api/cycles", params={"page": 10**12})  # no offset fits
        assert beyond.status_code == 422
        assert beyond.json()["message"].startswith("page: ")
        for status in CycleStatus:  # the filter knows every status there is
            answer = client.get("/view/api/cycles", params={"status": status.value})
            assert answer.status_code == 200, status
        page = client.get("/view/cycles", params={"status": "paused"})
        assert page.status_code == 200
        assert f'href="/view/cycles/{waiting}"' in page.text
        assert 'option value="paused" selected' in page.text


def test_a_cycle_shows_its_events_in_order_readably_a_page_at_a_time(open_viewer, viewer_database):
    paused_cycle(viewer_database, "bullets")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        whole = client.get("/view/api/cycles/bullets", params={"per_page": 500}).json()
        events = whole["events"]
        assert [e["seq"] for e in events] == list(range(1, whole["events_total"] + 1))
        by_kind = {e["kind"]: e for e in events}
        rewrite = by_kind["reply:rewrite"]
        assert rewrite["who"] == "rewriter@fake:judge"
        assert rewrite["stage"] == "rewriting"
        assert {"label": "improved prompt", "text": IMPROVED, "block": False} in rewrite["parts"]
        analysis = {p["label"]: p["text"] for p in by_kind["reply:analyze"]["parts"]}
        assert analysis["root cause"] == "The prompt never asks for a list."
        findings = {p["label"]: p["text"] for p in by_kind["reply:challenge"]["parts"]}
        assert findings["findings"] == "• [low] ambiguity: How long?"
        verdict = by_kind["verdict"]
        assert (verdict["tone"], verdict["title"]) == ("accepted", "verdict of iteration 1")
        assert {p["label"]: p["text"] for p in verdict["parts"]}["new score"] == "0.900"
        assert by_kind["breakpoint"]["tone"] == "paused"
        assert events[-1]["kind"] == "breakpoint"  # where it waits

        pending = whole["pending"]
        assert (pending["old_prompt"], pending["new_prompt"]) == (INITIAL, IMPROVED)
        assert pending["new_score"] > pending["old_score"]
        assert whole["may_decide"] is True

        first = client.get("/view/api/cycles/bullets", params={"per_page": 10}).json()
        second = client.get("/view/api/cycles/bullets", params={"per_page": 10, "page": 2}).json()
        assert [e["seq"] for e in first["events"]] == list(range(1, 11))
        assert [e["seq"] for e in second["events"]] == list(range(11, 21))
        assert first["pages"] == -(-whole["events_total"] // 10)

        page = client.get("/view/cycles/bullets", params={"per_page": 10, "page": 2})
        assert page.status_code == 200
        assert 'id="event-11"' in page.text
        assert 'id="event-10"' not in page.text
        assert 'action="/view/cycles/' in page.text
        assert 'id="approve"' in page.text
        assert "?page=3&amp;per_page=10" in page.text  # the next page's link

        missing = client.get("/view/api/cycles/nothing")
        assert missing.status_code == 404
        assert missing.json()["message"] == "no cycle nothing"


def test_approving_through_the_form_records_the_decision_and_shows_it(open_viewer, viewer_database):
    cycle = paused_cycle(viewer_database, "bullets")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        total = client.get(f"/view/api/cycles/{cycle}").json()["events_total"]
        approved = decide(client, f"/view/cycles/{cycle}/approve", note="looks right")
        assert approved.status_code == 303
        last = total + 1
        assert approved.headers["location"] == f"/view/cycles/{cycle}?page=1#event-{last}"

        after = client.get(f"/view/api/cycles/{cycle}").json()
        assert (after["status"], after["pending"], after["prompt"]) == ("running", None, IMPROVED)
        decision = after["events"][-1]
        assert decision["kind"] == "human"
        assert decision["message"] == {
            "decision": "approved",
            "note": "looks right",
            "iteration": 1,
        }
        assert decision["title"] == "a person approved the change of iteration 1"
        shown = client.get(approved.headers["location"].split("#")[0])
        assert f'id="event-{last}"' in shown.text
        assert 'id="approve"' not in shown.text  # nothing waits any more

        again = decide(client, f"/view/cycles/{cycle}/approve")
        assert again.status_code == 409
        assert "not paused" in again.text


def test_rejecting_keeps_the_prompt_and_another_sites_form_is_refused(open_viewer, viewer_database):
    cycle = paused_cycle(viewer_database, "bullets")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        crossed = decide(client, f"/view/cycles/{cycle}/reject", origin="https://evil.example")
        assert crossed.status_code == 403
        assert "must be sent from the viewer" in crossed.text
        assert client.get(f"/view/api/cycles/{cycle}").json()["status"] == "paused"

        too_long = decide(client, f"/view/cycles/{cycle}/reject", note="x" * 2001)
        assert too_long.status_code == 422
        assert "note: at most 2000 characters" in too_long.text

        rejected = decide(client, f"/view/cycles/{cycle}/reject", note="too long")
        assert rejected.status_code == 303
        after = client.get(f"/view/api/cycles/{cycle}").json()
        assert (after["status"], after["prompt"]) == ("running", INITIAL)
        assert after["events"][-1]["message"]["decision"] == "rejected"
        assert after["events"][-1]["tone"] == "rejected"

        assert decide(client, "/view/cycles/nothing/approve").status_code == 404


def test_failures_and_the_breaker_that_ended_a_cycle_are_shown(open_viewer, viewer_database):
    cycle = failing_cycle(viewer_database, "muted")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        detail = client.get(f"/view/api/cycles/{cycle}", params={"per_page": 500}).json()
        assert (detail["status"], detail["pending"], detail["may_decide"]) == (
            "rejected",
            None,
            False,
        )
        failures = [e for e in detail["events"] if e["kind"] == "failure:review"]
        assert [e["title"] for e in failures] == ["meta failed to review the iteration"] * 2
        assert {p["label"]: p["text"] for p in failures[0]["parts"]}["cause"] == "unparseable"
        failed = [e["title"] for e in detail["events"] if e["kind"] == "iteration_failed"]
        assert failed == ["iteration 1 failed", "iteration 2 failed"]
        breaker = detail["events"][-1]
        assert (breaker["title"], breaker["tone"]) == ("circuit breaker: iterations", "failed")
        assert "2 iterations reached" in {p["label"]: p["text"] for p in breaker["parts"]}["reason"]

        page = client.get(f"/view/cycles/{cycle}", params={"per_page": 500})
        assert page.status_code == 200
        assert 'id="pending"' not in page.text
        assert (
            page.text.count('class="event tone-failed') == 5
        )  # 2 failures, 2 iterations, 1 breaker
