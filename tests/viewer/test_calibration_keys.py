"""The calibration pages under `jurist serve`, behind its API keys: a user key sees only the
calibration runs it made (another key's run is missing, as a run that is not there), an
admin key every run, no key none."""

import pytest
from seed_calibration import seed

from jurist.server import ServiceSettings, create_app, new_key
from jurist.settings import Settings
from jurist.testing import FakeModel
from server.running import run_app

ALICE, BOB, ROOT = new_key()[0], new_key()[0], new_key()[0]
KEYS = f"alice:{ALICE},bob:{BOB},root:admin:{ROOT}"


@pytest.fixture
def service(tmp_path):
    database = f"sqlite:///{tmp_path / 'service.sqlite3'}"
    ids = seed(database, tmp_path, {"alices": 1}, key_id="alice")
    ids |= seed(database, tmp_path, {"bobs": 0}, key_id="bob")
    ids |= seed(database, tmp_path, {"operators": 0})
    settings = Settings(
        JURIST_HOME=str(tmp_path / "home"), JURIST_CACHE="0", JURIST_DATABASE_URL=database
    )
    config = ServiceSettings(JURIST_RATE_LIMIT="none", LOG_LEVEL="warning", JURIST_API_KEYS=KEYS)
    running = run_app(create_app(settings, config, model=FakeModel("unused")))
    yield running, ids
    running.stop()


def test_a_user_key_sees_only_its_own_calibration_runs(service):
    running, ids = service
    with (
        running.client(ALICE) as alice,
        running.client(ROOT) as root,
        running.client() as nobody,
    ):
        mine = alice.get("/view/api/calibration").json()
        assert [row["run"] for row in mine["runs"]] == [ids["alices"]]
        assert mine["total"] == 1
        assert mine["runs"][0]["key_id"] == "alice"
        page = alice.get("/view/calibration")
        assert page.status_code == 200
        assert ids["bobs"] not in page.text
        assert ids["operators"] not in page.text
        own = alice.get(f"/view/calibration/{ids['alices']}")
        assert own.status_code == 200
        assert 'class="plot scatter"' in own.text

        theirs = alice.get(f"/view/api/calibration/{ids['bobs']}")
        missing = alice.get(f"/view/api/calibration/{'0' * 32}")
        assert theirs.status_code == missing.status_code == 404
        assert theirs.json()["message"].replace(ids["bobs"], "X") == missing.json()[
            "message"
        ].replace("0" * 32, "X")
        assert alice.get(f"/view/calibration/{ids['bobs']}").status_code == 404
        by_name = alice.get("/view/api/calibration/bobs")
        assert by_name.status_code == 404
        compared = alice.get(
            "/view/api/calibration/compare", params={"a": ids["alices"], "b": ids["bobs"]}
        )
        assert compared.status_code == 404
        assert (
            alice.get(
                "/view/api/calibration/compare", params={"a": "alices", "b": "alices"}
            ).status_code
            == 200
        )

        every = root.get("/view/api/calibration").json()
        assert every["total"] == 3
        assert {row["run"] for row in every["runs"]} == set(ids.values())
        assert root.get(f"/view/api/calibration/{ids['bobs']}").json()["about"]["key_id"] == "bob"

        assert nobody.get("/view/api/calibration").status_code == 401
        redirected = nobody.get("/view/calibration", follow_redirects=False)
        assert redirected.status_code == 303
        assert redirected.headers["location"].startswith("/view/key?")
