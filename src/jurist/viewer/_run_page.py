"""One run's page: its header and a page of its items, each with every judge's judgment,
filtered, searched, sorted and paged by the database; the items' inputs read again from the
run's dataset file (`_run_inputs`)."""

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from jurist.store import StoredJudgment, StoredRun
from jurist.viewer._context import Looking, Paging
from jurist.viewer._errors import bad_parameter, not_found
from jurist.viewer._run_inputs import RunInputs, clip, run_inputs
from jurist.viewer._run_models import (
    ItemFilters,
    ItemRow,
    ItemSort,
    JudgeCell,
    OtherRun,
    Pages,
    RunView,
)
from jurist.viewer._run_rows import (
    JUDGMENT_STATUSES,
    RUNNING,
    chosen,
    dataset_sha256,
    in_order,
    item_href,
    ordered,
    run_counts,
    run_judge,
    run_row,
    searched,
)

ITEM_SORTS: tuple[ItemSort, ...] = ("item", "score", "status")
OTHER_RUNS = 50


async def readable_run(look: Looking, run: str) -> StoredRun:
    """The run named `run` (id or name), when this viewer may read it; a run it may not read
    is missing, exactly as one that is not there."""
    found = await look.records.get_run(run)
    if found is None or not look.viewer.may_read(found.key_id):
        raise not_found(f"run {run!r}")
    return found


def item_sort(value: str | None) -> ItemSort:
    if value is None or not value.strip() or value == "item":
        return "item"
    if value == "score":
        return "score"
    if value == "status":
        return "status"
    raise bad_parameter("sort", f"{value!r} is not one of {', '.join(ITEM_SORTS)}")


async def run_view(
    look: Looking,
    run: str,
    paging: Paging,
    *,
    judge: str | None,
    status: str | None,
    search: str | None,
    sort: str | None,
    order: str | None,
) -> RunView:
    found = await readable_run(look, run)
    # The dataset file is read (when no version of it is kept) while the database answers;
    # only a search needs the inputs before the items.
    reading = asyncio.create_task(run_inputs(found.spec or {}))
    try:
        return await _view(
            look,
            found,
            paging,
            reading,
            judge=judge,
            status=status,
            search=search,
            sort=sort,
            order=order,
        )
    finally:
        reading.cancel()  # a failed query leaves no read of the file behind


async def _view(
    look: Looking,
    found: StoredRun,
    paging: Paging,
    reading: "asyncio.Task[RunInputs]",
    *,
    judge: str | None,
    status: str | None,
    search: str | None,
    sort: str | None,
    order: str | None,
) -> RunView:
    records = look.records
    judges = await records.judge_names(found.id)
    verdict = run_judge(found) or (judges[0] if len(judges) == 1 else None)
    if judge is not None and judge.strip():
        if judge not in judges:
            known = ", ".join(judges) or "none yet"
            raise bad_parameter("judge", f"no judge {judge!r} in this run (its judges: {known})")
    else:
        judge = None
    filters = ItemFilters(
        judge=judge,
        status=chosen("status", status, JUDGMENT_STATUSES),
        search=searched(search),
        sort=item_sort(sort),
        order=ordered(order, "asc"),
    )
    filtered_by = filters.judge or verdict
    among = None
    if filters.search:
        inputs = await reading
        among = inputs.matching(filters.search) if inputs.contexts else None
    total, ids = await records.run_items(
        found.id,
        judge=filtered_by,
        status=filters.status,
        search=filters.search,
        among=among,
        sort=filters.sort,
        descending=filters.order == "desc",
        limit=paging.per_page,
        offset=paging.offset,
    )
    stored = await records.judgments_of_items(found.id, ids)
    shown = _judge_order(judges, verdict)
    counts = in_order(await records.status_counts(found.id, filtered_by))
    run = run_row(found, await run_counts(records, found, verdict))
    same_dataset = await _same_dataset(look, found)
    inputs = await reading
    return RunView(
        run=run,
        model=_model(found),
        spec=found.spec,
        summary=found.summary,
        finished=None if found.status == RUNNING else found.updated_at,
        verdict_judge=verdict,
        judges=shown,
        counts=counts,
        items=_rows(found.id, ids, stored, inputs),
        paging=Pages(
            page=paging.page,
            per_page=paging.per_page,
            pages=paging.pages(total),
            total=total,
        ),
        filters=filters,
        inputs_note=inputs.note,
        same_dataset=same_dataset,
    )


def _judge_order(judges: Sequence[str], verdict: str | None) -> list[str]:
    # The verdict first, its jury's votes next, then any other judge.
    if verdict is None or verdict not in judges:
        return list(judges)
    votes = [name for name in judges if name.startswith(f"{verdict}/")]
    others = [name for name in judges if name != verdict and name not in votes]
    return [verdict, *votes, *others]


def _model(run: StoredRun) -> str | None:
    model = (run.spec or {}).get("model")
    return model if isinstance(model, str) else None


def _rows(
    run_id: str, ids: Sequence[str], stored: Sequence[StoredJudgment], inputs: RunInputs
) -> list[ItemRow]:
    by_item: dict[str, dict[str, JudgeCell]] = {item: {} for item in ids}
    for judgment in stored:
        if judgment.item_id in by_item:
            by_item[judgment.item_id][judgment.judge] = _cell(judgment)
    rows = []
    for item_id in ids:
        context = inputs.contexts.get(item_id)
        rows.append(
            ItemRow(
                item_id=item_id,
                href=item_href(run_id, item_id),
                goal=None if context is None else clip(context.goal),
                output=None if context is None else clip(context.output_text()),
                judgments=by_item[item_id],
            )
        )
    return rows


def _cell(judgment: StoredJudgment) -> JudgeCell:
    reasoning: Any = judgment.judgment.get("reasoning")
    return JudgeCell(
        status=judgment.status,
        score=judgment.score,
        reasoning=clip(reasoning) if isinstance(reasoning, str) else "",
    )


async def _same_dataset(look: Looking, run: StoredRun) -> list[OtherRun]:
    sha = dataset_sha256(run)
    if sha is None:
        return []
    found = await look.records.dataset_runs(sha, key_id=look.viewer.owner, limit=OTHER_RUNS + 1)
    return [
        OtherRun(id=other.id, name=other.name, started=other.created_at, status=other.status)
        for other in found
        if other.id != run.id
    ][:OTHER_RUNS]


def item_columns(view: RunView) -> Mapping[str, str]:
    """The judges' columns of the items' table: each judge's name as its header shows it
    (a jury member without the jury's name in front)."""
    verdict = view.verdict_judge
    prefix = f"{verdict}/" if verdict else None
    return {
        name: (name[len(prefix) :] if prefix and name.startswith(prefix) else name)
        for name in view.judges
    }
