"""The calibration pages in headless Chromium: open the list, open a report and see its plot,
open the comparison of two reports; screenshots of each."""

import pytest
from seed_calibration import COHERENCE, seed


@pytest.fixture
def viewer(tmp_path, open_viewer):
    database = f"sqlite:///{tmp_path / 'viewer.sqlite3'}"
    ids = seed(database, tmp_path, {"before": 0, "after": 1})
    return open_viewer(database), ids


def test_open_the_list_a_report_with_its_plots_and_the_comparison(
    viewer, browser_page, screenshots
):
    running, ids = viewer
    page = browser_page
    page.goto(f"{running.url}/view/calibration")
    rows = page.locator("#calibration-runs tbody tr")
    assert rows.count() == 2
    assert "Pearson" in rows.first.inner_text()
    page.screenshot(path=screenshots / "calibration-list.png", full_page=True)

    page.locator(f'tr[data-run="{ids["after"]}"] td').nth(1).click()  # the row is a link
    page.wait_for_url(f"**/view/calibration/{ids['after']}")
    scatter = page.locator("#scatter-plots svg.plot").first
    scatter.wait_for()
    assert scatter.get_attribute("aria-label") == "coherence: judge against human"
    dots = scatter.locator("circle.dot")
    assert dots.count() > 1
    assert dots.first.is_visible()
    box = scatter.bounding_box()
    assert box is not None
    assert box["width"] > 300
    counted = sum(int(dots.nth(i).get_attribute("data-count")) for i in range(dots.count()))
    assert counted == len(COHERENCE)
    assert page.locator("#histograms svg.plot rect.bar").count() > 0
    assert page.locator("#confusions svg.plot g.cell").count() == 2 * 25
    assert page.locator('#statistics tr[data-metric="pearson"]').count() == 4
    page.screenshot(path=screenshots / "calibration.png", full_page=True)

    page.goto(f"{running.url}/view/calibration")
    page.select_option("#compare-form select[name=a]", ids["before"])
    page.select_option("#compare-form select[name=b]", ids["after"])
    page.locator("#compare-form button[type=submit]").click()
    page.wait_for_url("**/view/calibration/compare?**")
    assert "moved beyond their intervals" in page.locator("#beyond-count").inner_text()
    assert page.locator("#changes tbody tr").count() > 0
    assert page.locator("#side-before a").inner_text() == "before"
    assert page.locator("#side-after a").inner_text() == "after"
    page.screenshot(path=screenshots / "calibration-compare.png", full_page=True)
