"""Runs for the runs' pages, made by `jurist.runner.evaluate` itself: a dataset file of
answers about refunds, judged by a jury of two criterion judges over FakeModels that answer
from the prompt (the refund window stated or not; politeness), so each item's verdict and
votes are known from its row. An item whose output says "BROKEN" makes its model fail, so
its judgments are ERROR."""

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from jurist.core import Judge, Judgment
from jurist.judges import CriterionJudge
from jurist.jury import ErrorPolicy, Jury, Majority
from jurist.runner import RunResult, evaluate
from jurist.store import JudgmentRecord, RecordStore
from jurist.testing import FakeModel, Reply

REFUND = "The answer states the refund window"
POLITE = "The answer is polite"
# A word only some outputs hold, to find them by a search in the inputs.
MARKER = "kumquat"


def row(number: int) -> dict[str, str]:
    """Item `number`: every third states the window (PASS), every seventh is BROKEN (ERROR),
    the rest FAIL; every fifth mentions the MARKER."""
    if number % 7 == 0:
        output = "BROKEN answer"
    elif number % 3 == 0:
        output = f"Refunds are accepted within 30 days, thank you (case {number})."
    else:
        output = f"We cannot say (case {number})."
    if number % 5 == 0:
        output += f" A {MARKER} was mentioned."
    return {
        "id": str(number),
        "goal": f"How long do I have to return order {number}?",
        "output": output,
    }


def write_dataset(path: Path, count: int) -> Path:
    lines = (json.dumps(row(number)) + "\n" for number in range(1, count + 1))
    path.write_text("".join(lines), encoding="utf-8")
    return path


def expected_status(number: int) -> str:
    if number % 7 == 0:
        return "error"
    return "pass" if number % 3 == 0 else "fail"


def _answers(says: Callable[[str], bool], why: str) -> Callable[[str], Reply]:
    def answer(prompt: str) -> Reply:
        if "BROKEN" in prompt:
            return RuntimeError("the fake model broke on purpose")
        if says(prompt):
            return {"answer": "yes", "reason": f"It does: {why}."}
        return {"answer": "no", "reason": f"It does not: no {why}."}

    return answer


def refund_jury() -> Judge:
    refund = CriterionJudge(
        REFUND, FakeModel(_answers(lambda p: "30 days" in p, "30 days")), name="refund"
    )
    polite = CriterionJudge(
        POLITE, FakeModel(_answers(lambda p: "thank you" in p, "thanks")), name="polite"
    )
    strategy = Majority(errors=ErrorPolicy.PROPAGATE)
    return Jury([refund, polite], strategy, name="panel", parallel=False)


async def seed_run(
    store: RecordStore, dataset: Path, *, name: str | None, concurrency: int = 8
) -> RunResult:
    return await evaluate(dataset, refund_jury(), store=store, name=name, concurrency=concurrency)


@dataclass(frozen=True)
class Seeded:
    dataset: Path
    first: str  # an eval run of the dataset, by the operator
    second: str  # the same dataset judged again, later
    ongoing: str  # a run of key "alice" still running, with ONGOING_ITEMS judged


ONGOING_ITEMS = {"a": "pass", "b": "fail", "c": "fail"}


def seed_database(url: str, directory: Path, count: int = 24) -> Seeded:
    """Two finished runs of one dataset file, and one run still running (key "alice")."""

    async def seed() -> Seeded:
        dataset = write_dataset(directory / "answers.jsonl", count)
        async with await RecordStore.open(url) as store:
            first = await seed_run(store, dataset, name="first")
            second = await seed_run(store, dataset, name="second")
            spec = {"judge": {"name": "tone"}, "dataset": {"path": None, "items": 3}}
            ongoing = await store.create_run("eval", name="ongoing", spec=spec, key_id="alice")
            made = {"pass": Judgment.ok, "fail": Judgment.fail}
            await store.save_judgments(
                [
                    JudgmentRecord.of(
                        made[status](f"{item} is {status}"),
                        judge="tone",
                        run_id=ongoing,
                        item_id=item,
                        key_id="alice",
                    )
                    for item, status in ONGOING_ITEMS.items()
                ]
            )
        assert first.run_id is not None
        assert second.run_id is not None
        return Seeded(dataset, first.run_id, second.run_id, ongoing)

    # In a thread of its own: a browser test's thread has Playwright's event loop running.
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, seed()).result()
