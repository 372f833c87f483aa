"""The runs' pages and their JSON over HTTP: the list filtered, sorted and paged; a run's
items with every judge's judgment, filtered by status, judge and text (in the inputs too),
sorted and paged; bad parameters named; the inputs read again from the dataset, and said to
be missing once the file changed; a user key of `jurist serve` seeing only its own runs."""

import asyncio
import os

import httpx
import pytest
from seed_calibration import seed as seed_calibration
from seed_runs import MARKER, ONGOING_ITEMS, expected_status, seed_database

from jurist.core import Judgment
from jurist.server import ServiceSettings, create_app, new_key
from jurist.settings import Settings
from jurist.store import JudgmentRecord, RecordStore
from jurist.testing import FakeModel
from server.running import run_app

COUNT = 24


@pytest.fixture
def seeded(viewer_database, tmp_path):
    return seed_database(viewer_database, tmp_path, COUNT)


@pytest.fixture
def client(open_viewer, viewer_database, seeded):
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url, timeout=60) as opened:
        yield opened


def names(answer: httpx.Response) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [run["name"] for run in answer.json()["runs"]]


def test_the_runs_list_is_filtered_sorted_and_paged(client, seeded):
    listed = client.get("/view/api/runs").json()
    assert [run["name"] for run in listed["runs"]] == ["ongoing", "second", "first"]
    assert listed["paging"] == {"page": 1, "per_page": 50, "pages": 1, "total": 3}
    first = listed["runs"][2]
    passed = sum(expected_status(n) == "pass" for n in range(1, COUNT + 1))
    assert first["counts"]["pass"] == passed
    assert list(first["counts"]) == ["pass", "fail", "error"]  # in the order of a verdict
    assert first["judge"] == "panel"
    assert first["dataset"] == str(seeded.dataset)
    assert first["dataset_items"] == COUNT
    assert first["duration_seconds"] > 0
    # The run still running is counted in the database, and has no duration yet.
    ongoing = listed["runs"][0]
    assert ongoing["counts"] == {"pass": 1, "fail": 2}
    assert ongoing["duration_seconds"] is None

    assert names(client.get("/view/api/runs?status=running")) == ["ongoing"]
    assert names(client.get("/view/api/runs?kind=pytest")) == []
    assert names(client.get("/view/api/runs?search=ANSWERS.json")) == ["second", "first"]
    assert names(client.get("/view/api/runs?sort=name&order=asc")) == [
        "first",
        "ongoing",
        "second",
    ]
    paged = client.get("/view/api/runs?per_page=1&page=2")
    assert names(paged) == ["second"]
    assert paged.json()["paging"]["pages"] == 3

    page = client.get("/view/runs?status=done&sort=name&order=asc")
    assert page.status_code == 200
    assert page.text.index(f'href="/view/runs/{seeded.first}"') < page.text.index(
        f'href="/view/runs/{seeded.second}"'
    )
    assert f"/view/runs/{seeded.ongoing}" not in page.text
    assert "2 runs" in page.text


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("sort=cheapest", "sort: 'cheapest' is not one of started, name, cost, duration"),
        ("order=up", "order: 'up' is not one of asc, desc"),
        ("status=paused", "status: 'paused' is not one of running, done, interrupted, failed"),
        ("kind=nightly", "kind: 'nightly' is not one of eval, calibration, pytest, tournament"),
        ("search=" + "x" * 201, "search: at most 200 characters, got 201"),
        ("per_page=0", "per_page"),
        ("page=zero", "page"),
    ],
)
def test_a_bad_parameter_of_the_list_is_named(client, query, named):
    # The JSON's parameters are typed in its OpenAPI schema, and refused by their schema.
    answer = client.get(f"/view/api/runs?{query}")
    assert answer.status_code == 422
    assert answer.json()["error"] == "invalid_request"
    name = named.partition(":")[0]
    assert answer.json()["message"].startswith(f"{name}: "), answer.json()
    # The page says it in its own words, on an error page.
    page = client.get(f"/view/runs?{query}")
    assert page.status_code == 422
    if name not in ("page", "per_page"):
        assert "text/html" in page.headers["content-type"]
        assert named.replace("'", "&#39;") in page.text  # as Jinja2 escapes a quote


