"""Acceptance criteria against labels a program gives: which way of asking the model is right.

The set (bench/criteria_set.py) is real outputs of the dev sets with four checkable criteria
each, two met and two not, labelled by code. Each configuration judges every output with
CriteriaJudge on the embedded model, response cache off:

  --order answer|reason   the answer before a one-sentence reason, or after it
  --together              all four criteria in one call instead of one call each
  --exact                 the judge's exact pre-checks on (the default judge); off, the
                          model decides every criterion, which is what is measured here

Results are stored one output at a time in bench/results/criteria-TAG.jsonl, so a rerun
resumes. `--report` prints every stored configuration of the same size: accuracy at the
threshold 0.5 and at a threshold chosen out of fold (two folds by output, each fold's
threshold picked on the other), the threshold the whole set would pick, with 95% bootstrap
intervals over outputs, and seconds and calls per criterion; then accuracy by family.

`--coverage` runs no model: how many of the set's criteria the exact checks decide, and
whether they agree with the bench's own labels.

Run: uv run python bench/criteria_modes.py --outputs 16 [--order reason] [--together]
     [--exact] [--model local:qwen2.5-1.5b]
     uv run python bench/criteria_modes.py --outputs 16 --report
     uv run python bench/criteria_modes.py --outputs 200 --coverage
"""

import argparse
import asyncio
import json
import random
import time
from pathlib import Path

from criteria_set import DATA, Case, build

from jurist.core import Context
from jurist.judges import CriteriaJudge, CriteriaReport
from jurist.judges._criterion_checks import exact_verdict
from jurist.llm import get_model
from jurist.settings import Settings

RESULTS = Path(__file__).parent / "results"
GRID = [round(0.05 * k, 2) for k in range(1, 20)]


def tag(order: str, together: bool, exact: bool, outputs: int) -> str:
    return (
        f"{order}-{'together' if together else 'separate'}-{'exact' if exact else 'model'}"
        f"-n{outputs}"
    )


async def judge_case(judge: CriteriaJudge, case: Case) -> dict[str, object]:
    started = time.perf_counter()
    result = await judge.judge(Context(case.goal, output=case.output))
    seconds = time.perf_counter() - started
    report = CriteriaReport.of(result)
    rows = report.criteria if report is not None else ()
    by_text = {row.criterion: row for row in rows}
    return {
        "id": case.id,
        "seconds": seconds,
        "calls": result.usage.calls if result.usage else 0,
        "rows": [
            {
                "criterion": item.criterion,
                "family": item.family,
                "label": item.label,
                "status": by_text[item.criterion].status.value if item.criterion in by_text else "",
                "p_yes": by_text[item.criterion].p_yes if item.criterion in by_text else None,
                "method": by_text[item.criterion].method if item.criterion in by_text else None,
            }
            for item in case.items
        ],
    }


