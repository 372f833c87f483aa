"""A person approves a paused cycle in headless Chromium: the list, the cycle's events and
the change it waits on, APPROVE (the page asks first), and the cycle shown running with the
decision among its events."""

from viewer.seed_cycles import IMPROVED, paused_cycle


def test_approving_a_paused_cycle_in_the_browser(
    open_viewer, viewer_database, browser_page, screenshots
):
    cycle = paused_cycle(viewer_database, "bullets")
    running = open_viewer(viewer_database)
    page = browser_page
    page.goto(f"{running.url}/view/cycles")
    assert page.locator("#cycles tbody tr").count() == 1
    page.screenshot(path=screenshots / "cycles.png", full_page=True)
    page.get_by_role("link", name="bullets").click()
    page.wait_for_url(f"**/view/cycles/{cycle}")
    assert page.locator("#cycle-status").inner_text() == "paused"
    assert page.locator("#events li.event").count() > 10
    assert page.locator("li.event[data-kind='reply:rewrite'] .title").inner_text() == (
        "answers: rewrite the prompt"
    )
    assert page.locator("#pending pre.new").inner_text() == IMPROVED
    page.screenshot(path=screenshots / "cycle.png", full_page=True)

    page.locator("#approve-form input[name=note]").fill("clearer format")
    page.locator("#approve").click()  # the confirmation is accepted by the fixture
    page.wait_for_url(f"**/view/cycles/{cycle}?page=1*")
    assert page.locator("#cycle-status").inner_text() == "running"
    assert page.locator("#pending").count() == 0
    decision = page.locator("li.event[data-kind='human']")
    assert "a person approved the change of iteration 1" in decision.inner_text()
    assert "clearer format" in decision.inner_text()
    assert page.locator("#prompt").inner_text() == IMPROVED
    page.screenshot(path=screenshots / "cycle-approved.png", full_page=True)
