"""The item page and the comparison of two runs in headless Chromium: a claim's quote marked
in the source with its P(supported), a quote the source does not hold said so, the changed
rows of a comparison chosen by its filter, a row opening its item. Screenshots item.png and
compare.png; item-calls.png with a call opened."""

import re

from playwright.sync_api import expect
from seed_items import CHANGED, judge_kept_run, judge_run, seeded, write_dataset


def test_an_item_shows_its_claims_with_their_quotes_marked_in_the_source(
    tmp_path, viewer_database, open_viewer, browser_page, screenshots
):
    dataset = write_dataset(tmp_path)
    seeded(judge_run(viewer_database, dataset, "before"))
    running = open_viewer(viewer_database)
    page = browser_page
    page.goto(f"{running.url}/view/runs/before/items/2")
    expect(page.locator("h1")).to_have_text("Item 2")
    mark = page.locator("#source mark")
    expect(mark).to_have_count(1)
    expect(mark).to_contain_text("The harbour market opens every Saturday morning.")
    expect(mark).to_have_class("supported")
    expect(page.locator("#claim-1 .p-supported")).to_have_text("0.91")
    expect(page.locator("#claim-2 .p-supported")).to_have_text("0.08")
    expect(page.locator("#claim-2 .not-found")).to_have_text("not found in the source")
    expect(page.locator("#goal")).to_have_text("When does the market open?")
    expect(page.locator("#calls-note")).to_contain_text("--keep-calls")
    page.screenshot(path=screenshots / "item.png", full_page=True)


def test_a_comparison_shows_the_changed_rows_and_opens_an_item(
    tmp_path, viewer_database, open_viewer, browser_page, screenshots
):
    dataset = write_dataset(tmp_path)
    seeded(judge_run(viewer_database, dataset, "before"))
    seeded(judge_run(viewer_database, dataset, "after", CHANGED))
    running = open_viewer(viewer_database)
    page = browser_page
    page.goto(f"{running.url}/view/compare?a=before&b=after")
    expect(page.locator("tr.compare-row")).to_have_count(3)
    page.select_option("select[name=only]", "changed")  # the script submits the filter
    page.wait_for_url(re.compile(r"only=changed"))
    rows = page.locator("tr.compare-row")
    expect(rows).to_have_count(2)
    expect(page.locator("tr.compare-row.changed")).to_have_count(2)
    expect(rows.nth(0).locator("td").nth(0)).to_have_text("1")
    expect(rows.nth(0).locator(".status").nth(0)).to_have_text("PASS")
    expect(rows.nth(0).locator(".status").nth(1)).to_have_text("FAIL")
    expect(page.locator("#flips")).to_contain_text("PASS→FAIL 1")
    page.screenshot(path=screenshots / "compare.png", full_page=True)
    rows.nth(1).locator("td").nth(1).click()  # anywhere in the row opens B's item
    page.wait_for_url(re.compile(r"/items/2$"))
    expect(page.locator("h1")).to_have_text("Item 2")
    expect(page.locator("#source mark")).to_have_count(1)


def test_the_calls_of_an_item_open_one_at_a_time(
    tmp_path, viewer_database, open_viewer, browser_page, screenshots
):
    dataset = write_dataset(tmp_path)
    seeded(judge_kept_run(viewer_database, dataset, "kept"))
    running = open_viewer(viewer_database)
    page = browser_page
    page.goto(f"{running.url}/view/runs/kept/items/2")
    calls = page.locator("details.call")
    expect(calls).to_have_count(3)
    answer = calls.nth(0).locator("pre.answer")
    expect(answer).to_be_hidden()
    calls.nth(0).locator("summary").click()
    expect(answer).to_be_visible()
    expect(answer).to_contain_text('"claims"')
    expect(page.locator("#calls-note")).to_have_count(0)
    page.screenshot(path=screenshots / "item-calls.png", full_page=True)
