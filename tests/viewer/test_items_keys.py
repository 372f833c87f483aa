"""Items and comparisons under `jurist serve`'s /view: a user key sees the items of its own
runs only; another key's run is a 404 exactly like a run that is not there, for its items,
its pages and a comparison that names it. An admin key sees every run."""

import httpx
import pytest
from seed_items import judge_run, seeded, write_dataset

from jurist.runner import RunResult
from jurist.server import ServiceSettings, create_app, new_key
from jurist.settings import Settings
from jurist.store import JudgmentRecord, RecordStore
from jurist.testing import FakeModel
from server.running import run_app

ALICE, ROOT = new_key()[0], new_key()[0]
KEYS = f"alice:{ALICE},root:admin:{ROOT}"


async def alices_copy(database: str, theirs: RunResult) -> None:
    """A run the key `alice` made, with the same verdicts as the operator's run."""
    async with await RecordStore.open(database) as store:
        run_id = await store.create_run("eval", name="alices", spec=theirs.spec, key_id="alice")
        await store.save_judgments(
            [
                JudgmentRecord.of(judgment, judge=theirs.judge, run_id=run_id, item_id=item_id)
                for item_id, judgment in theirs.judgments.items()
            ]
        )


@pytest.fixture
def service(tmp_path, viewer_database):
    dataset = write_dataset(tmp_path)
    theirs = seeded(judge_run(viewer_database, dataset, "theirs"))
    seeded(alices_copy(viewer_database, theirs))
    app = create_app(
        Settings(
            JURIST_HOME=str(tmp_path / "home"),
            JURIST_CACHE="0",
            JURIST_DATABASE_URL=viewer_database,
        ),
        ServiceSettings(JURIST_RATE_LIMIT="none", LOG_LEVEL="warning", JURIST_API_KEYS=KEYS),
        model=FakeModel(),
    )
    running = run_app(app)
    try:
        yield running.url
    finally:
        running.stop()


def client(url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"})


def test_a_user_key_sees_the_items_of_its_own_runs_only(service):
    with client(service, ALICE) as alice:
        own = alice.get("/view/api/runs/alices/items/1")
        assert own.status_code == 200
        assert own.json()["judgments"][0]["status"] == "pass"
        assert alice.get("/view/runs/alices/items/1").status_code == 200
        for path in ("/view/api/runs/theirs/items/1", "/view/api/runs/theirs/items/99"):
            hidden = alice.get(path)
            assert hidden.status_code == 404
            assert hidden.json() == {
                "error": "not_found",
                "message": "no run 'theirs'",
                "errors": [],
            }
        page = alice.get("/view/runs/theirs/items/1")
        assert page.status_code == 404
        assert "no run &#39;theirs&#39;" in page.text
        compared = alice.get("/view/api/compare", params={"a": "alices", "b": "theirs"})
        assert compared.status_code == 404
        assert compared.json()["message"] == "no run 'theirs'"


def test_an_admin_key_sees_every_run_and_compares_them(service):
    with client(service, ROOT) as root:
        assert root.get("/view/api/runs/theirs/items/1").status_code == 200
        compared = root.get("/view/api/compare", params={"a": "alices", "b": "theirs"}).json()
        assert compared["changes"]["same"] == 3


def test_without_a_key_the_item_page_asks_for_one(service):
    with httpx.Client(base_url=service) as anonymous:
        answer = anonymous.get("/view/api/runs/alices/items/1")
        assert answer.status_code == 401
        page = anonymous.get("/view/runs/alices/items/1", follow_redirects=False)
        assert page.status_code == 303
        assert page.headers["location"].startswith("/view/key?next=")
