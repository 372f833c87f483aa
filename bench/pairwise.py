"""Pairwise position bias on human-rated summaries, before and after calibration.

Pairs come from the shipped SummEval calibration set (four summaries per
document): within each of the first `--docs` documents, every two summaries whose human
scores, averaged over the four dimensions, differ by at least `--margin`; the human prefers
the higher. Which one is output A alternates from pair to pair (the preferred one is A in
the first pair, B in the second, ...), so a judge that always picks the first-shown output
scores 50 % with A shown first, not the share of one label.

PairwiseJudge compares each pair in both orders against the instruction "Summarise the
article.", with the article as the source both summaries work from (shown first, so both
orders share the prompt prefix). The run is stored (`pairwise-MODEL-docsN-marginM`) one pair at a
time, so a rerun resumes and only judges what is missing. Printed: the position bias, the
first-position preference, the position consistency and the accuracy against the humans,
before and after the leave-one-document-out calibration of jurist.calibration.position_report.

Run: uv run python bench/pairwise.py [--docs 10] [--margin 1.0]
     [--model local:qwen2.5-1.5b] [--database URL]
"""

import argparse
import asyncio
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from jurist.calibration import (
    PositionLabel,
    PositionPair,
    PositionReport,
    position_report,
)
from jurist.data import (
    Dataset,
    DatasetKind,
    FieldMap,
    dataset_from_rows,
    load_labelled,
    summeval_100_path,
)
from jurist.judges import PairwiseJudge
from jurist.judges._pairwise import OUTPUT_B
from jurist.llm import Model
from jurist.runner import (
    BarProgress,
    JudgeChoice,
    Progress,
    RunResult,
    evaluate,
)
from jurist.settings import get_settings
from jurist.store import RecordStore

DATA = summeval_100_path()  # the calibration set shipped in the package
INSTRUCTION = "Summarise the article."
# The human scores are means of three experts kept to four decimals (1.3333), so two
# summaries meant to differ by exactly the margin can fall short of it by rounding.
_ROUNDING = 1e-3


@dataclass(frozen=True)
class SummaryPair:
    """Two summaries of one article and which of them the humans rated higher."""

    id: str
    doc_id: str
    article: str
    output_a: str
    output_b: str
    label: PositionLabel
    difference: float  # |human mean of A - human mean of B|


def build_pairs(path: Path, *, docs: int = 10, margin: float = 1.0) -> list[SummaryPair]:
    """The pairs of the first `docs` documents (in file order) whose human means differ by
    at least `margin`."""
    if docs < 1:
        raise ValueError(f"--docs must be at least 1, got {docs}")
    if margin <= 0:
        raise ValueError(
            f"--margin must be above 0 (a pair needs a preferred summary), got {margin}"
        )
    by_doc: dict[str, list[tuple[str, str, str, float]]] = {}
    for item in load_labelled(path, DatasetKind.RATINGS).ratings:
        mean = sum(item.human_scores.values()) / len(item.human_scores)
        by_doc.setdefault(item.doc_id, []).append((item.id, item.source, item.output, mean))
    pairs: list[SummaryPair] = []
    for doc_id, summaries in list(by_doc.items())[:docs]:
        for first, second in itertools.combinations(summaries, 2):
            difference = abs(first[3] - second[3])
            if difference < margin - _ROUNDING:
                continue
            better, worse = (first, second) if first[3] > second[3] else (second, first)
            a, b = (better, worse) if len(pairs) % 2 == 0 else (worse, better)
            pairs.append(
                SummaryPair(
                    id=f"{a[0]}-vs-{b[0]}",
                    doc_id=doc_id,
                    article=better[1],
                    output_a=a[2],
                    output_b=b[2],
                    label="A" if a is better else "B",
                    difference=difference,
                )
            )
    return pairs


def run_name(model: str, docs: int, margin: float) -> str:
    slug = re.sub(r"[^a-z0-9.]+", "-", model.lower()).strip("-")
    return f"pairwise-{slug}-docs{docs}-margin{margin:g}"


def pair_dataset(pairs: list[SummaryPair]) -> Dataset:
    """The pairs as rows the runner judges: A as the output, B in the metadata, the article
    as the context (the source both summaries work from)."""
    rows = [
        {
            "id": pair.id,
            "goal": INSTRUCTION,
            "output": pair.output_a,
            "context": pair.article,
            OUTPUT_B: pair.output_b,
        }
        for pair in pairs
    ]
    return dataset_from_rows(rows, FieldMap({f"metadata.{OUTPUT_B}": OUTPUT_B}))


