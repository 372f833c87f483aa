"""Judging a dataset: items concurrently, each judgment stored as it completes, resumable.

A stored run is exactly-once per item: each judgment is saved (with its run, item and judge)
the moment it completes, the judgments table refuses a second one for the same (run, item,
judge), and resuming skips every item already stored. An interruption loses only the items
in flight; they are judged when the run resumes.
"""

import asyncio
import dataclasses
import functools
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from jurist.core import Cause, Judge, Judgment, batch_pace, judge_name, to_json_safe
from jurist.data import Dataset, FieldMap, Item
from jurist.llm import ConcurrencyWatch, recording_calls
from jurist.runner._cluster import Completed, JudgeAll, check_cluster, on_cluster
from jurist.runner._inputs import Rows, as_dataset, stored_inputs
from jurist.runner._judges import JudgeChoice, describe_judge
from jurist.runner._progress import Progress
from jurist.runner._results import RunResult, RunSummary
from jurist.runner._votes import MAX_LABEL, judge_with_votes, vote_label, votes_by_item
from jurist.settings import get_settings
from jurist.store import JudgmentRecord, RecordStore, StoredRun

RUN_KIND = "eval"
DONE, INTERRUPTED, FAILED = "done", "interrupted", "failed"
# What must match for a run to be resumed: the same items (the file's content, not where
# it lies), read the same way, judged by the same judge with the same model. Concurrency
# may change.
_SAME_ON_RESUME: Mapping[str, frozenset[str]] = {
    "dataset": frozenset({"path"}),
    "map": frozenset(),
    "judge": frozenset({"text"}),
    "model": frozenset(),
}


