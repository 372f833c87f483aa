"""Judging a batch on a Dask cluster, beside judging it in the process (`evaluate(cluster=)`).

The client keeps everything a run records: it opens the run, skips what a resumed run has
stored, and records each judgment as it comes back, through the same code as a run in the
process. The cluster only judges. Items go out in partitions, two per worker thread in
flight, so a 10-million-item run never sits in the scheduler's memory; each partition is
about PARTITION_SECONDS of judging at the pace of those before it, and its judgments stream
back (`as_completed`) and are recorded at once.

The judge travels as data: pickled once per run, unpickled once per worker process and kept
there (by its digest), with its model named by spec resolved on the worker through
`get_model`, which builds each model once per process (weights loaded once, clients reused).
A worker runs its partitions on one event loop of its own, so a hosted model's connections
and limits outlive a partition.

A worker that dies loses only the partitions it held: none of their judgments reached the
client, and the scheduler gives them to another worker. The client records an item once,
whatever comes back twice, and the store refuses a second judgment for the same run, item
and judge.
"""

import asyncio
import functools
import hashlib
import importlib.util
import logging
import math
import os
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from jurist.core import Judge, Judgment, JuristError
from jurist.data import Item

if TYPE_CHECKING:
    from distributed import Client


class Completed(Protocol):
    """Records an item's judgment, its votes and, when the run keeps them, its calls."""

    def __call__(
        self,
        item: Item,
        judgment: Judgment,
        votes: dict[str, Judgment],
        /,
        calls: list[dict[str, Any]] | None = None,
    ) -> Awaitable[None]: ...


JudgeAll = Callable[[list[Item], Judge, int, Completed], Awaitable[None]]
Judged = tuple[str, Judgment, dict[str, Judgment], list[dict[str, Any]] | None]
Partition = tuple[float, list[Judged]]  # the seconds a worker took, and its judgments

CLUSTER_FORMS = "local:N (N worker processes on this machine) or tcp://HOST:PORT (a scheduler)"
INSTALL = "pip install 'jurist[cluster]'"
# How long joining a running cluster waits for its scheduler, and then for a first worker.
CONNECT_TIMEOUT_S = 30.0
# A partition holds at most this many rounds of a worker's concurrency (enough that its last
# slow item rarely idles the worker) and about this many seconds of judging, once the first
# partitions have shown how fast items go: a lost worker loses that much work, whatever the
# model (a hosted one judges thousands of items in it, the embedded one a few).
ROUNDS_PER_PARTITION = 4
PARTITION_SECONDS = 30.0
# Partitions in flight per worker thread: one judged, one waiting, so no worker waits for
# the client between partitions.
IN_FLIGHT_PER_THREAD = 2
# Judges a long-lived worker keeps, by digest (the runs of several clients).
KEPT_JUDGES = 8


class ClusterError(JuristError, ValueError):
    """A cluster named in none of the forms, one that cannot be reached, a judge that
    cannot be sent to it, or Dask not installed; the message says which and how to fix it."""


@dataclass(frozen=True)
class Cluster:
    """Where a batch is judged: `workers` processes of a LocalCluster started for the run,
    or the running scheduler at `address`."""

    text: str
    workers: int | None = None
    address: str | None = None

    @classmethod
    def parse(cls, text: str) -> "Cluster":
        """The cluster `text` names: local, local:N or tcp://HOST:PORT (tls:// too)."""
        given = text.strip()
        if given == "local":
            return cls(given, workers=os.cpu_count() or 1)
        if given.startswith("local:"):
            count = given.removeprefix("local:")
            if not count.isdigit() or int(count) < 1:
                raise ClusterError(
                    f"cluster {text!r}: N in local:N is a number of worker processes >= 1"
                )
            return cls(given, workers=int(count))
        scheme, _, rest = given.partition("://")
        if scheme in ("tcp", "tls") and rest and not any(c.isspace() for c in rest):
            return cls(given, address=given)
        raise ClusterError(f"cluster {text!r} is none of the forms: {CLUSTER_FORMS}")


def require_dask() -> None:
    """ClusterError naming the extra to install when Dask's distributed is missing."""
    if importlib.util.find_spec("distributed") is None:
        raise ClusterError(f"judging on a cluster needs Dask: {INSTALL}")


def check_cluster(text: str) -> Cluster:
    """The cluster `text` names, once Dask is known to be installed (ClusterError if not)."""
    target = Cluster.parse(text)
    require_dask()
    return target


def on_cluster(cluster: str, judge_all: JudgeAll) -> JudgeAll:
    """`judge_all` moved onto `cluster`: the same call, with the items judged by the
    cluster's workers (each with `judge_all`) and `completed` called here."""
    return functools.partial(judge_on_cluster, cluster=cluster, judge_all=judge_all)


