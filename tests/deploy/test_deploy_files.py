"""The deployment files agree with each other and with the service: the Dockerfile, the
Kubernetes manifests under deploy/kubernetes, and the settings they name."""

import fnmatch
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
KUBERNETES = ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(KUBERNETES.glob("*.yaml"))
OBJECT_FILES = [path for path in MANIFESTS if path.name != "kustomization.yaml"]


# ---- helpers -----------------------------------------------------------------------------


def _load(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def _object(kind: str) -> dict[str, Any]:
    found = [doc for path in OBJECT_FILES for doc in _load(path) if doc["kind"] == kind]
    assert len(found) == 1, f"expected one {kind} under {KUBERNETES}, found {len(found)}"
    return found[0]


def _pod_spec() -> dict[str, Any]:
    spec: dict[str, Any] = _object("Deployment")["spec"]["template"]["spec"]
    return spec


def _container() -> dict[str, Any]:
    containers = _pod_spec()["containers"]
    assert len(containers) == 1, "the Deployment should run one container"
    container: dict[str, Any] = containers[0]
    return container


def _container_port() -> int:
    ports = _container()["ports"]
    assert len(ports) == 1, "the container should expose one port"
    port: int = ports[0]["containerPort"]
    return port


def _resolve_port(port: int | str) -> int:
    """A probe's or Service's port, by number or by the container port's name."""
    if isinstance(port, int):
        return port
    for declared in _container()["ports"]:
        if declared.get("name") == port:
            number: int = declared["containerPort"]
            return number
    raise AssertionError(f"port name {port!r} is not declared by the container")


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined and
    comment lines dropped."""
    joined: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if line.startswith("#") or not line:
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined]


def _arguments(keyword: str) -> list[str]:
    return [args for key, args in _instructions() if key == keyword]


def _final_stage() -> list[tuple[str, str]]:
    instructions = _instructions()
    starts = [i for i, (key, _) in enumerate(instructions) if key == "FROM"]
    assert starts, "the Dockerfile has no FROM"
    return instructions[starts[-1] :]


def _exec_form(arguments: str) -> list[str]:
    words = yaml.safe_load(arguments)  # a JSON array is YAML too
    assert isinstance(words, list), f"expected the exec (JSON array) form, got {arguments!r}"
    return [str(word) for word in words]


def _image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for key, args in _final_stage():
        if key == "ENV":
            for pair in shlex.split(args):
                name, _, value = pair.partition("=")
                env[name] = value
    return env


def _gibibytes(quantity: str) -> float:
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "K": 10**3, "M": 10**6, "G": 10**9}
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i?)?", quantity)
    assert match, f"unreadable memory quantity {quantity!r}"
    return float(match.group(1)) * units.get(match.group(2) or "", 1) / 2**30


def _dockerignored(relative: str, patterns: list[str]) -> bool:
    """Whether Docker leaves `relative` out of the build context: the last pattern that
    matches the path or one of its parents decides, and `!` re-includes."""
    parts = relative.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        glob = pattern.removeprefix("!").rstrip("/")
        if any(fnmatch.fnmatchcase(path, glob) for path in candidates):
            excluded = not negated
    return excluded


# ---- Kubernetes ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda path: path.name)
def test_every_manifest_parses_into_named_objects(path):
    docs = _load(path)
    assert docs, f"{path.name} holds no document"
    for doc in docs:
        assert {"apiVersion", "kind"} <= doc.keys(), f"{path.name}: apiVersion or kind missing"
        if doc["kind"] != "Kustomization":
            assert doc["metadata"]["name"], f"{path.name}: {doc['kind']} has no name"


def test_the_kustomization_lists_every_manifest():
    (kustomization,) = _load(KUBERNETES / "kustomization.yaml")
    assert sorted(kustomization["resources"]) == [path.name for path in OBJECT_FILES]


def test_the_expected_objects_are_all_there():
    kinds = sorted(doc["kind"] for path in OBJECT_FILES for doc in _load(path))
    assert kinds == ["ConfigMap", "Deployment", "Secret", "Service"]


def test_probes_ask_ready_for_readiness_and_health_for_liveness_on_the_container_port():
    container = _container()
    expected = {"readinessProbe": "/ready", "livenessProbe": "/health", "startupProbe": "/health"}
    for probe, path in expected.items():
        get = container[probe]["httpGet"]
        assert get["path"] == path, f"{probe} asks {get['path']}, not {path}"
        assert _resolve_port(get["port"]) == _container_port(), f"{probe} asks another port"


def test_the_startup_probe_leaves_time_for_the_model_to_load():
    probe = _container()["startupProbe"]
    budget = (
        probe.get("initialDelaySeconds", 0) + probe["periodSeconds"] * probe["failureThreshold"]
    )
    assert budget >= 60, f"the startup probe gives up after {budget} s"


def test_the_service_targets_the_container_port_and_selects_the_pods():
    service = _object("Service")
    assert service["spec"]["type"] == "ClusterIP"
    (port,) = service["spec"]["ports"]
    assert port["port"] == 8005
    assert _resolve_port(port["targetPort"]) == _container_port()
    pod_labels = _object("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()


def test_the_container_runs_as_the_images_non_root_user():
    pod = _pod_spec()["securityContext"]
    container = _container()["securityContext"]
    assert pod["runAsNonRoot"] is True
    assert pod["runAsUser"] != 0
    (user,) = _arguments("USER")
    assert str(pod["runAsUser"]) == user.split(":")[0], "the pod and the image differ on the uid"
    assert container["allowPrivilegeEscalation"] is False
    assert container["readOnlyRootFilesystem"] is True


def test_the_paths_the_service_writes_are_mounted_writable():
    home = Path(_image_env()["JURIST_HOME"])
    mounted = {Path(mount["mountPath"]) for mount in _container()["volumeMounts"]}
    assert {home / "cache", Path("/tmp"), home / "audit-spool"} <= mounted
    hiding = [path for path in mounted if path in {home, home / "models", *home.parents}]
    assert not hiding, f"volumes on {hiding} would hide the model built into the image"


def test_the_pod_takes_its_settings_from_the_configmap_and_the_secret():
    sources = _container()["envFrom"]
    assert {"configMapRef": {"name": _object("ConfigMap")["metadata"]["name"]}} in sources
    assert {"secretRef": {"name": _object("Secret")["metadata"]["name"]}} in sources
    assert "JURIST_API_KEYS" in _object("Secret")["stringData"], (
        "without API keys the service refuses to listen on the pod's address"
    )


def test_every_setting_named_is_one_the_server_reads():
    from jurist.server import ENVIRONMENT_VARIABLES

    named = set(_object("ConfigMap")["data"]) | set(_object("Secret")["stringData"])
    unknown = sorted(named - set(ENVIRONMENT_VARIABLES))
    assert not unknown, f"settings the server does not read: {unknown}"


def test_the_server_accepts_the_configuration_and_listens_on_the_pods_address(
    monkeypatch, tmp_path
):
    from jurist.server import KeyRing, check_bind, load_config, new_encryption_key

    monkeypatch.chdir(tmp_path)  # no stray .env file joins in
    named = _object("ConfigMap")["data"] | _object("Secret")["stringData"]
    for name, value in named.items():
        monkeypatch.setenv(name, value)
    # The Secret's placeholder key is refused by name: an example key must never seal.
    with pytest.raises(ValueError, match="JURIST_ENCRYPTION_KEY") as refused:
        load_config()
    assert "jurist store new-key" in str(refused.value)
    monkeypatch.setenv("JURIST_ENCRYPTION_KEY", new_encryption_key())  # as the operator does
    _, service = load_config()
    assert service.port == _container_port()
    assert service.store_content == "sealed"
    check_bind("0.0.0.0", KeyRing.parse(service.api_keys))


def test_the_replicas_are_built_with_the_key_their_shared_database_needs(monkeypatch, tmp_path):
    from jurist.server import ServiceSettings, create_app, new_encryption_key
    from jurist.settings import Settings

    monkeypatch.chdir(tmp_path)
    named = _object("ConfigMap")["data"] | _object("Secret")["stringData"]
    assert named["JURIST_DATABASE_URL"].startswith("postgresql://")
    assert "JURIST_ENCRYPTION_KEY" in _object("Secret")["stringData"]
    for name, value in {**named, "JURIST_ENCRYPTION_KEY": new_encryption_key()}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JURIST_HOME", str(tmp_path / "home"))
    # Built (not started: no database answers here) with sealed content on PostgreSQL.
    create_app(Settings(), ServiceSettings(), model="test:judge")


def test_the_secret_holds_only_hashed_keys():
    entries = _object("Secret")["stringData"]["JURIST_API_KEYS"].split(",")
    for entry in entries:
        assert re.fullmatch(r"[^:]+:sha256:[0-9a-f]{64}", entry), f"not a hashed entry: {entry}"


def test_pods_running_the_embedded_model_have_room_and_threads_for_it():
    settings = _object("ConfigMap")["data"]
    if not settings["JUDGE_MODEL"].startswith("local:"):
        pytest.skip("the ConfigMap names a remote model; the embedded model's needs do not apply")
    resources = _container()["resources"]
    assert _gibibytes(resources["requests"]["memory"]) > 2, "the model alone holds ~2 GiB"
    assert _gibibytes(resources["limits"]["memory"]) > 2
    assert settings["JURIST_LOCAL_THREADS"] == str(resources["limits"]["cpu"]), (
        "more threads than the CPU limit are throttled; fewer leave cores unused"
    )


def test_prometheus_scrapes_every_pod_on_the_container_port():
    annotations = _object("Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert int(annotations["prometheus.io/port"]) == _container_port()


def test_kustomize_builds_the_manifests():
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed, so `kubectl kustomize` cannot be tried")
    result = subprocess.run(
        [kubectl, "kustomize", str(KUBERNETES)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    kinds = sorted(doc["kind"] for doc in yaml.safe_load_all(result.stdout) if doc)
    assert kinds == ["ConfigMap", "Deployment", "Secret", "Service"]


# ---- the image -----------------------------------------------------------------------------


def test_the_image_runs_as_a_non_root_user():
    users = [args for key, args in _final_stage() if key == "USER"]
    assert users, "the final stage sets no USER, so it runs as root"
    user = users[-1].split(":")[0]
    assert user not in {"root", "0"}


def test_the_healthcheck_asks_health_on_the_served_port():
    (healthcheck,) = _arguments("HEALTHCHECK")
    command = healthcheck.split("CMD", 1)[1]
    assert "urllib" in command
    url = rf"http://127\.0\.0\.1:{_container_port()}/health(?![\w/-])"
    assert re.search(url, command), f"the healthcheck does not ask /health: {command}"


def test_the_image_serves_on_the_container_port_of_the_deployment():
    cmd = _exec_form(_arguments("CMD")[-1])
    assert cmd[:2] == ["jurist", "serve"]
    assert cmd[cmd.index("--host") + 1] == "0.0.0.0"
    assert int(cmd[cmd.index("--port") + 1]) == _container_port()
    assert str(_container_port()) in _arguments("EXPOSE")


def test_the_image_installs_from_the_lock_and_prepares_the_model():
    runs = _arguments("RUN")
    syncs = [run for run in runs if "uv sync" in run]
    assert syncs, "no `uv sync` in the Dockerfile"
    assert all("--frozen" in run for run in syncs), "every uv sync must install uv.lock as is"
    # The extras may be spelled out in an ARG that the sync commands expand.
    assert "--extra local" in " ".join(syncs + _arguments("ARG")), "the embedded model's extra"
    assert any("models prepare" in run for run in runs), "the model must be prepared at build"


def test_the_build_context_keeps_what_the_dockerfile_copies():
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    copies = [args for args in _arguments("COPY") if not args.startswith("--from")]
    sources = [word for args in copies for word in shlex.split(args)[:-1]]
    assert sources, "the Dockerfile copies nothing from the build context"
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: no such file in the repository"
        assert not _dockerignored(source.rstrip("/"), patterns), f".dockerignore drops {source}"
    assert _dockerignored(".venv", patterns), "the local .venv must stay out of the context"
