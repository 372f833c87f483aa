"""/docs and /redoc in headless Chromium: the pages render the API from assets the service
serves itself, and the browser asks no host but the service's."""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Request, Route, sync_playwright

from browser import ARGS, CHROMIUM, LOCAL

WAIT_MS = 15_000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"no system Chromium at {CHROMIUM} (`make chromium` installs it)",
)


def _local(url: str) -> bool:
    parts = urlsplit(url)
    # data: and blob: URLs are made inside the page (icons, ReDoc's worker): no host at all.
    return parts.scheme in ("data", "blob") or parts.hostname == LOCAL


def test_swagger_ui_and_redoc_render_the_api_with_no_other_host(serve):
    running = serve()
    requested: list[str] = []  # everything the pages asked for
    sent: list[str] = []  # what left the browser for the network
    blocked: list[str] = []  # what the pages' Content-Security-Policy stopped in the browser
    problems: list[str] = []

    def send_only_here(route: Route) -> None:
        # Every request that would reach the network passes here; none may go elsewhere,
        # and refusing them keeps the test from needing a network.
        sent.append(route.request.url)
        if _local(route.request.url):
            route.continue_()
        else:
            route.abort()

    def failed(request: Request) -> None:
        if request.failure == "csp":
            blocked.append(request.url)
        else:
            problems.append(f"{request.failure} {request.url}")

    def watch(page: Page) -> None:
        page.on("request", lambda request: requested.append(request.url))
        page.on("requestfailed", failed)
        page.on(
            "response", lambda answer: answer.ok or problems.append(f"{answer.status} {answer}")
        )
        page.on(
            "console", lambda message: message.type == "error" and problems.append(message.text)
        )

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context()
            context.route("**/*", send_only_here)
            page = context.new_page()
            watch(page)

            page.goto(f"{running.url}/docs")
            validate = page.locator(".opblock-summary-path[data-path='/validate']")
            validate.first.wait_for(state="visible", timeout=WAIT_MS)
            assert page.locator(".opblock-post").count() >= 2
            assert page.locator(".info .title").inner_text().startswith("jurist")

            page.goto(f"{running.url}/redoc")
            title = page.get_by_role("heading", level=1, name=re.compile(r"^jurist"))
            title.wait_for(state="visible", timeout=WAIT_MS)
            assert page.get_by_role("heading", name=re.compile("validate", re.I)).count() >= 1
        finally:
            browser.close()

    assert [url for url in sent if not _local(url)] == []
    # ReDoc's sidebar asks for its vendor's logo; the page's policy stops it in the browser.
    assert [url for url in blocked if _local(url)] == []
    # The browser reports each stopped request on the console, and nothing else goes wrong.
    unexplained = [text for text in problems if not any(url in text for url in blocked)]
    assert unexplained == []
    assert {urlsplit(url).path for url in requested} >= {
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/swagger-ui.css",
        "/docs/assets/redoc.standalone.js",
        "/openapi.json",
    }
