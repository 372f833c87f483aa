"""The stored validations at /view of a real `jurist serve` (and of `jurist view` over the
same database): the list and its filters, one validation with its issues, layers and
judgments, redacted or sealed content, and each API key reading only its own."""

import httpx
import pytest
from seed_validations import CITED, REQUESTS, post_validations, start_service

from jurist.server import new_key

NEWEST_FIRST = list(reversed(REQUESTS))


@pytest.fixture
def database(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'service.sqlite3'}"


@pytest.fixture
def service(tmp_path, database):
    running = start_service(tmp_path / "home", database)
    yield running
    running.stop()


def listed(client: httpx.Client, **query) -> list[str]:
    answer = client.get("/view/api/validations", params=query)
    assert answer.status_code == 200, answer.text
    return [row["id"] for row in answer.json()["validations"]]


def test_the_list_is_newest_first_filtered_and_paged_under_serve_and_view(
    service, database, open_viewer
):
    seeded = post_validations(service)
    ids = seeded.ids
    with service.client() as client:
        body = client.get("/view/api/validations").json()
        assert body["total"] == len(REQUESTS)
        assert [row["id"] for row in body["validations"]] == [ids[n] for n in NEWEST_FIRST]
        unmet = body["validations"][NEWEST_FIRST.index("unmet criterion")]
        assert unmet["valid"] is False
        assert (unmet["error_count"], unmet["warning_count"], unmet["info_count"]) == (1, 0, 0)
        assert unmet["layers"] == ["schema", "criteria"]
        assert unmet["key_id"] is None  # no keys: the operator's
        assert body["shows_keys"] is True

        invalid = [ids["unmet criterion"], ids["broken schema"]]
        assert listed(client, validity="invalid") == invalid
        assert listed(client, severity="error") == invalid
        assert listed(client, severity="warning") == [ids["warned criterion"]]
        assert listed(client, severity="info") == [ids["noted criterion"]]
        assert listed(client, validity="valid", severity="error") == []
        assert listed(client, validity="valid") == [
            ids[n] for n in NEWEST_FIRST if n not in ("unmet criterion", "broken schema")
        ]
        page = client.get("/view/api/validations", params={"per_page": 2, "page": 3}).json()
        assert (page["total"], page["pages"]) == (5, 3)
        assert [row["id"] for row in page["validations"]] == [ids["clean"]]

        html = client.get("/view/validations", params={"validity": "invalid"})
        assert html.status_code == 200
        assert "text/html" in html.headers["content-type"]
        assert "default-src 'none'" in html.headers["content-security-policy"]
        for name in REQUESTS:
            assert (f'data-id="{ids[name]}"' in html.text) == (ids[name] in invalid), name

    # `jurist view` over the same database shows the same list.
    viewer = open_viewer(database)
    with httpx.Client(base_url=viewer.url) as client:
        assert listed(client) == [ids[n] for n in NEWEST_FIRST]


def test_a_bad_filter_is_refused_naming_the_parameter(service):
    with service.client() as client:
        for query, named in [
            ({"validity": "maybe"}, "validity: must be one of all, valid, invalid"),
            ({"severity": "fatal"}, "severity: must be one of error, warning, info"),
            ({"since": "yesterday"}, "since: not a date"),
        ]:
            answer = client.get("/view/api/validations", params=query)
            assert answer.status_code == 422, query
            assert answer.json()["message"].startswith(named), answer.json()
            shown = client.get("/view/validations", params=query)
            assert shown.status_code == 422
            assert named in shown.text


def test_a_date_range_keeps_the_days_it_names(service):
    post_validations(service)
    with service.client() as client:
        made = client.get("/view/api/validations").json()["validations"]
        day = made[0]["created_at"][:10]
        assert len(listed(client, since=day, until=day)) == len(REQUESTS)
        assert listed(client, until="2000-01-01") == []
        assert listed(client, since="2999-01-01") == []
        assert listed(client, since=day, until="2000-01-01") == []  # an end before the start


def test_one_validation_shows_its_issues_layers_judgments_and_request(service):
    seeded = post_validations(service)
    validation_id = seeded.ids["unmet criterion"]
    with service.client() as client:
        detail = client.get(f"/view/api/validations/{validation_id}").json()
        assert (detail["content"], detail["sealed"], detail["valid"]) == ("redacted", False, False)
        [issue] = detail["issues"]
        assert (issue["severity"], issue["type"], issue["layer"]) == (
            "error",
            "criteria_not_met",
            "criteria",
        )
        assert CITED in issue["message"]
        assert issue["suggestion"]
        assert detail["failed_criteria"] == [CITED]
        assert [layer["name"] for layer in detail["layers"]] == ["schema", "criteria"]
        criteria = detail["layers"][1]
        assert criteria["verdict"] == "fail"
        judgment = criteria["judgment"]
        assert judgment["id"] == criteria["judgment_id"]
        assert judgment["status"] == "fail"
        assert {c["name"]: c["passed"] for c in judgment["checks"]} == {
            "The answer is polite": True,
            CITED: False,
        }
        assert judgment["reasoning"]
        assert (
            detail["request"]["acceptance_criteria"]
            == REQUESTS["unmet criterion"]["acceptance_criteria"]
        )

        page = client.get(f"/view/validations/{validation_id}")
        assert page.status_code == 200
        assert issue["message"] in page.text.replace("&#39;", "'")
        assert 'id="layer-criteria"' in page.text
        assert f'id="judgment-{judgment["id"]}"' in page.text
        assert "Thank you for asking!" in page.text  # the stored (redacted) output
        assert 'id="sealed-note"' not in page.text

        broken = client.get(f"/view/api/validations/{seeded.ids['broken schema']}").json()
        [violation] = broken["issues"]
        assert (violation["type"], violation["layer"], violation["location"]) == (
            "schema_violation",
            "schema",
            "$",
        )
        assert "source" in violation["message"]
        assert "source" in violation["suggestion"]

        missing = "0" * 32
        assert client.get(f"/view/api/validations/{missing}").status_code == 404
        shown = client.get(f"/view/validations/{missing}")
        assert shown.status_code == 404
        assert f"no validation {missing}" in shown.text


