"""`make uv`: uv from PATH when there is one, else uv in a virtual environment of its own.

The Makefile never installs into the Python it is given: a distribution's Python refuses
`pip install` (PEP 668, an EXTERNALLY-MANAGED file in its stdlib directory), and uv in the
project's .venv would be removed by the next `uv sync`.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKE = shutil.which("make")
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"

pytestmark = pytest.mark.skipif(MAKE is None, reason="needs make")


def _make_uv(python: Path, workdir: Path, path: Path) -> subprocess.CompletedProcess[str]:
    """`make uv` from the repository's Makefile, run in `workdir` (so its tools land there),
    with only `path` on PATH."""
    assert MAKE is not None
    env = {"PATH": str(path), "HOME": str(workdir), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        if name in os.environ:
            env[name] = os.environ[name]
    return subprocess.run(
        [MAKE, "--no-print-directory", "-f", str(ROOT / "Makefile"), "-C", str(workdir), "uv"],
        env={**env, "PYTHON": str(python)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _distribution_python(root: Path) -> tuple[Path, Path]:
    """A Python that is not a virtual environment and whose stdlib directory holds PEP 668's
    EXTERNALLY-MANAGED marker, as a Debian or Ubuntu Python's does: the interpreter running
    the tests, copied, with its stdlib linked in and a site-packages of its own holding pip.
    Returns the interpreter and its site-packages."""
    base_stdlib = Path(sysconfig.get_path("stdlib"))
    base_purelib = Path(sysconfig.get_path("purelib", vars={"base": sys.base_prefix}))
    if not (base_purelib / "pip").is_dir():
        pytest.skip(f"no pip in {base_purelib} to give the simulated Python")
    stdlib = root / "lib" / VERSION
    stdlib.mkdir(parents=True)
    for entry in base_stdlib.iterdir():
        if entry.name not in {"site-packages", "dist-packages", "EXTERNALLY-MANAGED"}:
            (stdlib / entry.name).symlink_to(entry)
    (stdlib / "EXTERNALLY-MANAGED").write_text(
        "[externally-managed]\nError=this Python is managed by the system: use a venv\n"
    )
    site = stdlib / "site-packages"
    site.mkdir()
    (site / "pip").symlink_to(base_purelib / "pip")
    (root / "bin").mkdir()
    python = root / "bin" / "python3"
    shutil.copy2(Path(getattr(sys, "_base_executable", sys.executable)).resolve(), python)
    return python, site


def _refuses_pip(python: Path) -> str:
    """The refusal of `python -m pip install`, checked before the Makefile meets it."""
    refused = subprocess.run(
        [str(python), "-m", "pip", "install", "--dry-run", "uv"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode != 0
    assert "externally-managed-environment" in refused.stdout + refused.stderr
    return refused.stderr


def _listing(directory: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.lstat().st_mtime_ns) for p in directory.iterdir())


def _assert_bootstraps_beside(python: Path, site: Path, tmp_path: Path) -> None:
    empty_path = tmp_path / "no-uv-here"
    empty_path.mkdir()
    before = _listing(site)
    workdir = tmp_path / "project"
    workdir.mkdir()

    made = _make_uv(python, workdir, empty_path)

    assert made.returncode == 0, made.stdout + made.stderr
    assert "no uv on PATH" in made.stdout
    uv = workdir / ".tools" / "bin" / "uv"
    version = subprocess.run([str(uv), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("uv ")
    # Nothing went into the given Python: its site-packages is as it was.
    assert _listing(site) == before
    found = subprocess.run(
        [str(python), "-c", "import importlib.util; print(importlib.util.find_spec('uv'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.strip() == "None"
    # A second run finds the uv it installed and installs nothing.
    again = _make_uv(python, workdir, empty_path)
    assert again.returncode == 0, again.stderr
    assert "no uv on PATH" not in again.stdout


def test_without_uv_on_path_a_pep_668_python_gets_uv_in_a_venv_of_its_own(tmp_path: Path):
    """Needs the network: pip installs uv from the package index."""
    python, site = _distribution_python(tmp_path / "distribution")
    _refuses_pip(python)
    _assert_bootstraps_beside(python, site, tmp_path)


SYSTEM_PYTHON = Path("/usr/bin/python3")


@pytest.mark.skipif(
    not SYSTEM_PYTHON.exists()
    or subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import pip, venv, ensurepip"], capture_output=True, check=False
    ).returncode
    != 0,
    reason="no system Python with pip and venv here",
)
def test_the_systems_own_python_when_it_is_externally_managed(tmp_path: Path):
    """The real thing on Debian and Ubuntu. Needs the network: pip installs uv."""
    paths = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    stdlib = Path(paths.stdout.strip())
    if not (stdlib / "EXTERNALLY-MANAGED").exists():
        pytest.skip(f"{SYSTEM_PYTHON} is not externally managed")
    _refuses_pip(SYSTEM_PYTHON)
    purelib = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    site = Path(purelib.stdout.strip())
    if not site.is_dir():
        site = stdlib
    _assert_bootstraps_beside(SYSTEM_PYTHON, site, tmp_path)


def test_uv_on_path_is_used_as_it_is(tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    uv = bin_dir / "uv"
    uv.write_text('#!/bin/sh\necho "uv 0.0.0 (the one on PATH)"\n')
    uv.chmod(0o755)
    workdir = tmp_path / "project"
    workdir.mkdir()

    made = _make_uv(tmp_path / "no-python", workdir, bin_dir)

    assert made.returncode == 0, made.stderr
    assert not (workdir / ".tools").exists()
