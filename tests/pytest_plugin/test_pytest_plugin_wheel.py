"""The wheel declares the plugin where pytest looks for plugins (`make wheel-check` runs it
from the wheel in a clean environment)."""

import shutil
import subprocess
import zipfile
from configparser import ConfigParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv")


def test_the_wheel_registers_the_plugin_as_a_pytest11_entry_point(tmp_path: Path):
    if UV is None:
        pytest.skip("needs uv on PATH")
    subprocess.run(
        [UV, "build", "--wheel", "--out-dir", str(tmp_path), "--quiet", str(ROOT)],
        check=True,
        timeout=300,
    )
    (built,) = tmp_path.glob("jurist-*.whl")
    with zipfile.ZipFile(built) as wheel:
        (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
        points = ConfigParser()
        points.read_string(wheel.read(name).decode())
        assert "jurist/pytest_plugin/__init__.py" in wheel.namelist()
    assert dict(points["pytest11"]) == {"jurist": "jurist.pytest_plugin"}
