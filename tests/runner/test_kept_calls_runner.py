"""evaluate(keep_calls=True): each item's prompts and raw answers stored on its verdict's
record, on SQLite and PostgreSQL; off by default; a resumed run keeping its choice."""

import asyncio

import pytest
from batch_fakes import Watcher

from jurist.data import dataset_from_rows
from jurist.judges import CriterionJudge
from jurist.jury import Jury, Majority
from jurist.runner import evaluate
from jurist.specs import judge_from_spec
from jurist.store import RecordStore, StoredJudgment
from jurist.testing import FakeModel

YES = {"answer": "yes", "reason": "It gives a window."}
NO = {"answer": "no", "reason": "It gives none."}


def rows(n: int) -> list[dict[str, str]]:
    return [
        {"id": f"q{i}", "goal": "Refunds?", "output": f"Refunds within {i} days."}
        for i in range(1, n + 1)
    ]


def criterion(model: FakeModel, name: str = "window") -> CriterionJudge:
    return CriterionJudge("The answer states the refund window", model, name=name)


def answering(prompt: str) -> dict[str, str]:
    return YES if "within 1 days" not in prompt else NO


async def stored(store: RecordStore, run: str) -> dict[str, StoredJudgment]:
    found = await store.get_run(run)
    assert found is not None
    return {f"{s.item_id} {s.judge}": s for s in await store.run_judgments(found.id)}


async def test_each_item_s_calls_are_stored_on_its_verdict(database_url):
    async with await RecordStore.open(database_url) as store:
        result = await evaluate(
            rows(4), criterion(FakeModel(answering)), store=store, name="kept", keep_calls=True
        )
        assert result.spec["keep_calls"] is True
        records = await stored(store, "kept")
    assert sorted(records) == [f"q{i} window" for i in range(1, 5)]
    for i in range(1, 5):
        calls = records[f"q{i} window"].calls
        assert calls is not None
        assert len(calls) == 1
        (call,) = calls
        assert f"Refunds within {i} days." in call["messages"][-1]["content"]
        assert call["messages"][-1]["role"] == "user"
        assert call["answer"] == (
            '{"answer": "no", "reason": "It gives none."}'
            if i == 1
            else '{"answer": "yes", "reason": "It gives a window."}'
        )
        assert call["model"] == "fake:model"
        assert call["judge"] == "window"
        assert call["input_tokens"] > 0
        assert call["cached"] is False


async def test_calls_are_not_kept_by_default(sqlite_url):
    async with await RecordStore.open(sqlite_url) as store:
        result = await evaluate(rows(3), criterion(FakeModel(YES)), store=store, name="plain")
        assert result.spec["keep_calls"] is False
        found = await store.get_run("plain")
        assert found is not None
        assert found.spec is not None
        assert found.spec["keep_calls"] is False
        records = await stored(store, "plain")
    assert [record.calls for record in records.values()] == [None, None, None]


async def test_a_jury_s_calls_are_all_on_the_verdict_each_naming_its_member(sqlite_url):
    jury = Jury(
        [criterion(FakeModel(YES), "strict"), criterion(FakeModel(NO), "lenient")],
        Majority(),
        name="panel",
    )
    async with await RecordStore.open(sqlite_url) as store:
        await evaluate(rows(2), jury, store=store, name="jury", keep_calls=True)
        records = await stored(store, "jury")
    assert sorted(records) == [
        "q1 panel",
        "q1 panel/lenient",
        "q1 panel/strict",
        "q2 panel",
        "q2 panel/lenient",
        "q2 panel/strict",
    ]
    for item in ("q1", "q2"):
        calls = records[f"{item} panel"].calls
        assert calls is not None
        assert sorted(call["judge"] for call in calls) == ["lenient", "strict"]
        assert all(item[1:] + " days." in call["messages"][-1]["content"] for call in calls)
        assert records[f"{item} panel/strict"].calls is None
        assert records[f"{item} panel/lenient"].calls is None


