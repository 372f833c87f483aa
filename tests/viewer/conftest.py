"""The viewer on 127.0.0.1 (uvicorn in a thread, over the test's own SQLite file), and a
headless Chromium page that fails the test on any script error, any request refused by the
page's Content-Security-Policy and any request to another host.

Screenshots go to JURIST_SCREENSHOTS when set (`make screenshots` writes the docs' images
that way), else to the test session's temporary directory."""

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from browser import ARGS, CHROMIUM, LOCAL
from jurist.viewer import create_viewer_app
from server.running import Running, run_app

WAIT_MS = 15_000


@pytest.fixture
def viewer_database(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'viewer.sqlite3'}"


@pytest.fixture
def open_viewer() -> Iterator[Callable[[str], Running]]:
    """`open_viewer(database)`: the viewer of `jurist view` over that store, running."""
    started: list[Running] = []

    def start(database: str) -> Running:
        running = run_app(create_viewer_app(database))
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    chosen = os.environ.get("JURIST_SCREENSHOTS")
    where = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    where.mkdir(parents=True, exist_ok=True)
    return where


# Per test, not per session: while Playwright's sync API runs, its event loop holds the main
# thread, and every later `asyncio.run` in the session would fail.
@pytest.fixture
def chromium():
    if not CHROMIUM.exists():
        pytest.skip(f"no system Chromium at {CHROMIUM} (`make chromium` installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def browser_page(chromium):
    """A fresh page 1280 wide; the test fails at its end on any problem the page met."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    problems: list[str] = []

    def only_here(route) -> None:
        parts = urlsplit(route.request.url)
        if parts.scheme in ("data", "blob") or parts.hostname == LOCAL:
            route.continue_()
        else:
            problems.append(f"asked another host: {route.request.url}")
            route.abort()

    context.route("**/*", only_here)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.on(
        "console",
        lambda message: message.type == "error" and problems.append(f"console: {message.text}"),
    )
    page.on(
        "requestfailed",
        lambda request: problems.append(f"{request.failure} {request.url}"),
    )
    page.on("dialog", lambda dialog: dialog.accept())  # "are you sure?" before approving
    yield page
    context.close()
    assert not problems, problems
