"""Two runs of one dataset compared item by item: both verdicts of each item, what changed
(status flips first, then the scores that moved most), the count of each change, one page
at a time, computed by the database (`RecordStore.compare_runs`)."""

from pydantic import BaseModel

from jurist.store import RecordStore, StoredRun
from jurist.viewer._context import Paging
from jurist.viewer._errors import ViewerError, bad_parameter
from jurist.viewer._item_view import RunRef, run_ref

CHANGE_FILTERS = ("all", "changed", "status", "score", "added", "removed", "same")


class CompareRow(BaseModel):
    item_id: str
    change: str  # status, score, added (only in B), removed (only in A), same
    status_a: str | None
    status_b: str | None
    score_a: float | None
    score_b: float | None
    delta: float | None  # B's score minus A's


class Comparison(BaseModel):
    a: RunRef
    b: RunRef
    same_dataset: bool
    only: str
    changes: dict[str, int]
    flips: dict[str, int]  # "pass→fail": how many items
    total: int  # items the filter holds
    page: int
    per_page: int
    pages: int
    rows: list[CompareRow]


async def compare(
    records: RecordStore, a: StoredRun, b: StoredRun, *, only: str, force: bool, paging: Paging
) -> Comparison:
    if only not in CHANGE_FILTERS:
        raise bad_parameter("only", f"one of {', '.join(CHANGE_FILTERS)}, not {only!r}")
    left, right = run_ref(a), run_ref(b)
    same = left.dataset_sha256 is not None and left.dataset_sha256 == right.dataset_sha256
    if not same and not force:
        raise ViewerError(
            422,
            f"runs {_named(left)} and {_named(right)} judged different datasets "
            f"({_sha(left)} and {_sha(right)}): add force=1 to compare them item by item "
            "anyway",
        )
    judges: list[str] = []
    for side, run in (("a", left), ("b", right)):
        if run.judge is None:
            raise bad_parameter(side, f"run {_named(run)} does not name its judge")
        judges.append(run.judge)
    found = await records.compare_runs(
        (a.id, judges[0]),
        (b.id, judges[1]),
        only=only,
        limit=paging.per_page,
        offset=paging.offset,
    )
    return Comparison(
        a=left,
        b=right,
        same_dataset=same,
        only=only,
        changes=found.changes,
        flips=found.flips,
        total=found.total,
        page=paging.page,
        per_page=paging.per_page,
        pages=paging.pages(found.total),
        rows=[
            CompareRow(
                item_id=item.item_id,
                change=item.change,
                status_a=item.status_a,
                status_b=item.status_b,
                score_a=item.score_a,
                score_b=item.score_b,
                delta=item.delta,
            )
            for item in found.items
        ],
    )


def _named(run: RunRef) -> str:
    return repr(run.name or run.id)


def _sha(run: RunRef) -> str:
    return f"sha256 {run.dataset_sha256[:12]}" if run.dataset_sha256 else "no dataset recorded"
