"""What a stored run says about itself, read once for the list and the run's page: its kind,
dataset, judge, counts by status, cost and duration; and the viewer's links to it."""

from collections.abc import Callable, Mapping
from typing import Any, get_args
from urllib.parse import quote

from jurist.calibration import REPORT_KEY
from jurist.core import Status
from jurist.store import RecordStore, StoredRun
from jurist.viewer._errors import bad_parameter
from jurist.viewer._paths import PREFIX
from jurist.viewer._run_models import JudgmentStatus, Order, RunKind, RunRow, RunStatus

RUNNING, DONE = "running", "done"
RUN_STATUSES: tuple[str, ...] = get_args(RunStatus)
# A calibration is stored as an eval run that kept its report in its summary.
CALIBRATION, EVAL, TOURNAMENT = "calibration", "eval", "tournament"
KINDS: tuple[str, ...] = get_args(RunKind)
JUDGMENT_STATUSES: tuple[str, ...] = get_args(JudgmentStatus)
if set(JUDGMENT_STATUSES) != {status.value for status in Status}:
    raise AssertionError("the viewer's judgment statuses are not jurist.core.Status's")
MAX_SEARCH = 200


def run_href(run_id: str) -> str:
    return f"{PREFIX}/runs/{quote(run_id, safe='')}"


def item_href(run_id: str, item_id: str) -> str:
    return f"{run_href(run_id)}/items/{quote(item_id, safe='')}"


def run_kind(run: StoredRun) -> str:
    if run.kind == EVAL and isinstance(run.summary, Mapping) and REPORT_KEY in run.summary:
        return CALIBRATION
    return run.kind


def _spec(run: StoredRun, key: str) -> Mapping[str, Any]:
    value = (run.spec or {}).get(key)
    return value if isinstance(value, Mapping) else {}


def run_judge(run: StoredRun) -> str | None:
    """The name of the judge whose judgments are the run's verdicts, as its spec records."""
    name = _spec(run, "judge").get("name")
    return name if isinstance(name, str) else None


def dataset_sha256(run: StoredRun) -> str | None:
    sha = _spec(run, "dataset").get("sha256")
    return sha if isinstance(sha, str) else None


async def run_counts(records: RecordStore, run: StoredRun, judge: str | None) -> dict[str, int]:
    """The judge's judgments by status: from the summary of a finished run (it counted them
    as it finished), counted in the database for one still running or ended early (a resumed
    run goes on from the summary it was interrupted with)."""
    summary = run.summary or {}
    counts = summary.get("counts")
    if run.status == DONE and isinstance(counts, Mapping) and judge == run_judge(run):
        return {str(status): int(n) for status, n in counts.items() if isinstance(n, int) and n}
    return await records.status_counts(run.id, judge)


def in_order(counts: Mapping[str, int]) -> dict[str, int]:
    """Counts by status, pass first, error last (a status no judge writes today after)."""
    rank = {status: place for place, status in enumerate(JUDGMENT_STATUSES)}
    return dict(sorted(counts.items(), key=lambda kept: (rank.get(kept[0], len(rank)), kept[0])))


def run_row(run: StoredRun, counts: dict[str, int]) -> RunRow:
    dataset = _spec(run, "dataset")
    path, items = dataset.get("path"), dataset.get("items")
    cost = (run.summary or {}).get("cost_usd")
    finished = run.status != RUNNING
    return RunRow(
        id=run.id,
        name=run.name,
        kind=run_kind(run),
        status=run.status,
        dataset=path if isinstance(path, str) else None,
        dataset_items=items if isinstance(items, int) else None,
        dataset_sha256=dataset_sha256(run),
        judge=run_judge(run),
        counts=in_order(counts),
        cost_usd=float(cost) if isinstance(cost, int | float) else None,
        duration_seconds=((run.updated_at - run.created_at).total_seconds() if finished else None),
        started=run.created_at,
        href=_page_of(run),
    )


def _page_of(run: StoredRun) -> str:
    """Where a run is best seen: a calibration's report and a tournament's standings have
    pages of their own; any other run is its items."""
    kind = run_kind(run)
    if kind == CALIBRATION:
        return f"{PREFIX}/calibration/{quote(run.id, safe='')}"
    if kind == TOURNAMENT:
        return f"{PREFIX}/tournaments/{quote(run.id, safe='')}"
    return run_href(run.id)


def chosen(name: str, value: str | None, allowed: tuple[str, ...]) -> str | None:
    """A filter's value, checked against what it may be (any case)."""
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if text not in allowed:
        raise bad_parameter(name, f"{value!r} is not one of {', '.join(allowed)}")
    return text


def searched(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    if len(value) > MAX_SEARCH:
        raise bad_parameter("search", f"at most {MAX_SEARCH} characters, got {len(value)}")
    return value.strip()


def ordered(value: str | None, default: Order) -> Order:
    if value is None or not value.strip():
        return default
    if value == "asc":
        return "asc"
    if value == "desc":
        return "desc"
    raise bad_parameter("order", f"{value!r} is not one of asc, desc")


def basename(path: str) -> str:
    """The last part of a path, which the list has room for (the whole is its tooltip)."""
    return path.replace("\\", "/").rstrip("/").rpartition("/")[2] or path


def seconds(value: float) -> str:
    if value < 60:
        return f"{value:.1f} s"
    minutes, rest = divmod(round(value), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def sort_mark(sort: str, order: str) -> Callable[[str], str]:
    """What a sortable column's header shows after its name: the order it is sorted in."""

    def mark(key: str) -> str:
        if key != sort:
            return ""
        return " ▲" if order == "asc" else " ▼"

    return mark


# The helpers the runs' templates call.
FORMATS = {"basename": basename, "seconds": seconds}