async def evaluate(
    dataset: Dataset | str | Path | Rows,
    judge: Judge | JudgeChoice,
    *,
    field_map: FieldMap | str | None = None,
    concurrency: int | None = None,
    store: RecordStore | None = None,
    run: str | None = None,
    name: str | None = None,
    resume: bool = False,
    progress: Progress | None = None,
    keep: Callable[[RunResult], Mapping[str, Any]] | None = None,
    cluster: str | None = None,
    keep_calls: bool | None = None,
) -> RunResult:
    """Judge every item of `dataset` with `judge`, at most `concurrency` at a time.

    By default (`concurrency=None`) as many items are in flight as the model layer lets calls
    be (`JURIST_CONCURRENCY` when set, else the ceiling `JURIST_MAX_CONCURRENCY`): the limit
    on each provider endpoint, which adapts to what the endpoint takes, is then what bounds
    the calls, and workers pull items from the dataset one at a time, so memory holds only
    those in flight. The result's summary says what the limits did (`concurrency`).

    `dataset` is a Dataset, a dataset file, or rows in memory: a list of dicts, each with
    an `output` and, as it has them, a `goal`, `context` (passages), `reference` and `id`.
    A file and rows are read through `field_map` (`"goal=input,output=actual_output"`,
    see FieldMap; the default columns otherwise). A row in memory that cannot be judged is a
    DatasetError naming the row and field, raised before anything is judged.

    A judge that raises gives that item an ERROR judgment with the exception (never a lost
    item); a row that could not become a Context is ERROR with cause `bad_input`. With a
    `store`, the run is created first (kind "eval", `name`, and a spec recording the
    dataset's path and sha256, the judge, the model, the field map and the concurrency) and
    each judgment is saved as it completes; at the end the run is finished as "done", or
    "interrupted" when cancelled (Ctrl-C), or "failed", with the summary so far.

    `resume=True` continues the stored run `run` (its id or name): the items it has a
    judgment for are skipped, the rest judged, and the result covers them all. The dataset,
    map, judge and model must be those the run was started with (ValueError naming what
    differs); an unknown run is a LookupError.

    `cluster` judges the items on a Dask cluster instead of in this process: `local:N`
    starts N worker processes on this machine for the run, `tcp://HOST:PORT` joins a running
    scheduler (needs the `cluster` extra). Each worker judges `concurrency` items at a time;
    this process records every judgment as above, so storing, resuming and the result are
    the same, and a worker lost mid-run loses nothing (its items are judged elsewhere).

    `keep_calls=True` stores, with each item's verdict, the calls its judging made: the
    prompts sent and the raw answers (with each call's model, tokens, cost and latency, and
    the judge that asked), in `StoredJudgment.calls`. It is off by default because prompts
    hold the item's inputs, the user's data, which the store otherwise keeps no copy of. The
    choice is written in the run's spec (`keep_calls`), so a resumed run keeps doing what it
    was started doing: `None` (the default) is the run's own choice on a resume, and off for
    a new run; a resume that asks for the other choice is a ValueError. Each item's calls
    are on its verdict's record (a jury's members' too, each naming its judge), in the
    order they ended; an answer from the response cache is there with `cached` true.
    Without a store nothing is kept.
    """
    concurrency = _items_in_flight(concurrency)
    dataset = as_dataset(dataset, field_map)
    if isinstance(judge, JudgeChoice):
        the_judge, about, model = judge.judge, judge.describe(), judge.model
    else:
        the_judge, about, model = judge, describe_judge(judge), None
    label = judge_name(the_judge)
    spec: dict[str, Any] = to_json_safe(
        {
            "dataset": dataset.describe(),
            "map": str(dataset.field_map),
            "judge": about,
            "model": model,
            "concurrency": concurrency,
            # checked now, so that a cluster named wrong stops the run before it is stored
            "cluster": None if cluster is None else check_cluster(cluster).text,
            "keep_calls": bool(keep_calls),
        },
        "spec",
    )

    run_id, name, judgments, votes = await _open_run(
        store,
        run=run,
        name=name,
        resume=resume,
        spec=spec,
        judge=label,
        dataset=dataset,
        keep_calls=keep_calls,
    )
    resumed = len(judgments)
    todo = [item for item in dataset.items if item.id not in judgments]
    started = time.perf_counter()

    def summary() -> RunSummary:
        return RunSummary.of(
            judgments.values(),
            judged=len(judgments) - resumed,
            resumed=resumed,
            wall_seconds=time.perf_counter() - started,
            concurrency=watch.report(),
        )

    async def completed(
        item: Item,
        judgment: Judgment,
        by_member: dict[str, Judgment],
        /,
        calls: list[dict[str, Any]] | None = None,
    ) -> None:
        if store is not None and run_id is not None:
            await _save(store, _records(label, run_id, item.id, judgment, by_member, calls=calls))
        judgments[item.id] = judgment
        if by_member:
            votes[item.id] = by_member
        if progress is not None:
            progress.advance(item.id, judgment)

    if progress is not None:
        progress.start(total=len(dataset.items), done=resumed, run=name or run_id)
    watch = ConcurrencyWatch().start()  # it stops watching when the run lets go of it
    try:
        judge_all = _judging(keep_calls=spec["keep_calls"] and store is not None, cluster=cluster)
        await judge_all(todo, the_judge, concurrency, completed)
    except (asyncio.CancelledError, KeyboardInterrupt) as stop:
        await _finish(store, run_id, INTERRUPTED, summary(), stop)
        raise
    except BaseException as exc:
        await _finish(store, run_id, FAILED, summary(), exc)
        raise
    finally:
        if progress is not None:
            progress.finish()
    result = summary()
    ordered = {item.id: judgments[item.id] for item in dataset.items}
    finished = RunResult(
        run_id,
        name,
        label,
        ordered,
        result,
        DONE,
        spec,
        inputs={item.id: item.context for item in dataset.items if item.context is not None},
        votes={item.id: votes[item.id] for item in dataset.items if item.id in votes},
    )
    kept: Mapping[str, Any] = {}
    try:
        if keep is not None:
            kept = keep(finished)
    finally:
        if store is not None and run_id is not None:
            await store.finish_run(run_id, DONE, {**result.to_dict(), **kept})
    return finished


def _items_in_flight(concurrency: int | None) -> int:
    """`concurrency`, checked; by default the most calls the model layer lets be in flight."""
    if concurrency is not None and concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    return concurrency or get_settings().concurrency_ceiling


