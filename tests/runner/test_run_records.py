"""The store's reads a batch run needs: its runs newest first, and a run's judgments."""

import pytest

from jurist import Judgment, NumericScore
from jurist.store import JudgmentRecord, RecordStore


async def test_runs_are_listed_newest_first_and_by_kind(database_url):
    async with await RecordStore.open(database_url) as records:
        first = await records.create_run("eval", name="first")
        second = await records.create_run("calibration", name="second")
        third = await records.create_run("eval", name="third")

        assert [r.id for r in await records.list_runs()] == [third, second, first]
        assert [r.id for r in await records.list_runs(2)] == [third, second]
        assert [r.id for r in await records.list_runs(kind="eval")] == [third, first]
        assert await records.list_runs(kind="other") == []


async def test_a_runs_judgments_come_back_whole_and_only_its_own(database_url):
    async with await RecordStore.open(database_url) as records:
        run = await records.create_run("eval")
        other = await records.create_run("eval")
        judged = Judgment.ok("fine", score=NumericScore(4, 1, 5), metadata={"why": ["a"]})
        await records.save_judgment(
            JudgmentRecord.of(judged, judge="gate", run_id=run, item_id="1")
        )
        await records.save_judgment(
            JudgmentRecord.of(Judgment.fail(), judge="gate", run_id=run, item_id="2")
        )
        await records.save_judgment(
            JudgmentRecord.of(Judgment.ok(), judge="gate", run_id=other, item_id="1")
        )

        stored = await records.run_judgments(run)

    assert [(s.item_id, s.status) for s in stored] == [("1", "pass"), ("2", "fail")]
    assert stored[0].to_judgment() == judged
    assert stored[0].score == 0.75


async def test_a_limit_below_one_is_refused(records):
    with pytest.raises(ValueError, match="limit must be at least 1, got 0"):
        await records.list_runs(0)