def test_the_json_documents_what_each_parameter_may_be(client):
    schema = client.get("/view/api/openapi.json").json()
    listed = {
        p["name"]: p["schema"] for p in schema["paths"]["/view/api/runs"]["get"]["parameters"]
    }
    assert _choices(listed["kind"]) == ["eval", "calibration", "pytest", "tournament"]
    assert _choices(listed["status"]) == ["running", "done", "interrupted", "failed"]
    assert _choices(listed["sort"]) == ["started", "name", "cost", "duration"]
    assert _choices(listed["order"]) == ["asc", "desc"]
    one = schema["paths"]["/view/api/runs/{run}"]["get"]
    assert one["tags"] == ["viewer"]
    items = {p["name"]: p["schema"] for p in one["parameters"]}
    assert _choices(items["status"]) == ["pass", "fail", "abstain", "error"]
    assert _choices(items["sort"]) == ["item", "score", "status"]


def _choices(schema: dict) -> list[str]:
    (chosen,) = [option for option in schema["anyOf"] if "enum" in option]
    return chosen["enum"]


def test_a_bad_parameter_of_a_page_is_an_error_page_naming_it(client, seeded):
    page = client.get("/view/runs?sort=cheapest")
    assert page.status_code == 422
    assert "text/html" in page.headers["content-type"]
    assert "sort: &#39;cheapest&#39; is not one of" in page.text
    answer = client.get(f"/view/runs/{seeded.first}?status=maybe")
    assert answer.status_code == 422
    assert "status: &#39;maybe&#39; is not one of pass, fail, abstain, error" in answer.text
    answer = client.get(f"/view/api/runs/{seeded.first}?judge=nobody")
    assert answer.status_code == 422
    assert answer.json()["message"].startswith("judge: no judge 'nobody' in this run")
    answer = client.get(f"/view/runs/{seeded.first}?sort=length")
    assert answer.status_code == 422
    assert "sort: &#39;length&#39; is not one of item, score, status" in answer.text
    answer = client.get(f"/view/api/runs/{seeded.first}?sort=length")
    assert answer.status_code == 422
    assert answer.json()["message"].startswith("sort: ")


def test_a_runs_items_carry_their_inputs_and_every_judges_judgment(client, seeded):
    view = client.get("/view/api/runs/first?per_page=5").json()  # by name, as by id
    assert view["run"]["id"] == seeded.first
    assert view["verdict_judge"] == "panel"
    assert view["judges"] == ["panel", "panel/polite", "panel/refund"]
    assert view["paging"] == {"page": 1, "per_page": 5, "pages": 5, "total": COUNT}
    assert view["inputs_note"] is None
    items = view["items"]
    assert [item["item_id"] for item in items] == ["1", "2", "3", "4", "5"]
    third = items[2]
    assert third["goal"] == "How long do I have to return order 3?"
    assert "within 30 days" in third["output"]
    assert third["href"] == f"/view/runs/{seeded.first}/items/3"
    assert {name: cell["status"] for name, cell in third["judgments"].items()} == {
        "panel": "pass",
        "panel/polite": "pass",
        "panel/refund": "pass",
    }
    assert third["judgments"]["panel/refund"]["reasoning"] == "It does: 30 days."
    assert third["judgments"]["panel"]["score"] == 1.0
    # The other run of the same dataset is offered for a comparison.
    assert [other["id"] for other in view["same_dataset"]] == [seeded.second]

    page2 = client.get(f"/view/api/runs/{seeded.first}?per_page=5&page=2").json()
    assert [item["item_id"] for item in page2["items"]] == ["6", "7", "8", "9", "10"]


