"""The engine: bounded concurrency, nothing lost, each judgment stored as it completes,
and a run interrupted midway resumed with every item stored exactly once."""

import asyncio
from collections import Counter

import pytest
from batch_fakes import Gate, Watcher, dataset, rows

from fakes import Raising
from jurist import BaseJudge, Context, Judgment, Status
from jurist.data import dataset_from_rows
from jurist.runner import evaluate, load_run
from jurist.store import RecordStore


class InFlight(BaseJudge):
    """Counts the calls in flight; each yields to the loop a few times before answering."""

    def __init__(self) -> None:
        super().__init__("in_flight")
        self.now = 0
        self.peak = 0

    async def judge(self, ctx: Context) -> Judgment:
        self.now += 1
        self.peak = max(self.peak, self.now)
        for _ in range(3):
            await asyncio.sleep(0)  # yield, so that other items may start meanwhile
        self.now -= 1
        return Judgment.ok()


@pytest.mark.parametrize("concurrency", [1, 3, 8])
async def test_at_most_concurrency_items_are_judged_at_once(concurrency):
    judge = InFlight()
    result = await evaluate(dataset(40), judge, concurrency=concurrency)
    assert judge.peak == concurrency
    assert result.summary.counts["pass"] == 40


async def test_a_path_is_read_with_the_default_columns(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"answer": "pass"}\n{"answer": "fail"}\n')
    result = await evaluate(path, Gate())
    assert [j.status for j in result.judgments.values()] == [Status.PASS, Status.FAIL]
    assert result.run_id is None
    assert result.spec["dataset"]["sha256"] is not None


async def test_a_concurrency_below_one_is_refused():
    with pytest.raises(ValueError, match="concurrency must be at least 1, got 0"):
        await evaluate(dataset(1), Gate(), concurrency=0)


async def test_a_raising_judge_and_a_bad_row_are_errors_with_their_cause():
    data = dataset_from_rows([{"goal": "g", "output": "a"}, {"goal": "no output"}])
    result = await evaluate(data, Raising("broken"))
    first, second = result.judgments.values()
    assert first.status is Status.ERROR
    assert first.error_info == {"type": "RuntimeError", "message": "model unavailable"}
    assert second.status is Status.ERROR
    assert second.metadata["cause"] == "bad_input"
    assert second.reasoning == "line 2: no column 'output' (output)"
    assert dict(result.summary.errors_by_cause) == {"bad_input": 1, "exception": 1}


async def test_results_follow_the_datasets_order_whatever_the_completion_order():
    class Reversed(BaseJudge):
        """Item k waits until every later item has answered."""

        def __init__(self, n: int) -> None:
            super().__init__("reversed")
            self.answered = {i: asyncio.Event() for i in range(1, n + 2)}
            self.answered[n + 1].set()

        async def judge(self, ctx: Context) -> Judgment:
            number = int(ctx.output)
            await self.answered[number + 1].wait()
            self.answered[number].set()
            return Judgment.ok()

    data = dataset_from_rows([{"id": f"item-{i}", "output": str(i)} for i in range(1, 6)])
    watcher = Watcher()
    result = await evaluate(data, Reversed(5), concurrency=5, progress=watcher)
    assert watcher.advanced == [f"item-{i}" for i in range(5, 0, -1)]
    assert list(result.judgments) == [f"item-{i}" for i in range(1, 6)]


async def test_each_judgment_is_stored_before_the_next_item_is_judged(records):
    """With one worker, item k+1 is only judged once item k is in the store."""
    seen_stored: list[int] = []
    run_ids: list[str] = []

    class Peeking(BaseJudge):
        async def judge(self, ctx: Context) -> Judgment:
            run = (await records.list_runs(1))[0]
            run_ids.append(run.id)
            seen_stored.append(len(await records.run_judgments(run.id)))
            return Judgment.ok()

    result = await evaluate(dataset(4), Peeking("peeking"), concurrency=1, store=records)
    assert seen_stored == [0, 1, 2, 3]
    assert set(run_ids) == {result.run_id}


async def test_a_stored_run_records_its_spec_and_summary(records):
    watcher = Watcher()
    result = await evaluate(
        dataset(5), Gate(), store=records, name="nightly", concurrency=2, progress=watcher
    )
    run = await records.get_run("nightly")
    assert run is not None
    assert (run.id, run.kind, run.status) == (result.run_id, "eval", "done")
    assert run.spec is not None
    assert run.spec["judge"]["name"] == "gate"
    assert run.spec["concurrency"] == 2
    assert run.spec["dataset"]["items"] == 5
    assert run.summary == result.summary.to_dict()
    assert watcher.started == {"total": 5, "done": 0, "run": "nightly"}
    assert watcher.finished == 1
    stored = await records.run_judgments(result.run_id)
    assert sorted((s.item_id, s.judge, s.status) for s in stored) == [
        ("1", "gate", "pass"),
        ("2", "gate", "fail"),
        ("3", "gate", "pass"),
        ("4", "gate", "fail"),
        ("5", "gate", "pass"),
    ]


