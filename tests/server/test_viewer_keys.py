"""The viewer under `jurist serve`: its pages sit behind the service's API keys. A browser
gives its key once in the key form and keeps it in an HttpOnly, SameSite=Strict cookie for
/view only; JSON answers take the Authorization header as every endpoint does."""

import httpx

from jurist.server import new_key

ALICE, ROOT = new_key()[0], new_key()[0]
KEYS = f"alice:{ALICE},root:admin:{ROOT}"


def form_post(client: httpx.Client, path: str, fields: dict[str, str], origin: str | None):
    headers = {"Origin": origin} if origin else {}
    return client.post(path, data=fields, headers=headers, follow_redirects=False)


def test_pages_send_a_browser_without_a_key_to_the_key_form_and_json_answers_401(serve):
    running = serve(config={"JURIST_API_KEYS": KEYS})
    with running.client() as anonymous:
        page = anonymous.get("/view/runs?page=2", follow_redirects=False)
        assert page.status_code == 303
        assert page.headers["location"] == "/view/key?next=%2Fview%2Fruns%3Fpage%3D2"
        answer = anonymous.get("/view/api/runs")
        assert answer.status_code == 401
        assert answer.json()["error"] == "unauthorized"
        assert answer.headers["www-authenticate"] == "Bearer"
    with running.client(ALICE) as alice:  # a key in the header is enough, as elsewhere
        assert alice.get("/view/api/runs").status_code != 401


def test_the_key_form_keeps_a_known_key_in_a_strict_cookie_and_refuses_others(serve):
    running = serve(config={"JURIST_API_KEYS": KEYS})
    with httpx.Client(base_url=running.url) as browser:
        wrong = form_post(browser, "/view/key", {"key": "nope", "next": "/view"}, running.url)
        assert wrong.status_code == 401
        assert "not a key this service knows" in wrong.text
        assert "set-cookie" not in wrong.headers

        given = form_post(browser, "/view/key", {"key": ALICE, "next": "/view/runs"}, running.url)
        assert given.status_code == 303
        assert given.headers["location"] == "/view/runs"
        cookie = given.headers["set-cookie"].lower()
        for attribute in ("httponly", "samesite=strict", "path=/view"):
            assert attribute in cookie, cookie
        assert browser.get("/view/api/runs").status_code == 200  # the cookie now stands in

        forgotten = form_post(browser, "/view/key/forget", {}, running.url)
        assert forgotten.status_code == 303
        assert browser.get("/view/api/runs").status_code == 401


def test_the_key_form_sends_back_only_to_the_viewers_own_pages(serve):
    running = serve(config={"JURIST_API_KEYS": KEYS})
    with httpx.Client(base_url=running.url) as browser:
        for elsewhere in ("https://evil.example/", "//evil.example/view", "/docs"):
            given = form_post(browser, "/view/key", {"key": ROOT, "next": elsewhere}, running.url)
            assert given.status_code == 303
            assert given.headers["location"] == "/view", elsewhere


def test_forms_posted_from_another_site_are_refused(serve):
    running = serve(config={"JURIST_API_KEYS": KEYS})
    with httpx.Client(base_url=running.url) as browser:
        crossed = form_post(browser, "/view/key", {"key": ROOT}, "https://evil.example")
        assert crossed.status_code == 403
        assert "set-cookie" not in crossed.headers
        fetched = browser.post(
            "/view/key", data={"key": ROOT}, headers={"Sec-Fetch-Site": "cross-site"}
        )
        assert fetched.status_code == 403


def test_a_service_without_keys_shows_its_pages_to_its_one_operator(serve):
    running = serve()
    with running.client() as operator:
        assert operator.get("/view/api/runs").status_code == 200
        form = operator.get("/view/key")
        assert form.status_code == 200