def test_a_runs_items_are_filtered_by_status_judge_and_text(client, seeded):
    def ids(query: str) -> list[str]:
        answer = client.get(f"/view/api/runs/{seeded.first}?per_page=100&{query}")
        assert answer.status_code == 200, answer.text
        return [item["item_id"] for item in answer.json()["items"]]

    every = range(1, COUNT + 1)
    failed = [str(n) for n in every if expected_status(n) == "fail"]
    assert ids("status=fail") == failed
    # By a jury member's status: the polite vote fails where the refund vote does.
    assert ids("judge=panel/polite&status=pass") == [
        str(n) for n in every if expected_status(n) == "pass"
    ]
    # A word only the inputs hold (no id or reasoning has it), with a status.
    marked = [str(n) for n in every if n % 5 == 0 and expected_status(n) == "fail"]
    assert ids(f"search={MARKER.upper()}&status=fail") == marked
    assert ids("search=it does not") == [str(n) for n in every if expected_status(n) == "fail"]
    assert ids("sort=item&order=desc")[:3] == ["24", "23", "22"]
    scored = client.get(f"/view/api/runs/{seeded.first}?per_page=100&sort=score&order=desc")
    scores = [item["judgments"]["panel"]["score"] for item in scored.json()["items"]]
    known = [score for score in scores if score is not None]
    assert known == sorted(known, reverse=True)
    assert scores[: len(known)] == known  # unknown scores last

    view = client.get(f"/view/api/runs/{seeded.first}?status=error").json()
    assert view["counts"]["error"] == view["paging"]["total"] == COUNT // 7

    page = client.get(f"/view/runs/{seeded.first}?status=fail&search={MARKER}")
    assert page.status_code == 200
    for item in marked:
        assert f'href="/view/runs/{seeded.first}/items/{item}"' in page.text
    assert f'href="/view/runs/{seeded.first}/items/3"' not in page.text
    assert f'name="a" value="{seeded.first}"' in page.text  # the "compare with" form


def test_a_changed_dataset_is_said_and_its_inputs_left_out(client, seeded):
    shown = client.get(f"/view/api/runs/{seeded.first}?per_page=2").json()
    assert shown["items"][0]["goal"] is not None
    # Found by the inputs the viewer keeps for this version of the file...
    assert client.get(f"/view/api/runs/{seeded.first}?search={MARKER}").json()["items"]
    seeded.dataset.write_text('{"id": "1", "output": "rewritten"}\n', encoding="utf-8")
    changed = client.get(f"/view/api/runs/{seeded.first}?per_page=2").json()
    assert changed["inputs_note"] == f"its dataset {seeded.dataset} has changed since the run"
    assert changed["items"][0]["goal"] is None
    assert changed["paging"]["total"] == COUNT  # the stored judgments are all still there
    # ...and no longer once the file has changed.
    assert client.get(f"/view/api/runs/{seeded.first}?search={MARKER}").json()["items"] == []
    page = client.get(f"/view/runs/{seeded.first}")
    assert "has changed since the run" in page.text

    seeded.dataset.unlink()
    gone = client.get(f"/view/api/runs/{seeded.first}").json()
    assert gone["inputs_note"].startswith(f"its dataset {seeded.dataset} cannot be read again")


def test_a_run_that_is_not_there_is_404(client):
    answer = client.get("/view/api/runs/nothing-by-this-name")
    assert answer.status_code == 404
    assert answer.json() == {
        "error": "not_found",
        "message": "no run 'nothing-by-this-name'",
        "errors": [],
    }
    assert client.get("/view/runs/nothing-by-this-name").status_code == 404


def test_a_user_key_of_the_service_sees_only_its_own_runs(viewer_database, seeded, tmp_path):
    alice, bob, root = new_key()[0], new_key()[0], new_key()[0]
    settings = Settings(
        JURIST_HOME=str(tmp_path / "home"), JURIST_CACHE="0", JURIST_DATABASE_URL=viewer_database
    )
    config = ServiceSettings(
        JURIST_API_KEYS=f"alice:{alice},bob:{bob},root:admin:{root}",
        JURIST_RATE_LIMIT="none",
        LOG_LEVEL="warning",
    )
    running = run_app(create_app(settings, config, model=FakeModel()))
    try:
        with running.client(alice) as as_alice, running.client(bob) as as_bob:
            assert names(as_alice.get("/view/api/runs")) == ["ongoing"]
            view = as_alice.get(f"/view/api/runs/{seeded.ongoing}").json()
            assert [item["item_id"] for item in view["items"]] == list(ONGOING_ITEMS)
            assert view["inputs_note"].startswith("the run judged rows in memory")

            assert names(as_bob.get("/view/api/runs")) == []
            refused = as_bob.get(f"/view/api/runs/{seeded.ongoing}")
            missing = as_bob.get("/view/api/runs/" + "0" * 32)
            assert refused.status_code == missing.status_code == 404
            assert (
                refused.json()["message"].replace(seeded.ongoing, "0" * 32)
                == (missing.json()["message"])
            )
            # Nor does a run of the operator's show, or offer itself for a comparison.
            assert as_alice.get(f"/view/api/runs/{seeded.first}").status_code == 404
            assert as_bob.get("/view/runs/first").status_code == 404
        with running.client(root) as as_root:
            assert names(as_root.get("/view/api/runs")) == ["ongoing", "second", "first"]
    finally:
        running.stop()


