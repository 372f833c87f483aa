"""Batches on a Dask cluster: items judged by worker processes, every judgment recorded once
by the client, a worker killed mid-run losing nothing, and a run resumed on a cluster."""

import asyncio
import logging
import os
import pickle
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_fakes import Gate, dataset
from cluster_fakes import Stall, Where, unpickled
from distributed import Client, LocalCluster
from test_engine import interrupt_after

from jurist.judges import CriterionJudge
from jurist.runner import Cluster, ClusterError, check_cluster, evaluate
from jurist.store import RecordStore

DEADLINE_S = 120  # a guard against a hung cluster, not a timing assumption


@pytest.fixture(scope="module")
def cluster() -> Iterator[Client]:
    """Two worker processes on 127.0.0.1, shared by the tests of this module; a sync client
    to look into the workers."""
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False},
            silence_logs=logging.ERROR,
        ) as local,
        Client(local) as client,
    ):
        client.wait_for_workers(2)
        yield client


def address(client: Client) -> str:
    return str(client.scheduler.address)


def worker_pids(client: Client) -> set[int]:
    return set(client.run(os.getpid).values())


async def appeared(path: Path) -> None:
    """Once `path` exists: a worker wrote it (polled, since it is another process)."""
    while not await asyncio.to_thread(path.exists):  # noqa: ASYNC110 - across processes
        await asyncio.sleep(0.05)


async def stored_counts(store: RecordStore, run: str) -> Counter[str | None]:
    return Counter(s.item_id for s in await store.run_judgments(run))


async def test_items_are_judged_by_the_workers_and_recorded_once_each(cluster, records):
    n = 24
    result = await evaluate(
        dataset(n),
        Where(),
        store=records,
        name="on-cluster",
        concurrency=2,
        cluster=address(cluster),
    )
    assert result.run_id is not None
    assert await stored_counts(records, result.run_id) == Counter(str(i) for i in range(1, n + 1))
    assert list(result.judgments) == [str(i) for i in range(1, n + 1)]
    assert result.summary.counts == {"pass": 12, "fail": 12, "abstain": 0, "error": 0}
    judged_by = {j.metadata["pid"] for j in result.judgments.values()}
    assert judged_by <= worker_pids(cluster)
    assert os.getpid() not in judged_by
    run = await records.get_run("on-cluster")
    assert run is not None
    assert run.status == "done"
    assert run.spec is not None
    assert run.spec["cluster"] == address(cluster)


async def test_the_judge_is_unpickled_once_per_worker_for_a_run(cluster):
    token = f"once-{time.monotonic_ns()}"
    # concurrency 1: partitions of 4 items, so each worker judges several partitions
    result = await evaluate(dataset(40), Where(token), concurrency=1, cluster=address(cluster))
    assert result.summary.n == 40
    per_worker = cluster.run(unpickled, token)
    assert sum(per_worker.values()) >= 1
    assert set(per_worker.values()) <= {0, 1}


async def test_a_worker_killed_mid_run_loses_nothing_and_records_nothing_twice(
    cluster, records, tmp_path
):
    n = 30
    marker = tmp_path / "victim.pid"
    judge = Stall(victim="pass", marker=marker)  # item 1 is the first "pass"
    running = asyncio.create_task(
        evaluate(
            dataset(n), judge, store=records, name="killed", concurrency=2, cluster=address(cluster)
        )
    )
    await asyncio.wait_for(appeared(marker), DEADLINE_S)
    killed = int(marker.read_text())
    assert killed in worker_pids(cluster)
    os.kill(killed, signal.SIGKILL)

    result = await asyncio.wait_for(running, DEADLINE_S)

    assert result.run_id is not None
    counts = await stored_counts(records, result.run_id)
    assert counts == Counter(str(i) for i in range(1, n + 1))  # none lost, none twice
    assert result.summary.counts == {"pass": 15, "fail": 15, "abstain": 0, "error": 0}
    assert killed not in {j.metadata["pid"] for j in result.judgments.values()}
    run = await records.get_run("killed")
    assert run is not None
    assert run.status == "done"


