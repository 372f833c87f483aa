"""A batch run for the kill -9 test: `python killed_run.py URL N K` judges N items, stores
the first K, and blocks on the rest; it prints "stored I" as the I-th judgment is stored,
so the test knows when to kill it."""

import asyncio
import signal
import sys

from batch_fakes import Gate, dataset

from jurist import Judgment
from jurist.runner import evaluate
from jurist.store import RecordStore

# A parent started in the background (nohup, `&` in a script) hands its children SIGINT
# ignored, and Python then never raises KeyboardInterrupt. This script stands for a
# command a user stops with Ctrl-C in a terminal, so it takes SIGINT back.
signal.signal(signal.SIGINT, signal.default_int_handler)


class Announce:
    def __init__(self) -> None:
        self.stored = 0

    def start(self, *, total: int, done: int, run: str | None) -> None:
        print(f"started {run}", flush=True)

    def advance(self, item_id: str, judgment: Judgment) -> None:
        self.stored += 1
        print(f"stored {self.stored}", flush=True)

    def finish(self) -> None:
        pass


async def main(url: str, n: int, k: int) -> None:
    async with await RecordStore.open(url) as store:
        await evaluate(
            dataset(n),
            Gate(open_for=k),
            store=store,
            name="killed",
            concurrency=4,
            progress=Announce(),
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
