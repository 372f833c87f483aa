"""The store's reads behind the runs' pages, on SQLite and PostgreSQL: runs listed, filtered,
sorted and paged in the database; a run's items filtered by a judge's status and a text,
sorted and paged; counts by status; the judges of a run; the runs of one dataset."""

import asyncio
from datetime import timedelta

import pytest
import sqlalchemy as sa
from seed_runs import MARKER, expected_status, seed_run, write_dataset

from jurist.core import Judgment
from jurist.store import JudgmentRecord, RecordStore, runs

COUNT = 30


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def test_a_runs_items_are_filtered_sorted_and_paged_by_the_database(store_url, tmp_path):
    dataset = write_dataset(tmp_path / "answers.jsonl", COUNT)

    async def scenario() -> None:
        async with await RecordStore.open(store_url) as store:
            result = await seed_run(store, dataset, name="first")
            run = result.run_id
            assert run is not None

            assert await store.judge_names(run) == ["panel", "panel/polite", "panel/refund"]
            every = [str(n) for n in range(1, COUNT + 1)]
            expected: dict[str, int] = {}
            for number in range(1, COUNT + 1):
                status = expected_status(number)
                expected[status] = expected.get(status, 0) + 1
            assert await store.status_counts(run, "panel") == expected

            # Line-number ids in their natural order, page by page, never overlapping.
            total, first = await store.run_items(run, judge="panel", limit=12)
            _, second = await store.run_items(run, judge="panel", limit=12, offset=12)
            _, third = await store.run_items(run, judge="panel", limit=12, offset=24)
            assert total == COUNT
            assert first + second + third == every
            _, backwards = await store.run_items(run, judge="panel", descending=True, limit=3)
            assert backwards == ["30", "29", "28"]

            failed = [n for n in every if expected_status(int(n)) == "fail"]
            total, ids = await store.run_items(run, judge="panel", status="fail", limit=100)
            assert (total, ids) == (len(failed), failed)

            # A text found in the reasoning ("It does: 30 days." of the refund vote), in
            # the id, or among the ids its inputs matched (which the viewer finds).
            total, ids = await store.run_items(
                run, judge="panel/refund", search="IT DOES:", limit=100
            )
            assert ids == [n for n in every if expected_status(int(n)) == "pass"]
            total, ids = await store.run_items(run, judge="panel", search="13", limit=100)
            assert ids == ["13"]
            marked = [n for n in every if int(n) % 5 == 0]
            total, ids = await store.run_items(
                run, judge="panel", search=MARKER, among=marked, status="fail", limit=100
            )
            assert ids == [n for n in marked if expected_status(int(n)) == "fail"]
            # % and _ are letters in a search, not patterns.
            assert await store.run_items(run, judge="panel", search="%", limit=5) == (0, [])

            _, by_status = await store.run_items(run, judge="panel", sort="status", limit=100)
            statuses = [expected_status(int(n)) for n in by_status]
            assert statuses == sorted(statuses)

            judged = await store.judgments_of_items(run, ["3", "7"])
            assert {(j.item_id, j.judge): j.status for j in judged} == {
                ("3", "panel"): "pass",
                ("3", "panel/refund"): "pass",
                ("3", "panel/polite"): "pass",
                ("7", "panel"): "error",
                ("7", "panel/refund"): "error",
                ("7", "panel/polite"): "error",
            }

            # Without a judge: every item any judge stored, once.
            total, ids = await store.run_items(run, judge=None, status="error", limit=100)
            assert ids == [n for n in every if expected_status(int(n)) == "error"]

            again = await seed_run(store, dataset, name="second")
            other = await store.create_run("eval", name="elsewhere", spec={"dataset": {}})
            sha = (await store.get_run(run)).spec["dataset"]["sha256"]
            same = await store.dataset_runs(sha)
            assert [found.id for found in same] == [again.run_id, run]
            assert other not in [found.id for found in same]

    asyncio.run(scenario())