async def test_an_interrupted_run_resumes_on_a_cluster_judging_only_what_it_lacks(cluster, records):
    n, k = 20, 6
    await interrupt_after(k, records, n, "half")
    result = await evaluate(
        dataset(n), Gate(), store=records, run="half", resume=True, cluster=address(cluster)
    )
    assert result.run_id is not None
    counts = await stored_counts(records, result.run_id)
    assert counts == Counter(str(i) for i in range(1, n + 1))
    assert (result.summary.resumed, result.summary.judged) == (k, n - k)
    assert result.summary.counts == {"pass": 10, "fail": 10, "abstain": 0, "error": 0}
    run = await records.get_run("half")
    assert run is not None
    assert run.status == "done"


async def test_resuming_a_run_that_has_every_item_reaches_for_no_cluster(records):
    await evaluate(dataset(3), Gate(), store=records, name="complete")
    nothing_listens = "tcp://127.0.0.1:18067"
    result = await evaluate(
        dataset(3), Gate(), store=records, run="complete", resume=True, cluster=nothing_listens
    )
    assert (result.summary.resumed, result.summary.judged) == (3, 0)


def test_a_judge_whose_model_is_named_by_spec_is_sent_without_its_built_model():
    spec = "openai-compatible:judge@http://127.0.0.1:18069/v1"
    judge = CriterionJudge("It is polite", spec)
    judge.model.get()  # built here, with this process's clients
    copy = pickle.loads(pickle.dumps(judge))
    assert copy.model._model is None  # built again where it is unpickled
    assert copy.model.label == spec


def test_the_default_model_is_pinned_when_a_judge_is_sent(monkeypatch):
    from jurist.settings import get_settings

    monkeypatch.setenv("JURIST_MODEL", "openai-compatible:pinned@http://127.0.0.1:18069/v1")
    get_settings.cache_clear()
    try:
        copy = pickle.loads(pickle.dumps(CriterionJudge("It is polite")))
    finally:
        get_settings.cache_clear()
    assert copy.model.label == "openai-compatible:pinned@http://127.0.0.1:18069/v1"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local:3", Cluster("local:3", workers=3)),
        ("tcp://10.0.0.5:8786", Cluster("tcp://10.0.0.5:8786", address="tcp://10.0.0.5:8786")),
        ("local", Cluster("local", workers=os.cpu_count() or 1)),
    ],
)
def test_the_cluster_forms(text, expected):
    assert Cluster.parse(text) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("local:0", "N in local:N is a number of worker processes >= 1"),
        ("local:two", "N in local:N is a number of worker processes >= 1"),
        ("http://host:8786", "none of the forms: local:N"),
        ("tcp://", "none of the forms: local:N"),
    ],
)
async def test_a_cluster_in_none_of_the_forms_is_refused_before_a_run_is_stored(
    text, problem, records
):
    with pytest.raises(ClusterError, match=problem):
        await evaluate(dataset(2), Where(), store=records, cluster=text)
    assert await records.list_runs(5) == []


def test_without_dask_the_error_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "distributed" else real(name, *a),
    )
    with pytest.raises(ClusterError, match=r"pip install 'jurist\[cluster\]'"):
        check_cluster("local:2")


def test_importing_jurist_does_not_import_dask():
    code = "import sys, jurist, jurist.runner, jurist.cli; print('distributed' in sys.modules)"
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert printed.strip() == "False"


async def test_an_unreachable_scheduler_is_a_clear_error(records, monkeypatch):
    import jurist.runner._cluster as on_cluster

    monkeypatch.setattr(on_cluster, "CONNECT_TIMEOUT_S", 2.0)
    with pytest.raises(ClusterError, match=r"tcp://127\.0\.0\.1:18068: cannot reach its sch"):
        await evaluate(dataset(2), Where(), store=records, cluster="tcp://127.0.0.1:18068")
    runs = await records.list_runs(5)
    assert [r.status for r in runs] == ["failed"]


