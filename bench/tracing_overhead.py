"""What tracing costs a judgment: off (the default) it must cost nothing measurable; on, the
cost of its spans.

Measured in one process, one event loop, per judgment:

- `judge.judge(ctx)` awaited directly: the floor, no safety net;
- `run_judge(judge, ctx)`, tracing off;
- a model-backed judge (a criterion judge on `FakeModel`) through `run_judge`, tracing off;
- both again with tracing on, to an SDK provider that keeps no span (the spans are made and
  ended, nothing is exported), when the otel extra is installed.

Run it in this tree and in a checkout from before tracing (PYTHONPATH=OTHER/src) to compare
`run_judge` off with what it cost before. Each figure is the best of `--repeat` rounds of
`--n` judgments (the best is the least disturbed by the machine's other work).

Run: .venv/bin/python bench/tracing_overhead.py [--n 20000] [--repeat 7]
"""

import argparse
import asyncio
import importlib.util
import time
from collections.abc import Awaitable, Callable

from jurist import core
from jurist.core import Context, judge, run_judge
from jurist.judges import CriterionJudge
from jurist.testing import FakeModel

CTX = Context("How long do refunds take?", output="Within 30 days.")


@judge(name="short")
def short(ctx: Context) -> bool:
    return len(ctx.output) < 100


async def best_ns(run: Callable[[], Awaitable[object]], n: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter_ns()
        for _ in range(n):
            await run()
        best = min(best, (time.perf_counter_ns() - started) / n)
    return best


async def measure(n: int, repeat: int) -> list[tuple[str, float]]:
    model_judge = CriterionJudge("States the window", FakeModel({"answer": "yes"}))
    rows = [
        ("judge.judge(ctx), direct", await best_ns(lambda: short.judge(CTX), n, repeat)),
        ("run_judge, tracing off", await best_ns(lambda: run_judge(short, CTX), n, repeat)),
        (
            "run_judge, model-backed, tracing off",
            await best_ns(lambda: run_judge(model_judge, CTX), n // 10, repeat),
        ),
    ]
    if hasattr(core, "tracing") and importlib.util.find_spec("opentelemetry.sdk"):
        from opentelemetry.sdk.trace import TracerProvider

        core.tracing(TracerProvider())
        try:
            rows += [
                ("run_judge, tracing on", await best_ns(lambda: run_judge(short, CTX), n, repeat)),
                (
                    "run_judge, model-backed, tracing on",
                    await best_ns(lambda: run_judge(model_judge, CTX), n // 10, repeat),
                ),
            ]
        finally:
            core.stop_tracing()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rows = asyncio.run(measure(args.n, args.repeat))
    print("| what | µs a judgment |\n| --- | ---: |")
    for name, ns in rows:
        print(f"| {name} | {ns / 1000:.2f} |")


if __name__ == "__main__":
    main()