async def test_a_judge_that_asks_no_model_keeps_an_empty_list(sqlite_url):
    judge = judge_from_spec({"type": "contains", "name": "refund", "keywords": ["refund"]})
    async with await RecordStore.open(sqlite_url) as store:
        await evaluate(rows(2), judge, store=store, name="words", keep_calls=True)
        records = await stored(store, "words")
    assert [record.calls for record in records.values()] == [[], []]


class StopAfter:
    """A model that answers `k` calls, then holds every further call until the test ends."""

    def __init__(self, k: int) -> None:
        self.k, self.asked = k, 0
        self.held = asyncio.Event()

    async def __call__(self, prompt: str) -> dict[str, str]:
        self.asked += 1
        if self.asked > self.k:
            await self.held.wait()
        return YES


async def interrupted(store: RecordStore, n: int, k: int, **options: object) -> None:
    """A run of n items cancelled once k are stored."""
    watcher = Watcher(k)
    model = FakeModel(StopAfter(k))
    task = asyncio.create_task(
        evaluate(
            dataset_from_rows(rows(n)),
            criterion(model),
            store=store,
            name="nightly",
            concurrency=2,
            progress=watcher,
            **options,  # type: ignore[arg-type]
        )
    )
    await watcher.reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_resumed_run_keeps_calls_as_it_was_started(database_url):
    n, k = 8, 3
    async with await RecordStore.open(database_url) as store:
        await interrupted(store, n, k, keep_calls=True)
        before = await stored(store, "nightly")
        assert len(before) >= k
        assert all(record.calls for record in before.values())

        result = await evaluate(
            dataset_from_rows(rows(n)),
            criterion(FakeModel(YES)),
            store=store,
            run="nightly",
            resume=True,
        )
        assert result.spec["keep_calls"] is True
        after = await stored(store, "nightly")
    assert len(after) == n
    assert set(after) > set(before)
    for key, record in after.items():
        assert record.calls is not None, key
        assert len(record.calls) == 1
        assert record.item_id is not None
        assert f"within {record.item_id[1:]} days." in record.calls[0]["messages"][-1]["content"]


async def test_a_run_started_without_keeping_calls_resumes_without(sqlite_url):
    async with await RecordStore.open(sqlite_url) as store:
        await interrupted(store, 6, 2)
        await evaluate(
            dataset_from_rows(rows(6)),
            criterion(FakeModel(YES)),
            store=store,
            run="nightly",
            resume=True,
        )
        after = await stored(store, "nightly")
    assert len(after) == 6
    assert [record.calls for record in after.values()] == [None] * 6


@pytest.mark.parametrize(
    ("started", "asked", "problem"),
    [
        (True, False, "run 'nightly' keeps its calls"),
        (False, True, "run 'nightly' does not keep its calls"),
    ],
)
async def test_resuming_with_the_other_choice_is_refused(sqlite_url, started, asked, problem):
    async with await RecordStore.open(sqlite_url) as store:
        await interrupted(store, 6, 2, keep_calls=started)
        with pytest.raises(ValueError, match=problem) as refused:
            await evaluate(
                dataset_from_rows(rows(6)),
                criterion(FakeModel(YES)),
                store=store,
                run="nightly",
                resume=True,
                keep_calls=asked,
            )
        assert "resume it without keep_calls" in str(refused.value)
        assert len(await stored(store, "nightly")) == 2  # nothing judged


async def test_calls_are_kept_when_the_items_are_judged_on_a_cluster(sqlite_url):
    """The calls are recorded on the worker and come back with the judgments."""
    async with await RecordStore.open(sqlite_url) as store:
        await evaluate(
            rows(3),
            criterion(FakeModel(YES)),
            store=store,
            name="spread",
            keep_calls=True,
            cluster="local:1",
            concurrency=2,
        )
        records = await stored(store, "spread")
    assert len(records) == 3
    for record in records.values():
        assert record.calls is not None
        assert record.item_id is not None
        assert f"within {record.item_id[1:]} days." in record.calls[0]["messages"][-1]["content"]