def stored_ids(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {json.loads(line)["id"] for line in path.read_text("utf-8").splitlines()}


async def run(args: argparse.Namespace) -> None:
    path = RESULTS / f"criteria-{tag(args.order, args.together, args.exact, args.outputs)}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    done = stored_ids(path)
    cases = [c for c in build(args.outputs, data=args.data) if c.id not in done]
    model = get_model(args.model, settings=Settings(JURIST_CACHE="0"))
    for index, case in enumerate(cases, start=1):
        judge = CriteriaJudge(
            [item.criterion for item in case.items],
            model,
            together=args.together,
            reason_first=args.order == "reason",
            exact=args.exact,
        )
        row = await judge_case(judge, case)
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
        print(f"{index}/{len(cases)} {case.id}: {row['seconds']:.1f} s", flush=True)


def _decide(row: dict[str, object], threshold: float) -> bool | None:
    p_yes = row["p_yes"]
    if row["method"] == "exact" or not isinstance(p_yes, float):
        status = row["status"]
        return None if status not in ("pass", "fail") else status == "pass"
    return p_yes >= threshold


def accuracy(cases: list[dict], threshold: float) -> float:
    rows = [r for c in cases for r in c["rows"]]
    return sum(_decide(r, threshold) == r["label"] for r in rows) / len(rows)


def best_threshold(cases: list[dict]) -> float:
    return max(GRID, key=lambda t: (accuracy(cases, t), -abs(t - 0.5)))


def out_of_fold(cases: list[dict]) -> float:
    folds = [cases[0::2], cases[1::2]]
    right = total = 0
    for train, test in (folds, folds[::-1]):
        t = best_threshold(train)
        rows = [r for c in test for r in c["rows"]]
        right += sum(_decide(r, t) == r["label"] for r in rows)
        total += len(rows)
    return right / total


def interval(cases: list[dict], statistic, rounds: int = 1000) -> tuple[float, float]:
    rng = random.Random(0)
    values = sorted(statistic([rng.choice(cases) for _ in cases]) for _ in range(rounds))
    return values[int(0.025 * rounds)], values[int(0.975 * rounds) - 1]


def report(outputs: int) -> None:
    print(
        "| configuration | n | accuracy at 0.5 | out-of-fold threshold | whole-set threshold "
        "| s per criterion | calls per criterion |"
    )
    print("| --- | ---: | --- | --- | ---: | ---: | ---: |")
    stored = sorted(RESULTS.glob(f"criteria-*-n{outputs}.jsonl"))
    families: dict[str, dict[str, list[bool]]] = {}
    for path in stored:
        cases = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
        n = sum(len(c["rows"]) for c in cases)
        at_half = accuracy(cases, 0.5)
        low, high = interval(cases, lambda cs: accuracy(cs, 0.5))
        oof = out_of_fold(cases)
        olow, ohigh = interval(cases, out_of_fold, rounds=300)
        seconds = sum(c["seconds"] for c in cases) / n
        calls = sum(c["calls"] for c in cases) / n
        name = path.stem.removeprefix("criteria-")
        print(
            f"| {name} | {n} | {at_half:.2f} [{low:.2f}, {high:.2f}] | {oof:.2f} [{olow:.2f}, "
            f"{ohigh:.2f}] | {best_threshold(cases):.2f} | {seconds:.1f} | {calls:.2f} |"
        )
        per = families.setdefault(name, {})
        for c in cases:
            for r in c["rows"]:
                per.setdefault(r["family"], []).append(_decide(r, 0.5) == r["label"])
    print("\naccuracy at 0.5 by family (right/n):")
    for name, per in families.items():
        shown = ", ".join(f"{f} {sum(v)}/{len(v)}" for f, v in sorted(per.items()))
        print(f"  {name}: {shown}")


def coverage(outputs: int, data: Path) -> None:
    """How much of the set the judge's exact checks decide, and how often they agree with
    the bench's labels (written separately): no model involved."""
    items = [(case, item) for case in build(outputs, data=data) for item in case.items]
    decided: dict[str, list[bool]] = {}
    left: dict[str, int] = {}
    for case, item in items:
        found = exact_verdict(item.criterion, case.output)
        if found is None:
            left[item.family] = left.get(item.family, 0) + 1
        else:
            decided.setdefault(item.family, []).append(found.met == item.label)
    agree = sum(sum(v) for v in decided.values())
    total = sum(len(v) for v in decided.values())
    print(f"{outputs} outputs, {len(items)} criteria: {total} decided exactly, {agree} agree")
    for family in sorted(set(decided) | set(left)):
        got = decided.get(family, [])
        print(
            f"  {family}: {len(got)} decided, {sum(got)} agree, {left.get(family, 0)} to the model"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--outputs", type=int, default=16)
    parser.add_argument("--order", choices=("answer", "reason"), default="answer")
    parser.add_argument("--together", action="store_true")
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--model", default="local:qwen2.5-1.5b")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--report", action="store_true")
    parser.add_argument(
        "--coverage", action="store_true", help="Only compare the exact checks with the labels."
    )
    args = parser.parse_args()
    if args.coverage:
        coverage(args.outputs, args.data)
    elif args.report:
        report(args.outputs)
    else:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
