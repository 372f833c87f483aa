"""`--jurist-report`: the session's judgments stored as a run, one record per judged test,
in the store `jurist runs show` reads."""

import hashlib
from pathlib import Path
from typing import Any

from jurist.core import BaseJudge, Context, Judge, Judgment, all_of, run_judge
from jurist.data import MAX_ITEM_ID
from jurist.pytest_plugin._log import JudgedCall, JudgmentLog
from jurist.runner import RunSummary
from jurist.store import JudgmentRecord, RecordStore

RUN_KIND = "pytest"
# The judge every record of a pytest run names: a test's verdict over all its judgments.
JUDGE = "pytest"


class _Recorded(BaseJudge):
    """A judgment already made, given again, so the one composition (`all_of`) combines a
    test's judgments into its verdict."""

    def __init__(self, call: JudgedCall) -> None:
        super().__init__(call.judge)
        self._judgment = call.judgment

    async def judge(self, ctx: Context) -> Judgment:
        return self._judgment


def store_url(target: str) -> str:
    """A database URL as it is; a file path as the SQLite database in that file."""
    if "://" in target:
        return target
    return f"sqlite:///{Path(target).resolve()}"


async def write_run(
    log: JudgmentLog, target: str, *, model: str | None, wall_seconds: float
) -> str:
    """Store the session's judged tests as one finished run (kind `pytest`); its id."""
    verdicts = {test: await _verdict(calls) for test, calls in log.by_test().items()}
    spec: dict[str, Any] = {
        "judge": {
            "name": JUDGE,
            "kind": None,
            "type": "pytest session",
            "description": "each judged test's verdict over the judgments it made",
        },
        "model": model,
        "tests": len(verdicts),
    }
    async with await RecordStore.open(store_url(target)) as store:
        run_id = await store.create_run(RUN_KIND, spec=spec)
        records = [
            JudgmentRecord.of(judgment, judge=JUDGE, run_id=run_id, item_id=_item_id(test))
            for test, judgment in verdicts.items()
        ]
        if records:
            await store.save_judgments(records)
        summary = RunSummary.of(verdicts.values(), wall_seconds=wall_seconds)
        await store.finish_run(run_id, "done", summary.to_dict())
    return run_id


async def _verdict(calls: list[JudgedCall]) -> Judgment:
    if len(calls) == 1:
        return calls[0].judgment
    members: list[Judge] = [_Recorded(call) for call in calls]
    return await run_judge(all_of(*members, name=JUDGE), Context(goal=""))


def _item_id(test: str) -> str:
    """The test's node id, kept whole when the store's item id holds it."""
    if len(test) <= MAX_ITEM_ID:
        return test
    digest = hashlib.sha256(test.encode()).hexdigest()[:12]
    return f"…{test[-(MAX_ITEM_ID - 14) :]}~{digest}"
