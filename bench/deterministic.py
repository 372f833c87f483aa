"""How fast the deterministic layer judges: judgments per second on one core.

Run: uv run python bench/deterministic.py
"""

import asyncio
import json
import time
from pathlib import Path

from jurist import Context, run_judge
from jurist.judges import ContainsJudge, SchemaJudge
from jurist.jury import Consensus, Jury

EXAMPLES = Path(__file__).parents[1] / "examples"
N = 5000


async def rate(label: str, judge: object, ctx: Context) -> None:
    await run_judge(judge, ctx)  # type: ignore[arg-type]  # warm up
    started = time.perf_counter()
    for _ in range(N):
        await run_judge(judge, ctx)  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started
    print(f"{label:<40} {N / elapsed:>10,.0f} judgments/s  {elapsed / N * 1e6:>8.1f} µs each")


async def main() -> None:
    schema = json.loads((EXAMPLES / "answer.schema.json").read_text())
    good = Context("answer", output=(EXAMPLES / "good-answer.json").read_text())
    bad = Context("answer", output=(EXAMPLES / "bad-answer.json").read_text())
    schema_judge = SchemaJudge(schema)
    contains = ContainsJudge(["refund", "30 days"])
    await rate("SchemaJudge, valid answer", schema_judge, good)
    await rate("SchemaJudge, 2 violations", schema_judge, bad)
    await rate("ContainsJudge, 2 keywords", contains, good)
    await rate(
        "Jury(schema, contains), Consensus", Jury([schema_judge, contains], Consensus()), good
    )


if __name__ == "__main__":
    asyncio.run(main())
