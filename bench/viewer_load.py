"""How fast the viewer opens a large run: a SQLite store is seeded with a run of `--items`
(10,000) judged items (a dataset file written, then judged by `jurist.runner.evaluate` with a
jury of two criterion judges over FakeModels that answer at once: three stored judgments an
item, the verdict and its two votes), the viewer of `jurist view` is started on 127.0.0.1,
and each page is loaded `--loads` (9) times.

Time to first render: from sending the request to having the whole HTML of the page (what
the browser renders from; its one stylesheet and script are cached after the first page).
The first load of a run's page also reads the dataset file again for the items' inputs
(cached by the viewer per file version after it): `first` shows it apart, `median` and
`max` are over every load. With `--browser`, headless Chromium's DOMContentLoaded of each
page (navigation start to the event, the assets included) is measured the same way. The
target is under one second for each page.

Pages: the runs list; the run's first page of items; a page filtered by status (FAIL); a
search of a word found in some items' inputs only; both; the run's middle page; and the
run's JSON twin.

The machine's other load shows in every figure: run it alone, under the bench lock on a
shared machine: flock /tmp/jurist-bench.lock python bench/viewer_load.py

Printed: a markdown table with the machine and the command (`--json`: one JSON object
instead); appended: one JSON line per page to bench/results/viewer_load.jsonl.

Run: python bench/viewer_load.py [--items 10000] [--loads 9] [--browser] [--json]
"""

import argparse
import asyncio
import datetime
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx
import uvicorn
from machine_info import machine

from jurist.core import Judge
from jurist.judges import CriterionJudge
from jurist.jury import ErrorPolicy, Jury, Majority
from jurist.runner import evaluate
from jurist.store import RecordStore
from jurist.testing import FakeModel, Reply
from jurist.viewer import create_viewer_app

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "viewer_load.jsonl"
CHROMIUM = Path("/usr/bin/chromium")
MARKER = "kumquat"  # in the output of every 50th item only
TARGET_S = 1.0


@dataclass(frozen=True)
class Row:
    page: str
    path: str
    loads: int
    first_ms: float
    median_ms: float
    max_ms: float
    bytes: int
    browser_median_ms: float | None = None
    browser_max_ms: float | None = None


def write_dataset(path: Path, count: int) -> Path:
    """Every third item states the refund window (PASS), every seventh is BROKEN (its model
    fails: ERROR), the rest FAIL."""
    with path.open("w", encoding="utf-8") as out:
        for number in range(1, count + 1):
            if number % 7 == 0:
                output = "BROKEN answer"
            elif number % 3 == 0:
                output = f"Refunds are accepted within 30 days, thank you (case {number})."
            else:
                output = f"We cannot say when (case {number})."
            if number % 50 == 0:
                output += f" A {MARKER} was mentioned."
            goal = f"How long do I have to return order {number}?"
            out.write(json.dumps({"id": str(number), "goal": goal, "output": output}) + "\n")
    return path


def _answers(says: Callable[[str], bool]) -> Callable[[str], Reply]:
    def answer(prompt: str) -> Reply:
        if "BROKEN" in prompt:
            return RuntimeError("the fake model broke on purpose")
        return {"answer": "yes" if says(prompt) else "no", "reason": "As the answer reads."}

    return answer


def jury() -> Judge:
    refund = CriterionJudge(
        "The answer states the refund window",
        FakeModel(_answers(lambda p: "30 days" in p)),
        name="refund",
    )
    polite = CriterionJudge(
        "The answer is polite", FakeModel(_answers(lambda p: "thank you" in p)), name="polite"
    )
    return Jury([refund, polite], Majority(errors=ErrorPolicy.PROPAGATE), name="panel")


async def seed(url: str, dataset: Path) -> str:
    async with await RecordStore.open(url) as store:
        result = await evaluate(dataset, jury(), store=store, name="large", concurrency=64)
    assert result.run_id is not None
    return result.run_id


