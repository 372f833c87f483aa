"""Cycles, tournaments and reputations under `jurist serve`'s /view, behind its API keys: a
user key sees only the cycles it started (another's is missing), sees the change its cycle
waits on but may not decide it; an admin key sees every cycle and decides, recorded under
its key's id."""

from jurist.server import new_key
from viewer.seed_cycles import keyed_cycle, paused_cycle, serve_keyed, tournament

ALICE, ROOT = new_key()[0], new_key()[0]
KEYS = f"alice:{ALICE},root:admin:{ROOT}"


def test_a_user_key_reads_only_its_own_cycles_and_may_not_decide(tmp_path):
    database = f"sqlite:///{tmp_path / 'service.sqlite3'}"
    operators = paused_cycle(database, "bullets")  # started from the command line
    hers = keyed_cycle(database, "hers", "alice")
    run = tournament(database, "cup")
    running = serve_keyed(database, tmp_path / "home", KEYS)
    try:
        with running.client(ALICE) as alice:
            listed = alice.get("/view/api/cycles").json()
            assert (listed["total"], [c["id"] for c in listed["cycles"]]) == (1, [hers])
            for path in (f"/view/api/cycles/{operators}", "/view/api/cycles/bullets"):
                hidden = alice.get(path)
                assert hidden.status_code == 404, path
                assert hidden.json()["message"] == f"no cycle {path.rsplit('/', 1)[1]}"

            own = alice.get(f"/view/api/cycles/{hers}").json()
            assert own["pending"] is not None
            assert own["may_decide"] is False
            page = alice.get(f"/view/cycles/{hers}")
            assert 'id="pending"' in page.text
            assert 'id="approve"' not in page.text
            assert 'id="no-decision"' in page.text
            refused = alice.post(
                f"/view/cycles/{hers}/approve",
                data={"note": "mine"},
                headers={"Origin": running.url},
                follow_redirects=False,
            )
            assert refused.status_code == 403
            assert "needs an admin key" in refused.text
            assert alice.get(f"/view/api/cycles/{hers}").json()["status"] == "paused"

            # Tournaments and reputations are the operator's records here.
            assert alice.get("/view/api/tournaments").json()["total"] == 0
            assert alice.get(f"/view/api/tournaments/{run}").status_code == 404
            assert alice.get("/view/api/reputations").json() == {"judges": [], "series": {}}
            assert alice.get("/view/api/reputations/variant:right").status_code == 404

        with running.client(ROOT) as root:
            every = root.get("/view/api/cycles").json()
            assert {c["id"] for c in every["cycles"]} == {operators, hers}
            assert root.get("/view/api/tournaments").json()["total"] == 1
            decided = root.post(
                f"/view/cycles/{hers}/approve",
                data={"note": "fine"},
                headers={"Origin": running.url},
                follow_redirects=False,
            )
            assert decided.status_code == 303
            last = root.get(f"/view/api/cycles/{hers}").json()["events"][-1]
            assert last["message"] == {
                "decision": "approved",
                "note": "fine",
                "iteration": 1,
                "by": "root",
            }
            assert last["who"] == "root"
    finally:
        running.stop()
