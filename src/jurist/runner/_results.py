"""What a batch run concluded: every item's judgment, and a summary of them all."""

import csv
import importlib
import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from jurist.core import Context, Judgment, Status, Usage, normalized_score
from jurist.judges import RubricReport
from jurist.runner._columns import (
    as_cell,
    error_cause,
    input_cells,
    input_columns,
    vote_cells,
    vote_columns,
)
from jurist.runner._junit import junit_tree, write_junit
from jurist.runner._votes import members, vote_label, votes_by_item
from jurist.store import StoredJudgment, StoredRun

# The flat columns of an exported result, in order.
COLUMNS = (
    "item_id",
    "judge",
    "status",
    "score",
    "confidence",
    "cause",
    "reasoning",
    "model",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "latency_ms",
)


@dataclass(frozen=True)
class RunSummary:
    """The numbers of a run.

    Counts, pass rate, scores, tokens and cost cover every item's judgment, including those
    a resumed run found stored. `judged`, `wall_seconds` and `items_per_second` describe the
    last session only (what this process judged, in how long); `resumed` counts the items it
    found stored. The pass rate is over decided items (PASS and FAIL): abstentions and errors
    are not failures. Scores are normalised to 0..1; `score_std` is the sample standard
    deviation (as pandas computes it), None below two scores. The cost is None when any
    judgment's cost is unknown, or no judgment reported what it used. `concurrency` holds,
    per provider endpoint called, what its limit on calls in flight did in the session
    (`jurist.llm.ConcurrencyWatch.report`: start, peak and final limit, calls in flight at
    most, calls rate-limited).
    """

    n: int
    counts: Mapping[str, int]
    pass_rate: float | None
    score_mean: float | None
    score_std: float | None
    errors_by_cause: Mapping[str, int]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    judged: int
    resumed: int = 0
    wall_seconds: float | None = None
    items_per_second: float | None = None
    concurrency: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def of(
        cls,
        judgments: Iterable[Judgment],
        *,
        judged: int | None = None,
        resumed: int = 0,
        wall_seconds: float | None = None,
        concurrency: Iterable[Mapping[str, Any]] = (),
    ) -> "RunSummary":
        every = list(judgments)
        statuses = Counter(j.status for j in every)
        decided = statuses[Status.PASS] + statuses[Status.FAIL]
        scores = [s for s in map(normalized_score, every) if s is not None]
        usage = Usage.total(j.usage for j in every)
        judged = len(every) - resumed if judged is None else judged
        return cls(
            n=len(every),
            counts={status.value: statuses[status] for status in Status},
            pass_rate=statuses[Status.PASS] / decided if decided else None,
            score_mean=statistics.fmean(scores) if scores else None,
            score_std=statistics.stdev(scores) if len(scores) > 1 else None,
            errors_by_cause=dict(
                sorted(Counter(error_cause(j) for j in every if j.status is Status.ERROR).items())
            ),
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
            cost_usd=usage.cost_usd if usage else None,
            judged=judged,
            resumed=resumed,
            wall_seconds=wall_seconds,
            items_per_second=(
                judged / wall_seconds if wall_seconds and math.isfinite(wall_seconds) else None
            ),
            concurrency=tuple(concurrency),
        )

    @property
    def errors(self) -> int:
        return self.counts.get(Status.ERROR.value, 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "counts": dict(self.counts),
            "pass_rate": self.pass_rate,
            "score_mean": self.score_mean,
            "score_std": self.score_std,
            "errors_by_cause": dict(self.errors_by_cause),
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "judged": self.judged,
            "resumed": self.resumed,
            "wall_seconds": self.wall_seconds,
            "items_per_second": self.items_per_second,
            "concurrency": [dict(endpoint) for endpoint in self.concurrency],
        }