class Viewer:
    """`jurist view`'s application under uvicorn in a thread, on a port the kernel picks."""

    def __init__(self, database: str) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        config = uvicorn.Config(
            create_viewer_app(database), log_config=None, access_log=False, lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        while not self.server.started:  # waiting for start-up, not timing anything
            if not self.thread.is_alive():
                raise RuntimeError("the viewer did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def pages(run: str, items: int) -> list[tuple[str, str]]:
    at = f"/view/runs/{run}"
    middle = max(1, items // 100)  # of 50 items a page
    return [
        ("runs list", "/view/runs"),
        ("run, page 1", at),
        ("run, status=fail", f"{at}?status=fail"),
        (f"run, search={MARKER}", f"{at}?search={MARKER}"),
        ("run, fail + search", f"{at}?status=fail&search={MARKER}"),
        (f"run, page {middle}", f"{at}?page={middle}"),
        ("run JSON", f"/view/api/runs/{run}"),
    ]


def load_times(client: httpx.Client, path: str, loads: int) -> tuple[list[float], int]:
    seconds, size = [], 0
    for _ in range(loads):
        started = time.perf_counter()
        answer = client.get(path)
        answer.read()
        seconds.append(time.perf_counter() - started)
        if answer.status_code != 200:
            raise RuntimeError(f"{path} answered {answer.status_code}: {answer.text[:300]}")
        size = len(answer.content)
    return seconds, size


def browser_times(url: str, paths: Sequence[str], loads: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright  # only with --browser

    found: dict[str, list[float]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for path in paths:
            for _ in range(loads):
                page.goto(url + path, wait_until="domcontentloaded")
                ms = page.evaluate(
                    "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
                )
                found.setdefault(path, []).append(float(ms) / 1000)
        browser.close()
    return found


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--loads", type=int, default=9)
    parser.add_argument("--browser", action="store_true", help="also in headless Chromium")
    parser.add_argument("--json", action="store_true", help="one JSON object, no table")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="jurist-viewer-bench-") as directory:
        where = Path(directory)
        database = f"sqlite:///{where / 'runs.sqlite3'}"
        dataset = write_dataset(where / "large.jsonl", args.items)
        started = time.perf_counter()
        run = asyncio.run(seed(database, dataset))
        seeded_s = time.perf_counter() - started
        viewer = Viewer(database)
        try:
            paths = [path for _, path in pages(run, args.items)]
            with httpx.Client(base_url=viewer.url, timeout=60) as client:
                measured = {path: load_times(client, path, args.loads) for path in paths}
            in_browser = browser_times(viewer.url, paths, args.loads) if args.browser else {}
        finally:
            viewer.stop()

    rows = []
    for name, path in pages(run, args.items):
        seconds, size = measured[path]
        shown = in_browser.get(path)
        rows.append(
            Row(
                page=name,
                path=path.replace(run, "RUN"),
                loads=len(seconds),
                first_ms=round(seconds[0] * 1000, 1),
                median_ms=round(statistics.median(seconds) * 1000, 1),
                max_ms=round(max(seconds) * 1000, 1),
                bytes=size,
                browser_median_ms=round(statistics.median(shown) * 1000, 1) if shown else None,
                browser_max_ms=round(max(shown) * 1000, 1) if shown else None,
            )
        )
    report(rows, args, seeded_s)


def report(rows: list[Row], args: argparse.Namespace, seeded_s: float) -> None:
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    command = "python bench/viewer_load.py " + " ".join(sys.argv[1:])
    every = {
        "at": when,
        "machine": machine(),
        "command": command.strip(),
        "items": args.items,
        "judgments": args.items * 3,
        "seed_seconds": round(seeded_s, 1),
        "target_ms": TARGET_S * 1000,
        "pages": [asdict(row) for row in rows],
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        for row in rows:
            line = {"at": when, "machine": every["machine"], "items": args.items, **asdict(row)}
            out.write(json.dumps(line) + "\n")
    if args.json:
        print(json.dumps(every, indent=2))
        return
    print(
        f"viewer load: a run of {args.items} items ({args.items * 3} judgments), seeded in "
        f"{seeded_s:.1f} s; {args.loads} loads a page"
    )
    print(f"machine: {every['machine']}")
    print(f"command: {every['command']}\n")
    browser = args.browser
    head = "| page | first ms | median ms | max ms | KiB |"
    line = "|---|---:|---:|---:|---:|"
    if browser:
        head += " Chromium DOMContentLoaded median / max ms |"
        line += "---:|"
    print(head)
    print(line)
    for row in rows:
        times = f"{row.first_ms} | {row.median_ms} | {row.max_ms}"
        cells = f"| {row.page} | {times} | {row.bytes // 1024} |"
        if browser:
            cells += f" {row.browser_median_ms} / {row.browser_max_ms} |"
        print(cells)
    slow = [row.page for row in rows if row.max_ms > TARGET_S * 1000]
    print(f"\nover {TARGET_S:.0f} s: {', '.join(slow) if slow else 'none'}")


if __name__ == "__main__":
    main()