async def judge_on_cluster(
    todo: Sequence[Item],
    judge: Judge,
    concurrency: int,
    completed: Completed,
    *,
    cluster: str,
    judge_all: JudgeAll,
) -> None:
    """Judge `todo` on `cluster`, each worker `concurrency` items at a time with the
    engine's own `judge_all`; `completed` records each judgment here, once per item."""
    target = check_cluster(cluster)
    if not todo:  # a resumed run that has every item: no cluster to start or join
        return
    from distributed import as_completed

    payload = _pickled(judge)
    digest = hashlib.sha256(payload).hexdigest()
    waiting = {item.id: item for item in todo}
    async with _client(target) as client:
        threads = _threads(client)
        parts = Partitions(todo, concurrency, threads)
        token = uuid.uuid4().hex[:12]
        count = 0

        def submit() -> Any | None:
            nonlocal count
            part = parts.next()
            if not part:
                return None
            count += 1
            return client.submit(
                judge_partition,
                payload,
                digest,
                part,
                concurrency,
                judge_all,
                key=f"jurist-partition-{token}-{count}",
                pure=False,
            )

        first = [f for f in (submit() for _ in range(IN_FLIGHT_PER_THREAD * threads)) if f]
        flow = as_completed(first)
        async for future in flow:
            seconds, judged = await future
            future.release()
            parts.took(len(judged), seconds)
            for item_id, judgment, votes, calls in judged:
                item = waiting.pop(item_id, None)
                if item is not None:  # a partition judged twice is recorded once
                    await completed(item, judgment, votes, calls)
            following = submit()
            if following is not None:
                flow.add(following)


class Partitions:
    """The items cut into partitions as they are sent: the first one round of a worker's
    concurrency, the next sized to about PARTITION_SECONDS at the pace the finished ones
    went, never more than ROUNDS_PER_PARTITION rounds, nor more than a thread's share of the
    items (so every worker thread gets some of a short run)."""

    def __init__(self, items: Sequence[Item], concurrency: int, threads: int) -> None:
        self._items = items
        self._sent = 0
        self._most = max(1, min(ROUNDS_PER_PARTITION * concurrency, -(-len(items) // threads)))
        self.size = min(concurrency, self._most)

    def next(self) -> list[Item]:
        part = list(self._items[self._sent : self._sent + self.size])
        self._sent += len(part)
        return part

    def took(self, items: int, seconds: float) -> None:
        """A worker judged `items` in `seconds`: size the next partitions by that pace."""
        if items and seconds > 0:
            paced = math.floor(items * PARTITION_SECONDS / seconds)
            self.size = max(1, min(paced, self._most))


def _pickled(judge: Judge) -> bytes:
    import cloudpickle  # Dask's own; it also sends judges built around lambdas

    try:
        return bytes(cloudpickle.dumps(judge))
    except Exception as exc:
        raise ClusterError(
            f"the judge {getattr(judge, 'name', judge)!r} cannot be sent to the cluster's "
            f"workers: it does not pickle ({type(exc).__name__}: {exc})"
        ) from exc


@asynccontextmanager
async def _client(target: Cluster) -> AsyncIterator["Client"]:
    from distributed import Client, LocalCluster

    if target.workers is not None:
        async with (
            LocalCluster(
                n_workers=target.workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                scheduler_kwargs={"dashboard": False},
                asynchronous=True,
                silence_logs=logging.ERROR,
                env=_worker_env(target.workers),
            ) as local,
            Client(local, asynchronous=True) as client,
        ):
            await client.wait_for_workers(target.workers)
            yield client
        return
    try:
        client = await Client(target.address, asynchronous=True, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cluster {target.text}: cannot reach its scheduler: {exc}") from exc
    async with client:
        try:
            await client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except TimeoutError as exc:
            raise ClusterError(
                f"cluster {target.text}: no worker joined in {CONNECT_TIMEOUT_S:.0f} s"
            ) from exc
        yield client


def _worker_env(workers: int) -> dict[str, str]:
    """The embedded model's threads, shared out between the workers of one machine (unless
    set), so that N workers do not each take every core."""
    if os.environ.get("JURIST_LOCAL_THREADS"):
        return {}
    return {"JURIST_LOCAL_THREADS": str(max(1, (os.cpu_count() or 1) // workers))}


def _threads(client: "Client") -> int:
    info = client.scheduler_info()
    workers = info.get("workers", {}) if isinstance(info, dict) else {}
    return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))


# On a worker process: the judges it was sent (by digest) and the event loop it judges on.
_judges: OrderedDict[str, Judge] = OrderedDict()
_worker_lock = threading.Lock()
_worker_loop: asyncio.AbstractEventLoop | None = None


def judge_partition(
    payload: bytes, digest: str, items: list[Item], concurrency: int, judge_all: JudgeAll
) -> Partition:
    """On a worker: judge `items` with the judge pickled in `payload`, `concurrency` at a
    time on the worker's loop; the seconds it took, and each item's judgment and votes."""
    started = time.perf_counter()
    judge = _worker_judge(payload, digest)
    done: list[Judged] = []

    async def collect(
        item: Item,
        judgment: Judgment,
        votes: dict[str, Judgment],
        /,
        calls: list[dict[str, Any]] | None = None,
    ) -> None:
        done.append((item.id, judgment, votes, calls))

    async def judge_items() -> None:
        await judge_all(items, judge, concurrency, collect)

    asyncio.run_coroutine_threadsafe(judge_items(), _loop()).result()
    return time.perf_counter() - started, done


def _worker_judge(payload: bytes, digest: str) -> Judge:
    import cloudpickle

    with _worker_lock:
        judge = _judges.get(digest)
        if judge is None:
            judge = _judges[digest] = cloudpickle.loads(payload)
            while len(_judges) > KEPT_JUDGES:
                _judges.popitem(last=False)
        _judges.move_to_end(digest)
        return judge


def _loop() -> asyncio.AbstractEventLoop:
    global _worker_loop  # noqa: PLW0603 - one loop per worker process, started on first use
    with _worker_lock:
        if _worker_loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="jurist-judging", daemon=True).start()
            _worker_loop = loop
        return _worker_loop