@dataclass(frozen=True)
class RunResult:
    """A run's judgments by item id (in the dataset's order when the run just ran; in
    item id order when read back from the store) and their summary. `run_id` is None for
    a run that was not stored.

    `inputs` holds each item's Context (what was judged), when known: a stored run's are
    read again from its dataset file (`inputs_note` says why when they cannot be). `votes`
    holds, for a jury's or cascade's run, each member's judgment of each item."""

    run_id: str | None
    name: str | None
    judge: str
    judgments: Mapping[str, Judgment]
    summary: RunSummary
    status: str = "done"
    spec: Mapping[str, Any] = field(default_factory=dict)
    inputs: Mapping[str, Context] = field(default_factory=dict)
    votes: Mapping[str, Mapping[str, Judgment]] = field(default_factory=dict)
    inputs_note: str | None = None

    @property
    def item_ids(self) -> tuple[str, ...]:
        return tuple(self.judgments)

    @classmethod
    def from_stored(cls, run: StoredRun, judgments: Sequence[StoredJudgment]) -> "RunResult":
        """A stored run as a result: its judgments (of the run's judge, when its spec names
        one), summarised afresh, so a run that was interrupted or killed counts what it
        stored; the session numbers come from its stored summary, when it has one."""
        spec = run.spec or {}
        judge_spec = spec.get("judge")
        judge = judge_spec.get("name") if isinstance(judge_spec, Mapping) else None
        chosen = [j for j in judgments if j.item_id is not None and judge in (None, j.judge)]
        by_item: dict[str, Judgment] = {}
        for stored in sorted(chosen, key=lambda j: _natural(j.item_id or "")):
            key = stored.item_id or ""
            if key in by_item:
                raise ValueError(
                    f"run {run.id} holds two judgments of item {key!r} (judges "
                    f"{sorted({j.judge for j in chosen if j.item_id == key})}); name one"
                )
            by_item[key] = stored.to_judgment()
        last = run.summary or {}
        wall = last.get("wall_seconds")
        summary = RunSummary.of(
            by_item.values(),
            judged=int(last.get("judged", len(by_item))),
            resumed=int(last.get("resumed", 0)),
            wall_seconds=float(wall) if isinstance(wall, int | float) else None,
            concurrency=[c for c in last.get("concurrency") or () if isinstance(c, Mapping)],
        )
        names = sorted({j.judge for j in chosen})
        votes = (
            {}
            if judge is None
            else votes_by_item(judge, ((j.item_id, j.judge, j.to_judgment()) for j in judgments))
        )
        return cls(
            run.id,
            run.name,
            judge or "+".join(names),
            by_item,
            summary,
            run.status,
            dict(spec),
            votes={item_id: votes[item_id] for item_id in by_item if item_id in votes},
        )

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per item: the COLUMNS; the item's inputs when known (`goal`,
        `output`, `context` as a list of passages, `reference`, `metadata.KEY`); for a
        jury, `vote.MEMBER` and `vote_score.MEMBER` for each member; then
        `aligned_DIMENSION` for each dimension a saved alignment scored (`jurist align`)."""
        return [
            {
                **_row(item_id, self.judge, judgment),
                **input_cells(self.inputs.get(item_id)),
                **vote_cells(self.votes.get(item_id, {})),
                **_aligned_columns(judgment),
            }
            for item_id, judgment in self.judgments.items()
        ]

    def columns(self) -> list[str]:
        """The COLUMNS, the inputs' and the votes' columns when known, and the aligned
        dimensions' columns any item has."""
        aligned = sorted({key for j in self.judgments.values() for key in _aligned_columns(j)})
        return [
            *COLUMNS,
            *input_columns(self.inputs),
            *vote_columns(members(self.votes)),
            *aligned,
        ]

    def to_pandas(self) -> Any:
        """A pandas DataFrame of `rows()` (pandas is in the `dataframes` extra)."""
        try:
            pandas = importlib.import_module("pandas")
        except ImportError as exc:
            raise ImportError(
                "RunResult.to_pandas needs pandas: pip install 'jurist[dataframes]'"
            ) from exc
        return pandas.DataFrame(self.rows(), columns=self.columns())

    def to_jsonl(self, target: str | Path | IO[str]) -> None:
        """One JSON object per item: the `rows()` columns plus the whole `judgment`."""
        with _opened(target) as out:
            for row, judgment in zip(self.rows(), self.judgments.values(), strict=True):
                line = {**row, "judgment": judgment.to_dict()}
                out.write(json.dumps(line, ensure_ascii=False) + "\n")

    def to_junit(self, target: str | Path | IO[bytes]) -> None:
        """A JUnit XML report (what CI systems show test results from): a test suite of
        the judge's verdicts, one test case per item, and for a jury or cascade one suite
        per member. FAIL is a failure with the reasoning, ERROR an error with its cause,
        ABSTAIN skipped."""
        suites = {
            vote_label(self.judge, member): {
                item: votes[member] for item, votes in self.votes.items() if member in votes
            }
            for member in members(self.votes)
        }
        run = self.name or self.run_id or "jurist eval"
        write_junit(junit_tree(run, self.judge, self.judgments, suites), target)

    def to_csv(self, target: str | Path | IO[str]) -> None:
        """The `columns()`, with a header; an unknown value is an empty cell."""
        with _opened(target) as out:
            writer = csv.DictWriter(out, fieldnames=self.columns(), lineterminator="\n")
            writer.writeheader()
            writer.writerows({k: as_cell(v) for k, v in row.items()} for row in self.rows())


def _row(item_id: str, judge: str, judgment: Judgment) -> dict[str, Any]:
    usage = judgment.usage
    model = judgment.metadata.get("model")
    return {
        "item_id": item_id,
        "judge": judge,
        "status": judgment.status.value,
        "score": normalized_score(judgment),
        "confidence": judgment.confidence,
        "cause": error_cause(judgment) if judgment.status is Status.ERROR else None,
        "reasoning": judgment.reasoning,
        "model": model if isinstance(model, str) else (usage.model if usage else None),
        "input_tokens": usage.input_tokens if usage else 0,
        "output_tokens": usage.output_tokens if usage else 0,
        "cost_usd": usage.cost_usd if usage else None,
        "latency_ms": usage.latency_ms if usage else None,
    }


def _aligned_columns(judgment: Judgment) -> dict[str, float | None]:
    rubric = RubricReport.of(judgment)
    if rubric is None or rubric.aligned is None:
        return {}
    return {f"aligned_{dimension}": value for dimension, value in rubric.aligned.items()}


def _natural(item_id: str) -> tuple[int, int, str]:
    # Line-number ids sort as numbers (2 before 10); other ids after them, as text.
    return (0, int(item_id), "") if item_id.isascii() and item_id.isdigit() else (1, 0, item_id)


@contextmanager
def _opened(target: str | Path | IO[str]) -> Iterator[IO[str]]:
    if isinstance(target, str | Path):
        with Path(target).open("w", encoding="utf-8", newline="") as out:
            yield out
    else:
        yield target