def test_runs_are_listed_filtered_sorted_and_paged_by_the_database(store_url):
    async def scenario() -> None:
        async with await RecordStore.open(store_url) as store:
            made = {}
            for number, (name, cost, seconds) in enumerate(
                [("alpha", 0.5, 30), ("beta", None, 5), ("gamma", 0.01, 600)]
            ):
                spec = {"dataset": {"path": f"/data/set-{name}.jsonl", "sha256": "s" * 64}}
                run = await store.create_run("eval", name=name, spec=spec, key_id="alice")
                await store.finish_run(run, "done", {"cost_usd": cost, "counts": {}})
                made[name] = run
                # Each run took its own time, and started one after the other.
                await _set_times(store, run, number, seconds)
            calibration = await store.create_run("eval", name="calibrated", key_id="bob")
            await store.finish_run(calibration, "done", {"calibration": {"n": 3}})
            await _set_times(store, calibration, 5, 1)
            running = await store.create_run("pytest", name="tests")
            await _set_times(store, running, 10, None)

            total, found = await store.page_runs(limit=2)
            assert total == 5
            assert [run.name for run in found] == ["tests", "calibrated"]
            _, rest = await store.page_runs(limit=2, offset=2)
            assert [run.name for run in rest] == ["gamma", "beta"]

            names = lambda runs: [run.name for run in runs]  # noqa: E731
            assert names((await store.page_runs(sort="name", descending=False))[1]) == [
                "alpha",
                "beta",
                "calibrated",
                "gamma",
                "tests",
            ]
            # Unknown costs and unfinished runs last, whichever the order.
            by_cost = names((await store.page_runs(sort="cost", descending=True))[1])
            assert by_cost[:2] == ["alpha", "gamma"]
            by_cost = names((await store.page_runs(sort="cost", descending=False))[1])
            assert by_cost[:2] == ["gamma", "alpha"]
            by_time = names((await store.page_runs(sort="duration", descending=True))[1])
            assert by_time[:3] == ["gamma", "alpha", "beta"]
            assert by_time[-1] == "tests"

            assert names((await store.page_runs(kind="pytest"))[1]) == ["tests"]
            assert names((await store.page_runs(status="running"))[1]) == ["tests"]
            assert names((await store.page_runs(summary_key="calibration"))[1]) == ["calibrated"]
            lacking = await store.page_runs(summary_key="calibration", summary_holds=False)
            assert "calibrated" not in names(lacking[1])
            assert lacking[0] == 4  # a run with no summary yet lacks the key too
            assert names((await store.page_runs(search="SET-BE"))[1]) == ["beta"]
            assert names((await store.page_runs(search="_"))[1]) == []
            assert names(
                (await store.page_runs(key_id="alice", sort="name", descending=False))[1]
            ) == [
                "alpha",
                "beta",
                "gamma",
            ]
            with pytest.raises(ValueError, match="limit"):
                await store.page_runs(limit=0)

    asyncio.run(scenario())


async def _set_times(store: RecordStore, run: str, number: int, seconds: int | None) -> None:
    """Move a run's start to a known time and, finished, its end `seconds` later: the
    store's own clock is too quick to tell runs apart by their durations."""
    start = (await store.get_run(run)).created_at.replace(microsecond=0) + timedelta(minutes=number)
    values = {"created_at": start}
    if seconds is not None:
        values["updated_at"] = start + timedelta(seconds=seconds)
    async with store.engine.begin() as connection:
        await connection.execute(sa.update(runs).where(runs.c.id == run).values(values))


def test_a_judgment_without_an_item_is_no_item_of_the_run(tmp_path):
    async def scenario() -> None:
        async with await RecordStore.open(f"sqlite:///{tmp_path / 'r.sqlite3'}") as store:
            run = await store.create_run("eval", spec={"judge": {"name": "j"}})
            await store.save_judgments(
                [
                    JudgmentRecord.of(Judgment.ok("ok"), judge="j", run_id=run, item_id="a"),
                    JudgmentRecord.of(Judgment.fail("no"), judge="j", run_id=run),
                ]
            )
            assert await store.run_items(run, judge="j") == (1, ["a"])
            assert await store.status_counts(run, "j") == {"pass": 1}

    asyncio.run(scenario())


def test_a_search_finds_the_reasoning_only_and_any_text_of_it(store_url):
    """Its words, in any case, with letters JSON escapes; never a key of the judgment's JSON
    (which every row's text holds)."""

    async def scenario() -> None:
        async with await RecordStore.open(store_url) as store:
            run = await store.create_run("eval", spec={"judge": {"name": "j"}})
            said = {
                "a": Judgment.ok('Ça coûte 30 €, "cheap"'),
                "b": Judgment.fail("Too slow\\late 100%"),
                "c": Judgment.ok("Fine."),
            }
            await store.save_judgments(
                [
                    JudgmentRecord.of(judgment, judge="j", run_id=run, item_id=item)
                    for item, judgment in said.items()
                ]
            )

            async def found(text: str) -> list[str]:
                return (await store.run_items(run, judge="j", search=text))[1]

            assert await found("COÛTE") == ["a"]
            assert await found('"cheap"') == ["a"]
            assert await found("slow\\late") == ["b"]
            assert await found("100%") == ["b"]
            assert await found("fine") == ["c"]
            assert await found("reasoning") == []
            assert await found("status") == []

    asyncio.run(scenario())
