"""The validations' pages in headless Chromium, over a real `jurist serve` that answered
POST /validate: the list filtered by verdict and by severity, one validation opened from
it with its issues. Screenshots: validations.png, validation.png."""

import pytest
from seed_validations import CITED, REQUESTS, post_validations, start_service


@pytest.fixture
def seeded_service(tmp_path):
    running = start_service(tmp_path / "home", f"sqlite:///{tmp_path / 'service.sqlite3'}")
    seeded = post_validations(running)
    yield running, seeded.ids
    running.stop()


def shown_ids(page) -> list[str]:
    return page.locator("#validations tbody tr").evaluate_all(
        "rows => rows.map(row => row.dataset.id)"
    )


def test_filter_the_validations_and_open_one_to_see_its_issues(
    seeded_service, browser_page, screenshots
):
    running, ids = seeded_service
    page = browser_page
    page.goto(f"{running.url}/view/validations")
    assert len(shown_ids(page)) == len(REQUESTS)
    page.screenshot(path=screenshots / "validations.png", full_page=True)

    # A select applies as it changes (the viewer's script submits the form).
    with page.expect_navigation():
        page.select_option("select[name=validity]", "invalid")
    assert "validity=invalid" in page.url
    assert set(shown_ids(page)) == {ids["broken schema"], ids["unmet criterion"]}
    assert page.locator("#validation-count").inner_text().startswith("2 validations")

    with page.expect_navigation():
        page.select_option("select[name=validity]", "all")
    with page.expect_navigation():
        page.select_option("select[name=severity]", "warning")
    assert shown_ids(page) == [ids["warned criterion"]]
    with page.expect_navigation():
        page.select_option("select[name=severity]", "info")
    assert shown_ids(page) == [ids["noted criterion"]]

    with page.expect_navigation():
        page.select_option("select[name=severity]", "error")
    assert set(shown_ids(page)) == {ids["broken schema"], ids["unmet criterion"]}
    # A click anywhere in a row opens the validation.
    with page.expect_navigation():
        page.locator(f'tr[data-id="{ids["unmet criterion"]}"] td.num').first.click()
    assert page.url.endswith(f"/view/validations/{ids['unmet criterion']}")
    assert page.locator("#verdict").inner_text() == "invalid"
    issue = page.locator("#issues tr.issue")
    assert issue.count() == 1
    assert issue.get_attribute("data-severity") == "error"
    assert "criteria_not_met" in issue.inner_text()
    assert CITED in issue.inner_text()
    assert page.locator("#layer-criteria .checks li").count() == 2
    page.screenshot(path=screenshots / "validation.png", full_page=True)