def position_pairs(
    pairs: list[SummaryPair], run: RunResult
) -> tuple[list[PositionPair], dict[str, str]]:
    """Each judged pair's two readings; and, per pair left out, why (an error, or an answer
    without token probabilities)."""
    found: list[PositionPair] = []
    skipped: dict[str, str] = {}
    for pair in pairs:
        judgment = run.judgments.get(pair.id)
        if judgment is None:
            skipped[pair.id] = "not judged"
            continue
        orders = judgment.metadata.get("orders")
        if orders is None:  # an error, or a pair the judge could not compare
            first_line = (judgment.reasoning or "").splitlines()[:1]
            skipped[pair.id] = f"{judgment.status}: {''.join(first_line) or 'no reason given'}"
            continue
        try:
            found.append(PositionPair.from_orders(pair.doc_id, pair.label, orders))
        except ValueError as exc:
            skipped[pair.id] = str(exc)
    return found, skipped


@dataclass(frozen=True)
class BenchResult:
    """The stored run, the pairs it judged, the pairs left out of the report (and why), and
    the position report of the rest."""

    run: RunResult
    pairs: list[SummaryPair]
    skipped: dict[str, str]
    report: PositionReport


async def run_bench(
    *,
    data: Path = DATA,
    docs: int = 10,
    margin: float = 1.0,
    model: Model | str | None = None,
    database: str | None = None,
    n_boot: int = 1000,
    progress: Progress | None = None,
) -> BenchResult:
    """Judge the pairs (resuming the stored run of the same name) and report."""
    pairs = build_pairs(data, docs=docs, margin=margin)
    if model is None:
        model_name = get_settings().model
    else:
        model_name = model if isinstance(model, str) else model.name
    documents = {pair.doc_id for pair in pairs}
    if len(documents) < 2:
        raise ValueError(
            f"--docs {docs} --margin {margin:g}: the pairs come from {len(documents)} "
            "document(s); the leave-one-document-out calibration needs at least 2"
        )
    # The direct answer alone: this bench measures its position bias and its calibration.
    judge = PairwiseJudge(model_name if model is None else model, method="direct")
    choice = JudgeChoice(
        judge,
        text="pairwise",
        form="pairwise",
        model=model_name,
        details={"both_orders": judge.both_orders, "template": judge.template.name},
    )
    name = run_name(model_name, docs, margin)
    async with await RecordStore.open(database) as store:
        exists = await store.get_run(name) is not None
        run = await evaluate(
            pair_dataset(pairs),
            choice,
            concurrency=1,
            store=store,
            name=None if exists else name,
            run=name if exists else None,
            resume=exists,
            progress=progress,
        )
    readings, skipped = position_pairs(pairs, run)
    read_documents = {reading.group for reading in readings}
    if len(read_documents) < 2:
        first = next(iter(skipped.items()), None)
        example = f"; the first left out: {first[0]}: {first[1]}" if first else ""
        raise ValueError(
            f"run {run.name}: {len(readings)} of {len(pairs)} pairs have both orders' "
            f"probabilities, from {len(read_documents)} document(s); the calibration needs "
            f"at least 2{example}"
        )
    report = position_report(readings, n_boot=n_boot)
    return BenchResult(run, pairs, skipped, report)


def render(result: BenchResult, *, model: str, docs: int, margin: float) -> str:
    lines = [
        f"SummEval, first {docs} documents, pairs differing by >= {margin:g} in the human "
        f"mean: {len(result.pairs)} pairs, {model}, run {result.run.name}",
        "",
        result.report.to_markdown(title="Pairwise position bias (leave-one-document-out)"),
    ]
    if result.skipped:
        lines.append(f"Left out {len(result.skipped)} pairs:")
        lines += [f"- {pair_id}: {why}" for pair_id, why in result.skipped.items()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--docs", type=int, default=10, help="the first N documents of the file (default 10)"
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=1.0,
        help="the least difference of the human means that makes a pair (default 1.0)",
    )
    parser.add_argument("--model", default=get_settings().model, help="(default %(default)s)")
    parser.add_argument("--data", type=Path, default=DATA, help="(default %(default)s)")
    parser.add_argument("--database", default=None, help="(default: jurist's store)")
    args = parser.parse_args()
    try:
        result = asyncio.run(
            run_bench(
                data=args.data,
                docs=args.docs,
                margin=args.margin,
                model=args.model,
                database=args.database,
                progress=BarProgress(),
            )
        )
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    print(render(result, model=args.model, docs=args.docs, margin=args.margin))


if __name__ == "__main__":
    main()
