"""The Dask cluster's deployment files under deploy/dask parse as YAML and agree with each
other and with jurist: the scheduler's service is where the batch Job joins, the workers
run one thread and as many llama.cpp threads as their CPU limit, and every setting named is
one jurist reads."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from jurist.runner import Cluster
from jurist.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DASK = ROOT / "deploy" / "dask"
FILES = sorted(DASK.glob("*.yaml"))


def _load(name: str) -> dict[str, Any]:
    documents = [d for d in yaml.safe_load_all((DASK / name).read_text()) if d is not None]
    assert len(documents) == 1, f"{name}: expected one document"
    document: dict[str, Any] = documents[0]
    return document


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {entry["name"]: entry.get("value", entry.get("valueFrom")) for entry in container["env"]}


def _settings_read() -> set[str]:
    names: set[str] = set()
    for field in Settings.model_fields.values():
        alias = field.validation_alias
        names |= {str(choice) for choice in getattr(alias, "choices", [alias]) if choice}
    return names | {"OPENAI_API_KEY"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_file_parses_as_yaml(path: Path):
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    assert documents
    assert all(isinstance(d, dict) for d in documents)


def test_the_files_are_there():
    assert [p.name for p in FILES] == ["daskcluster.yaml", "eval-job.yaml", "helm-values.yaml"]


def test_the_batch_job_joins_the_operators_scheduler_service():
    cluster = _load("daskcluster.yaml")
    assert (cluster["apiVersion"], cluster["kind"]) == ("kubernetes.dask.org/v1", "DaskCluster")
    service = cluster["spec"]["scheduler"]["service"]
    comm = next(port for port in service["ports"] if port["name"] == "tcp-comm")
    scheduler = cluster["spec"]["scheduler"]["spec"]["containers"][0]
    declared = {port["name"]: port["containerPort"] for port in scheduler["ports"]}
    assert declared[comm["targetPort"]] == 8786
    job = _load("eval-job.yaml")
    client = job["spec"]["template"]["spec"]["containers"][0]
    address = _env(client)["JURIST_CLUSTER"]
    assert address == f"tcp://{cluster['metadata']['name']}-scheduler:{comm['port']}"
    assert Cluster.parse(address).address == address
    assert Settings(JURIST_CLUSTER=address).cluster == address


def test_workers_run_one_thread_and_the_model_on_their_cpu_limit():
    worker = _load("daskcluster.yaml")["spec"]["worker"]["spec"]["containers"][0]
    command = worker["command"]
    assert command[0] == "dask-worker"
    assert command[command.index("--nthreads") + 1] == "1"
    assert _env(worker)["JURIST_LOCAL_THREADS"] == worker["resources"]["limits"]["cpu"]
    values = _load("helm-values.yaml")["worker"]
    assert values["threads_per_worker"] == 1
    assert _env(values)["JURIST_LOCAL_THREADS"] == values["resources"]["limits"]["cpu"]


def test_every_pod_runs_the_same_image_built_with_the_cluster_extra():
    cluster = _load("daskcluster.yaml")["spec"]
    values = _load("helm-values.yaml")
    job = _load("eval-job.yaml")["spec"]["template"]["spec"]
    images = {
        cluster["worker"]["spec"]["containers"][0]["image"],
        cluster["scheduler"]["spec"]["containers"][0]["image"],
        job["containers"][0]["image"],
        "{repository}:{tag}".format(**values["worker"]["image"]),
        "{repository}:{tag}".format(**values["scheduler"]["image"]),
    }
    assert images == {"jurist:0.1.0-cluster"}
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "cluster" in extras["optional-dependencies"]
    assert "--extra cluster" in (DASK / "daskcluster.yaml").read_text()


def test_every_setting_named_is_one_jurist_reads():
    cluster = _load("daskcluster.yaml")["spec"]
    values = _load("helm-values.yaml")
    job = _load("eval-job.yaml")["spec"]["template"]["spec"]
    named = (
        set(_env(cluster["worker"]["spec"]["containers"][0]))
        | set(_env(values["worker"]))
        | set(_env(job["containers"][0]))
    )
    unknown = sorted(named - _settings_read())
    assert not unknown, f"settings jurist does not read: {unknown}"


def test_the_batch_jobs_command_is_one_jurist_takes():
    command = _load("eval-job.yaml")["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[:2] == ["jurist", "eval"]
    help_text = subprocess.run(
        [str(Path(sys.executable).with_name("jurist")), "eval", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    ).stdout
    for option in (word for word in command[2:] if word.startswith("--")):
        assert option in help_text, f"jurist eval takes no {option}"
    assert "--cluster" in help_text
