"""Acceptance criteria asked one per call ("separate") or all in one call ("together").

On SummEval summaries (article as the source, summary as the output) and a few simple
criteria, both modes run on the same model with the response cache off. Printed: model
calls, input and output tokens, wall seconds, and how far the two modes agree (the fraction
of criteria with the same verdict, and the mean |P(yes) difference| where both read one).

Separate mode runs first for every case, then together mode, so neither mode's calls find
the other's prompt in the runtime's prompt cache. Within a case, the separate calls share
their prompt up to the criterion: that is the point of putting the criterion last.

Run: uv run python bench/criteria_modes.py [--cases 8] [--model local:qwen2.5-1.5b] [--reason-first]
"""

import argparse
import asyncio
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from jurist.core import Context, Judgment, Status, Usage
from jurist.judges import CriteriaJudge
from jurist.llm import get_model
from jurist.settings import Settings

DATA = Path(__file__).parents[2] / "shared" / "data" / "calibration" / "summeval-100.jsonl"
GOAL = "Summarise the news article in a few sentences."
CRITERIA = [
    "The summary names the main person or organisation of the article.",
    "Every sentence of the summary is grammatical.",
    "Every statement in the summary is supported by the article.",
    "The summary does not repeat the same information.",
]


def cases(count: int) -> list[Context]:
    """The first summary of each of the first `count` articles."""
    rows = [json.loads(line) for line in DATA.read_text("utf-8").splitlines()]
    seen: set[str] = set()
    chosen = []
    for row in rows:
        if row["doc_id"] not in seen:
            seen.add(row["doc_id"])
            chosen.append(row)
    return [
        Context(GOAL, output=row["output"], context=(row["source"],), metadata={"id": row["id"]})
        for row in chosen[:count]
    ]


@dataclass
class Run:
    mode: str
    results: list[Judgment]
    seconds: float
    per_case: list[float]

    @property
    def usage(self) -> Usage:
        return Usage.total(r.usage for r in self.results) or Usage()

    def rows(self) -> list[dict[str, object]]:
        return [dict(row) for result in self.results for row in result.metadata["criteria"]]


async def run(
    mode: str, contexts: list[Context], spec: str, settings: Settings, *, reason_first: bool
) -> Run:
    model = get_model(spec, settings=settings)
    judge = CriteriaJudge(CRITERIA, model, together=mode == "together", reason_first=reason_first)
    results, per_case = [], []
    started = time.perf_counter()
    for index, ctx in enumerate(contexts, start=1):
        one = time.perf_counter()
        result = await judge.judge(ctx)
        results.append(result)
        per_case.append(time.perf_counter() - one)
        print(
            f"  {mode} {index}/{len(contexts)} {ctx.metadata['id']}: {result.status.value} "
            f"({per_case[-1]:.0f} s)",
            flush=True,
        )
    return Run(mode, results, time.perf_counter() - started, per_case)


def agreement(separate: Run, together: Run) -> tuple[float, float | None, int]:
    pairs = list(zip(separate.rows(), together.rows(), strict=True))
    same = sum(a["status"] == b["status"] for a, b in pairs) / len(pairs)
    gaps = [
        abs(float(a["p_yes"]) - float(b["p_yes"]))  # type: ignore[arg-type]
        for a, b in pairs
        if a["p_yes"] is not None and b["p_yes"] is not None
    ]
    return same, (sum(gaps) / len(gaps) if gaps else None), len(pairs)


def report(runs: list[Run], spec: str, count: int) -> None:
    print(f"\n{count} summaries x {len(CRITERIA)} criteria on {spec}, response cache off\n")
    # The median case is the fairer time on a shared machine: one busy minute elsewhere
    # inflates the total of whichever mode was running then.
    print(
        "| mode | model calls | input tokens | output tokens | wall s | median s per summary "
        "| met | errors |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in runs:
        rows = r.rows()
        met = sum(row["status"] == Status.PASS.value for row in rows)
        errors = sum(row["status"] == Status.ERROR.value for row in rows)
        u = r.usage
        print(
            f"| {r.mode} | {u.calls} | {u.input_tokens} | {u.output_tokens} | "
            f"{r.seconds:.0f} | {statistics.median(r.per_case):.1f} | {met}/{len(rows)} "
            f"| {errors} |"
        )
    same, gap, pairs = agreement(runs[0], runs[1])
    shown = f"{gap:.3f}" if gap is not None else "n/a"
    print(f"\nagreement over {pairs} criteria: same verdict {same:.0%}, mean |P(yes) diff| {shown}")
    print("\nP(yes) per criterion, separate/together, one pair per summary:")
    pairs_by_mode = list(zip(runs[0].rows(), runs[1].rows(), strict=True))
    for position, criterion in enumerate(CRITERIA, start=1):
        values = ", ".join(
            f"{_p(a)}/{_p(b)}" for a, b in pairs_by_mode if a["criterion"] == criterion
        )
        print(f"  {position}. {criterion}\n     {values}")


def _p(row: dict[str, object]) -> str:
    p_yes = row.get("p_yes")
    return f"{p_yes:.2f}" if isinstance(p_yes, float) else "-"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--model", default="local:qwen2.5-1.5b")
    parser.add_argument(
        "--reason-first", action="store_true", help="Ask for the reason before the answer."
    )
    args = parser.parse_args()
    settings = Settings(JURIST_CACHE="0")
    contexts = cases(args.cases)
    runs = [
        await run(mode, contexts, args.model, settings, reason_first=args.reason_first)
        for mode in ("separate", "together")
    ]
    report(runs, args.model, len(contexts))


if __name__ == "__main__":
    asyncio.run(main())