def test_sealed_content_shows_its_outline_and_says_the_raw_request_is_encrypted(tmp_path, database):
    running = start_service(tmp_path / "home", database, content="sealed")
    try:
        seeded = post_validations(running)
        with running.client() as client:
            assert listed(client, severity="info") == [seeded.ids["noted criterion"]]
            validation_id = seeded.ids["unmet criterion"]
            detail = client.get(f"/view/api/validations/{validation_id}").json()
            assert (detail["content"], detail["sealed"]) == ("outline", True)
            [issue] = detail["issues"]
            assert (issue["severity"], issue["type"], issue["layer"]) == (
                "error",
                "criteria_not_met",
                "criteria",
            )
            assert issue["message"] is None
            assert (detail["passed_count"], detail["failed_count"]) == (1, 1)
            judgment = detail["layers"][1]["judgment"]
            assert (judgment["outline"], judgment["check_count"], judgment["checks"]) == (
                True,
                2,
                [],
            )
            page = client.get(f"/view/validations/{validation_id}").text
            assert 'id="sealed-note"' in page
            assert "kept encrypted" in page
            assert "Thank you for asking!" not in page  # the content stays sealed
            assert CITED not in page
    finally:
        running.stop()


def test_a_user_key_reads_only_its_own_validations_and_an_admin_every_key(tmp_path, database):
    alice, bob, root = new_key()[0], new_key()[0], new_key()[0]
    keys = f"alice:{alice},bob:{bob},root:admin:{root}"
    running = start_service(tmp_path / "home", database, keys=keys)
    try:
        mine = post_validations(running, alice).ids
        theirs = post_validations(running, bob).ids
        with (
            running.client(alice) as as_alice,
            running.client(root) as as_root,
            running.client() as nobody,
        ):
            body = as_alice.get("/view/api/validations").json()
            assert body["shows_keys"] is False
            assert [row["id"] for row in body["validations"]] == [mine[n] for n in NEWEST_FIRST]
            assert {row["key_id"] for row in body["validations"]} == {None}
            assert listed(as_alice, key="bob") == []
            other = theirs["unmet criterion"]
            refused = as_alice.get(f"/view/api/validations/{other}")
            missing = as_alice.get(f"/view/api/validations/{'0' * 32}")
            assert refused.status_code == missing.status_code == 404
            assert refused.json()["message"].replace(other, "X") == missing.json()[
                "message"
            ].replace("0" * 32, "X")
            assert as_alice.get(f"/view/validations/{other}").status_code == 404
            own = as_alice.get(f"/view/validations/{mine['unmet criterion']}")
            assert own.status_code == 200

            every = as_root.get("/view/api/validations").json()
            assert every["total"] == 2 * len(REQUESTS)
            assert {row["key_id"] for row in every["validations"]} == {"alice", "bob"}
            assert listed(as_root, key="bob") == [theirs[n] for n in NEWEST_FIRST]
            assert as_root.get(f"/view/api/validations/{other}").json()["key_id"] == "bob"

            assert nobody.get("/view/api/validations").status_code == 401
            page = nobody.get("/view/validations", follow_redirects=False)
            assert page.status_code == 303
            assert page.headers["location"].startswith("/view/key?")

        # A browser gives its key once in the key form; its cookie then reads the same.
        with httpx.Client(base_url=running.url) as browser:
            given = browser.post(
                "/view/key",
                data={"key": alice, "next": "/view/validations"},
                headers={"Origin": running.url},
            )
            assert given.status_code == 303
            assert given.headers["location"] == "/view/validations"
            shown = browser.get("/view/validations")
            assert shown.status_code == 200
            for name in REQUESTS:
                assert f'data-id="{mine[name]}"' in shown.text
                assert f'data-id="{theirs[name]}"' not in shown.text
            assert 'name="key"' not in shown.text  # no key filter for a key of its own
            assert browser.get(f"/view/validations/{other}").status_code == 404
    finally:
        running.stop()


def test_the_pages_link_to_the_next_page_with_the_same_filters_and_the_json_is_documented(
    service, database, open_viewer
):
    ids = post_validations(service).ids
    with service.client() as client:
        first = client.get("/view/validations", params={"validity": "valid", "per_page": 2})
        assert 'rel="prev"' not in first.text
        assert 'href="/view/validations?validity=valid&amp;page=2&amp;per_page=2"' in first.text
        second = client.get("/view/validations?validity=valid&page=2&per_page=2")
        assert 'rel="next"' not in second.text
        assert 'href="/view/validations?validity=valid&amp;page=1&amp;per_page=2"' in second.text
        assert f'data-id="{ids["clean"]}"' in second.text
    viewer = open_viewer(database)
    with httpx.Client(base_url=viewer.url) as client:
        paths = client.get("/view/api/openapi.json").json()["paths"]
    for path, summary in [
        ("/view/api/validations", "The stored validations"),
        ("/view/api/validations/{validation_id}", "One stored validation"),
    ]:
        operation = paths[path]["get"]
        assert operation["summary"] == summary
        assert operation["tags"] == ["viewer"]
        assert "200" in operation["responses"]
    documented = {p["name"] for p in paths["/view/api/validations"]["get"]["parameters"]}
    assert {"validity", "severity", "since", "until", "key", "page", "per_page"} <= documented
    assert "/view/validations" not in paths  # the pages are not part of the API