def _records(
    label: str,
    run_id: str,
    item_id: str,
    judgment: Judgment,
    votes: Mapping[str, Judgment],
    *,
    calls: list[dict[str, Any]] | None = None,
) -> list[JudgmentRecord]:
    named = {vote_label(label, member): vote for member, vote in votes.items()}
    named = {label: judgment} | {who: j for who, j in named.items() if len(who) <= MAX_LABEL}
    # Every call of the item goes on the verdict's record, each naming the judge that asked:
    # a jury's members' calls interleave, and the verdict is the record every reader opens.
    return [
        JudgmentRecord.of(
            j,
            judge=who,
            run_id=run_id,
            item_id=item_id,
            calls=calls if who == label else None,
        )
        for who, j in named.items()
    ]


async def _save(store: RecordStore, records: list[JudgmentRecord]) -> None:
    if len(records) == 1:
        await store.save_judgment(records[0])
    else:  # the verdict and its votes in one transaction: a resumed run has them all
        await store.save_judgments(records)


async def _open_run(
    store: RecordStore | None,
    *,
    run: str | None,
    name: str | None,
    resume: bool,
    spec: dict[str, Any],
    judge: str,
    dataset: Dataset,
    keep_calls: bool | None,
) -> tuple[str | None, str | None, dict[str, Judgment], dict[str, dict[str, Judgment]]]:
    """The run's id and name, and the judgments (and jury votes) it has stored already (a
    resumed run). A resumed run's `spec["keep_calls"]` becomes the run's own choice."""
    if not resume:
        if run is not None:
            raise ValueError(
                f"run={run!r} names a run to resume: pass resume=True, or name a new run with name="
            )
        if store is None:
            return None, name, {}, {}
        return await store.create_run(RUN_KIND, name=name, spec=spec), name, {}, {}
    if store is None or run is None:
        raise ValueError("resume=True needs a store and run= (the id or name to resume)")
    found = await _resumable(store, run, spec, name)
    spec["keep_calls"] = _kept_calls(found, keep_calls)
    wanted = {item.id for item in dataset.items}
    judgments: dict[str, Judgment] = {}
    every = await store.run_judgments(found.id)
    for stored in every:
        item_id = stored.item_id
        if stored.judge == judge and item_id is not None and item_id in wanted:
            judgments[item_id] = stored.to_judgment()
    votes = votes_by_item(judge, ((s.item_id, s.judge, s.to_judgment()) for s in every))
    return (
        found.id,
        found.name,
        judgments,
        {item: by_member for item, by_member in votes.items() if item in judgments},
    )


async def load_run(store: RecordStore, run: str) -> RunResult:
    """A stored run (by id or name) as a result; LookupError when there is none.

    The store keeps no item's inputs (goal, output, context: the user's data): they are read
    again from the run's dataset file when it is still there, unchanged (its sha256). When it
    is not, the result has no inputs and `inputs_note` says why."""
    found = await store.get_run(run)
    if found is None:
        raise LookupError(f"no run with id or name {run!r}")
    result = RunResult.from_stored(found, await store.run_judgments(found.id))
    inputs, note = stored_inputs(found.spec or {})
    return dataclasses.replace(result, inputs=inputs, inputs_note=note)


def _judging(*, keep_calls: bool, cluster: str | None) -> JudgeAll:
    """How the items are judged: here or on `cluster`, their calls recorded or not."""
    judge_all: JudgeAll = (
        functools.partial(_judge_all, keep_calls=True) if keep_calls else _judge_all
    )
    return judge_all if cluster is None else on_cluster(cluster, judge_all)