async def interrupt_after(k: int, store: RecordStore, n: int, name: str) -> Gate:
    """Start a run of n items, cancel it once k are stored (the rest block in the judge)."""
    gate = Gate(open_for=k)
    watcher = Watcher(k)
    task = asyncio.create_task(
        evaluate(dataset(n), gate, store=store, name=name, concurrency=4, progress=watcher)
    )
    await watcher.reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert watcher.finished == 1
    return gate


async def test_a_cancelled_run_is_interrupted_and_resumes_judging_each_item_once(database_url):
    n, k = 30, 7
    async with await RecordStore.open(database_url) as store:
        await interrupt_after(k, store, n, "nightly")
        run = await store.get_run("nightly")
        assert run is not None
        assert run.status == "interrupted"
        assert run.summary is not None
        assert run.summary["n"] == k
        assert len(await store.run_judgments(run.id)) == k

        resumed_gate = Gate()
        watcher = Watcher()
        result = await evaluate(
            dataset(n), resumed_gate, store=store, run="nightly", resume=True, progress=watcher
        )
        stored = await store.run_judgments(run.id)
        finished = await store.get_run(run.id)

    assert len(resumed_gate.calls) == n - k  # nothing judged twice
    assert watcher.started == {"total": n, "done": k, "run": "nightly"}
    counts = Counter(s.item_id for s in stored)
    assert counts == Counter(str(i) for i in range(1, n + 1))  # each item exactly once
    assert list(result.judgments) == [str(i) for i in range(1, n + 1)]
    assert (result.summary.n, result.summary.resumed, result.summary.judged) == (n, k, n - k)
    assert result.summary.counts == {"pass": 15, "fail": 15, "abstain": 0, "error": 0}
    assert finished is not None
    assert finished.status == "done"


async def test_resuming_a_finished_run_judges_nothing(records):
    await evaluate(dataset(3), Gate(), store=records, name="done-once")
    again = Gate()
    result = await evaluate(dataset(3), again, store=records, run="done-once", resume=True)
    assert again.calls == []
    assert result.summary.resumed == 3


async def test_a_run_is_only_resumed_with_the_same_dataset_and_judge(records):
    await interrupt_after(2, records, 10, "nightly")
    with pytest.raises(
        ValueError,
        match=r"different dataset: the run judged rows in memory \(10 items, sha256 [0-9a-f]{12}"
        r"\), this is rows in memory \(11 items",
    ):
        await evaluate(dataset(11), Gate(), store=records, run="nightly", resume=True)

    changed = dataset_from_rows([{**row, "output": "changed"} for row in rows(10)])
    with pytest.raises(ValueError, match="different dataset"):
        await evaluate(changed, Gate(), store=records, run="nightly", resume=True)

    class Other(Gate):
        pass

    with pytest.raises(ValueError, match="different judge"):
        await evaluate(dataset(10), Other(), store=records, run="nightly", resume=True)
    with pytest.raises(ValueError, match="different map"):
        await evaluate(
            dataset_from_rows(rows(10), "output=output"),
            Gate(),
            store=records,
            run="nightly",
            resume=True,
        )
    assert len(await records.run_judgments((await records.list_runs(1))[0].id)) == 2


async def test_resuming_needs_a_known_eval_run_and_a_store(records):
    with pytest.raises(LookupError, match="no run with id or name 'ghost' to resume"):
        await evaluate(dataset(1), Gate(), store=records, run="ghost", resume=True)
    await records.create_run("calibration", name="cal")
    with pytest.raises(ValueError, match="is a 'calibration' run, not an 'eval' run"):
        await evaluate(dataset(1), Gate(), store=records, run="cal", resume=True)
    with pytest.raises(ValueError, match="needs a store and run="):
        await evaluate(dataset(1), Gate(), run="cal", resume=True)
    with pytest.raises(ValueError, match="names a run to resume: pass resume=True"):
        await evaluate(dataset(1), Gate(), store=records, run="cal")


async def test_a_store_failing_midway_fails_the_run_with_the_stores_error(records):
    class FailingSaves(RecordStore):
        saves = 0

        async def save_judgment(self, record):
            self.saves += 1
            if self.saves == 3:
                raise RuntimeError("disk full")
            await super().save_judgment(record)

    store = FailingSaves(records.engine)
    with pytest.raises(RuntimeError, match="disk full"):
        await evaluate(dataset(10), Gate(), store=store, name="doomed", concurrency=1)
    run = await records.get_run("doomed")
    assert run is not None
    assert run.status == "failed"
    assert run.summary is not None
    assert run.summary["n"] == 2


async def test_a_stored_run_reads_back_as_the_same_result(records):
    result = await evaluate(dataset(12), Gate(), store=records, name="r")
    loaded = await load_run(records, "r")
    assert loaded.judgments == result.judgments
    assert loaded.summary == result.summary
    assert (loaded.run_id, loaded.name, loaded.judge, loaded.status) == (
        result.run_id,
        "r",
        "gate",
        "done",
    )
    with pytest.raises(LookupError, match="no run with id or name 'nope'"):
        await load_run(records, "nope")