def test_a_calibration_is_a_kind_of_its_own_in_the_list(open_viewer, viewer_database, tmp_path):
    made = seed_calibration(viewer_database, tmp_path, {"calibrated": 0}, plain="plain")
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url, timeout=60) as client:
        listed = {run["name"]: run for run in client.get("/view/api/runs").json()["runs"]}
        assert listed["calibrated"]["kind"] == "calibration"
        assert listed["plain"]["kind"] == "eval"
        # A calibration's row leads to its report; an eval's to its items.
        assert listed["calibrated"]["href"] == f"/view/calibration/{made['calibrated']}"
        assert listed["plain"]["href"] == f"/view/runs/{made['plain']}"
        assert names(client.get("/view/api/runs?kind=calibration")) == ["calibrated"]
        assert names(client.get("/view/api/runs?kind=eval")) == ["plain"]
        view = client.get(f"/view/api/runs/{made['calibrated']}").json()
        assert view["run"]["kind"] == "calibration"
        assert view["paging"]["total"] == view["run"]["dataset_items"]


def test_an_item_id_with_slashes_and_spaces_links_to_its_item(open_viewer, viewer_database):
    item = "tests/test_refunds.py::test_window[30 days]"

    async def seed() -> str:
        async with await RecordStore.open(viewer_database) as store:
            run = await store.create_run("pytest", spec={"judge": {"name": "pytest"}})
            judged = Judgment.ok("fine")
            await store.save_judgments(
                [JudgmentRecord.of(judged, judge="pytest", run_id=run, item_id=item)]
            )
            await store.finish_run(run, "done")
            return run

    run = asyncio.run(seed())
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url, timeout=60) as client:
        (row,) = client.get(f"/view/api/runs/{run}").json()["items"]
        assert row["href"] == (
            f"/view/runs/{run}/items/tests%2Ftest_refunds.py%3A%3Atest_window%5B30%20days%5D"
        )
        assert client.get(row["href"]).status_code == 200
        assert client.get(f"/view/api/runs/{run}?search=[30 days]").json()["paging"]["total"] == 1


def test_the_inputs_are_read_once_per_version_of_the_dataset_file(client, seeded):
    """Page 2 and a search use the inputs read for page 1: a file rewritten with the same
    size and time (which no editor does) is not read again, so what it shows is unchanged."""
    before = client.get(f"/view/api/runs/{seeded.first}?per_page=2").json()["items"][0]
    seen = seeded.dataset.stat()
    text = seeded.dataset.read_text(encoding="utf-8")
    seeded.dataset.write_text(text.replace("order 1?", "order X?"), encoding="utf-8")
    os.utime(seeded.dataset, ns=(seen.st_atime_ns, seen.st_mtime_ns))
    again = client.get(f"/view/api/runs/{seeded.first}?per_page=2&page=1").json()
    assert again["inputs_note"] is None
    assert again["items"][0]["goal"] == before["goal"] == "How long do I have to return order 1?"
    # A write that moves its time is a new version: read again, and found changed.
    os.utime(seeded.dataset, ns=(seen.st_atime_ns, seen.st_mtime_ns + 1_000_000_000))
    changed = client.get(f"/view/api/runs/{seeded.first}?per_page=2").json()
    assert changed["inputs_note"] == f"its dataset {seeded.dataset} has changed since the run"