async def _judge_all(
    todo: list[Item],
    judge: Judge,
    concurrency: int,
    completed: Completed,
    *,
    keep_calls: bool = False,
) -> None:
    # `concurrency` workers share one iterator, so at most that many items are in flight.
    pending = iter(todo)

    async def worker() -> None:
        for item in pending:
            if not keep_calls:
                await completed(item, *await _judge_item(judge, item))
                continue
            # The item's own list, set in this worker's context: the tasks its judging
            # starts (a jury's members) append to it, other workers' items do not.
            with recording_calls() as calls:
                judgment, votes = await _judge_item(judge, item)
            await completed(item, judgment, votes, [call.to_dict() for call in calls])

    try:
        # fewer garbage collections while the calls are in flight (see _collector)
        with batch_pace():
            async with asyncio.TaskGroup() as group:
                for _ in range(min(concurrency, len(todo))):
                    group.create_task(worker())
    except BaseExceptionGroup as failed:
        # run_judge turns whatever a judge raises into ERROR, so what failed here is the
        # store (or the progress watcher): the run fails with that error, not a group.
        first = failed.exceptions[0]
        if len(failed.exceptions) > 1:
            first.add_note(f"and {len(failed.exceptions) - 1} more workers failed")
        raise first from None


async def _judge_item(judge: Judge, item: Item) -> tuple[Judgment, dict[str, Judgment]]:
    if item.context is None:
        problem = Judgment.error(
            item.problem or f"line {item.line}: cannot be judged",
            metadata={"cause": Cause.BAD_INPUT, "item": item.id, "line": item.line},
        )
        return problem, {}
    return await judge_with_votes(judge, item.context)


async def _resumable(
    store: RecordStore, run: str, spec: Mapping[str, Any], name: str | None
) -> StoredRun:
    found = await store.get_run(run)
    if found is None:
        raise LookupError(f"no run with id or name {run!r} to resume")
    if found.kind != RUN_KIND:
        raise ValueError(f"run {run!r} is a {found.kind!r} run, not an {RUN_KIND!r} run")
    if name is not None and name != found.name:
        raise ValueError(f"run {run!r} is named {found.name!r}, not {name!r}")
    before = found.spec or {}
    differ = [
        key
        for key, free in _SAME_ON_RESUME.items()
        if _without(before.get(key), free) != _without(spec.get(key), free)
    ]
    if differ:
        details = "; ".join(_difference(key, before.get(key), spec.get(key)) for key in differ)
        raise ValueError(
            f"run {run!r} cannot be resumed with a different {', '.join(differ)}: {details}"
        )
    return found


def _kept_calls(found: StoredRun, asked: bool | None) -> bool:
    """The run's choice to keep calls (off for a run stored before there was one); asking
    a resumed run for the other choice is a ValueError."""
    chosen = bool((found.spec or {}).get("keep_calls", False))
    if asked is not None and asked != chosen:
        was = "keeps" if chosen else "does not keep"
        raise ValueError(
            f"run {found.name or found.id!r} {was} its calls (the prompts and raw answers): "
            f"a resumed run keeps the choice it was started with; resume it without "
            f"keep_calls={asked}"
        )
    return chosen


def _without(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, Mapping):
        return {k: v for k, v in value.items() if k not in keys}
    return value


def _difference(key: str, before: Any, now: Any) -> str:
    if key == "dataset" and isinstance(before, Mapping) and isinstance(now, Mapping):
        return f"the run judged {_dataset_name(before)}, this is {_dataset_name(now)}"
    if key == "judge" and isinstance(before, Mapping) and isinstance(now, Mapping):
        was = before.get("text") or before.get("name")
        return f"the run's judge was {was!r}, this is {now.get('text') or now.get('name')!r}"
    return f"the run's {key} was {before!r}, this is {now!r}"


def _dataset_name(described: Mapping[str, Any]) -> str:
    where = described.get("path") or "rows in memory"
    return f"{where} ({described.get('items')} items, sha256 {str(described.get('sha256'))[:12]})"


async def _finish(
    store: RecordStore | None,
    run_id: str | None,
    status: str,
    summary: RunSummary,
    ended_by: BaseException,
) -> None:
    """Record how the run ended early. When the store itself is what failed, this may fail
    too; what ended the run is what the caller sees, with a note."""
    if store is None or run_id is None:
        return
    try:
        await store.finish_run(run_id, status, summary.to_dict())
    except Exception as exc:  # noqa: BLE001 - noted on what the caller sees
        ended_by.add_note(f"the run could not be marked {status!r} either: {exc}")