def test_a_judge_that_does_not_pickle_is_named(cluster):
    class Local(Where):
        def __reduce__(self):
            raise TypeError("holds a lock")

    with pytest.raises(ClusterError, match="'where' cannot be sent to the cluster's workers"):
        asyncio.run(evaluate(dataset(2), Local(), cluster=address(cluster)))


def test_the_installed_command_judges_on_a_local_cluster(tmp_path: Path):
    data = tmp_path / "answers.jsonl"
    data.write_text("".join(f'{{"id": "a{i}", "answer": "pass {i}"}}\n' for i in range(12)))
    spec = tmp_path / "judge.yaml"
    spec.write_text("type: contains\nkeywords: pass\n")
    url = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    jurist = Path(sys.executable).with_name("jurist")
    done = subprocess.run(
        [
            str(jurist),
            "eval",
            str(data),
            "--judge",
            str(spec),
            "--cluster",
            "local:2",
            "--database",
            url,
            "--name",
            "on-two",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S * 3,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"pass": 12' in done.stdout

    async def stored() -> tuple[Counter[str | None], object]:
        async with await RecordStore.open(url) as store:
            run = await store.get_run("on-two")
            assert run is not None
            return await stored_counts(store, run.id), (run.spec or {}).get("cluster")

    counts, where = asyncio.run(stored())
    assert counts == Counter(f"a{i}" for i in range(12))
    assert where == "local:2"


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "DATA", "--judge", "criterion:x"],
        ["calibrate", "summeval-100", "--rubric", "summarization"],
        ["align", "summeval-100", "--rubric", "summarization", "--dimension", "coherence"],
    ],
    ids=lambda command: command[0],
)
def test_a_bad_cluster_on_the_command_line_exits_2(command, tmp_path: Path):
    data = tmp_path / "answers.jsonl"
    data.write_text('{"answer": "pass"}\n')
    jurist = Path(sys.executable).with_name("jurist")
    given = [str(data) if word == "DATA" else word for word in command]
    done = subprocess.run(
        [str(jurist), *given, "--cluster", "local:none"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "300"},
    )
    assert done.returncode == 2
    assert "--cluster" in done.stderr
    assert "local:N is a number of worker processes" in done.stderr


async def test_the_embedded_model_judges_on_a_local_cluster_real(records):
    # One worker process on this 2-core machine: it builds the embedded model from its own
    # settings (the judge carries only the model's spec) and judges the three items.
    rows = [
        {"id": "days", "goal": "How long is the refund window?", "output": "It is 30 days."},
        {"id": "none", "goal": "How long is the refund window?", "output": "Ask support."},
        {"id": "weeks", "goal": "How long is the refund window?", "output": "Two weeks."},
    ]
    judge = CriterionJudge("The answer states how long the refund window is")
    result = await evaluate(rows, judge, store=records, concurrency=1, cluster="local:1")
    assert result.run_id is not None
    assert await stored_counts(records, result.run_id) == Counter(["days", "none", "weeks"])
    statuses = {item: j.status.value for item, j in result.judgments.items()}
    assert statuses == {"days": "pass", "none": "fail", "weeks": "pass"}


def test_partitions_start_at_one_round_and_follow_the_pace_of_the_finished_ones():
    from jurist.runner._cluster import PARTITION_SECONDS, Partitions

    items = list(dataset(1000).items)
    parts = Partitions(items, concurrency=4, threads=2)
    first = parts.next()
    assert len(first) == 4  # one round of a worker's concurrency
    parts.took(4, PARTITION_SECONDS / 2)  # slow items (an embedded model): 8 fit the target
    second = parts.next()
    assert len(second) == 8
    parts.took(8, 0.01)  # fast ones: at most four rounds of the concurrency
    sent = [first, second]
    while part := parts.next():
        assert len(part) <= 16
        sent.append(part)
    assert [item.id for part in sent for item in part] == [item.id for item in items]


def test_a_short_run_gives_every_worker_thread_a_share():
    from jurist.runner._cluster import Partitions

    parts = Partitions(list(dataset(6).items), concurrency=64, threads=3)
    assert [len(parts.next()) for _ in range(4)] == [2, 2, 2, 0]
