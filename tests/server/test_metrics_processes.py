"""Metrics of several worker processes (PROMETHEUS_MULTIPROC_DIR, as `jurist serve --workers N`
sets): each process writes its samples to files of its own, a forked child too, and /metrics
on any of them reports the sum. Run in a fresh interpreter: prometheus_client chooses where
samples go when it is first imported."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import os
from jurist.server._metrics import Metrics

metrics = Metrics()
metrics.validations.labels("valid").inc(2)
child = os.fork()
if child == 0:
    metrics.validations.labels("valid").inc(5)
    metrics.validations.labels("invalid").inc()
    os._exit(0)
os.waitpid(child, 0)
metrics.validations.labels("valid").inc()
print(metrics.exposition()[0].decode())
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child process")
def test_a_forked_worker_writes_its_own_samples_and_the_exposition_sums_every_process(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "metrics"
    shared.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert 'jurist_validations_total{outcome="valid"} 8.0' in lines, done.stdout
    assert 'jurist_validations_total{outcome="invalid"} 1.0' in lines, done.stdout
    # Two processes, two files of counters: the child did not write into its parent's.
    assert len(list(shared.glob("counter_*.db"))) == 2
