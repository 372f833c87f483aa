"""The runs' pages in headless Chromium: open the list, open a run, filter its items by
status (the select applies itself) and see the table narrow, search, go to page 2. Each page
is written as a screenshot: runs.png, run.png, run-filtered.png."""

import re

from seed_runs import MARKER, expected_status, seed_database

COUNT = 60  # more than a page of 50


def test_open_a_run_filter_search_and_page(
    open_viewer, viewer_database, tmp_path, browser_page, screenshots
):
    seeded = seed_database(viewer_database, tmp_path, COUNT)
    running = open_viewer(viewer_database)
    page = browser_page
    rows = page.locator("table#items tbody tr")

    page.goto(f"{running.url}/view/runs")
    assert page.locator("table#runs tbody tr").count() == 3
    assert page.locator("#runs-total").inner_text() == "3 runs"
    page.screenshot(path=screenshots / "runs.png", full_page=True)

    page.get_by_role("link", name="first", exact=True).click()
    page.wait_for_url(f"**/view/runs/{seeded.first}")
    assert page.locator("h1").inner_text().startswith("first")
    assert rows.count() == 50
    assert page.locator("#items-total").inner_text() == f"{COUNT} items"
    assert rows.first.locator("td").nth(1).inner_text() == "How long do I have to return order 1?"
    page.screenshot(path=screenshots / "run.png", full_page=True)

    # Choosing a status submits the filters by itself (the viewer's script).
    page.locator("form.filters select[name=status]").select_option("fail")
    page.wait_for_url(re.compile(r"status=fail"))
    failed = [n for n in range(1, COUNT + 1) if expected_status(n) == "fail"]
    assert rows.count() == len(failed)
    assert page.locator("#items-total").inner_text() == f"{len(failed)} items match"
    first_cells = rows.locator("td:first-child").all_inner_texts()
    assert first_cells == [str(n) for n in failed]
    page.screenshot(path=screenshots / "run-filtered.png", full_page=True)

    # A word only the inputs hold, within the failed items.
    search = page.locator("input[type=search]")
    search.fill(MARKER)
    search.press("Enter")
    page.wait_for_url(re.compile(rf"search={MARKER}"))
    marked = [str(n) for n in failed if n % 5 == 0]
    assert rows.locator("td:first-child").all_inner_texts() == marked
    assert page.locator("select[name=status]").input_value() == "fail"

    # Without filters the run has two pages: the second holds the rest.
    page.goto(f"{running.url}/view/runs/{seeded.first}")
    page.locator("#next-page").click()
    page.wait_for_url(re.compile(r"page=2"))
    assert rows.locator("td:first-child").all_inner_texts() == [
        str(n) for n in range(51, COUNT + 1)
    ]
    assert "page 2 of 2" in page.locator("nav.pager").inner_text()

    # A row leads to its item.
    href = rows.first.get_attribute("data-href")
    assert href == f"/view/runs/{seeded.first}/items/51"
