"""A batch run for the kill -9 test: `python killed_run.py URL N K [CONCURRENCY]` judges N
items, stores the first K, and blocks on the rest; it prints "stored I" as the I-th
judgment is stored, so the test knows when to kill it, and "commit" as each transaction
commits."""

import asyncio
import signal
import sys

import sqlalchemy as sa
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


async def main(url: str, n: int, k: int, concurrency: int) -> None:
    async with await RecordStore.open(url) as store:
        sa.event.listen(store.engine.sync_engine, "commit", lambda _: print("commit", flush=True))
        await evaluate(
            dataset(n),
            Gate(open_for=k),
            store=store,
            name="killed",
            concurrency=concurrency,
            progress=Announce(),
        )


if __name__ == "__main__":
    concurrency = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), concurrency))
