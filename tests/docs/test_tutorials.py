"""The quickstart's and the tutorials' code runs as the pages show it, without the
embedded model (the blocks that need it run in test_tutorials_real.py)."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from doc_snippets import ROOT, commands, run_command, run_python

from jurist.settings import get_settings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A fresh JURIST_HOME for the commands the pages run, and for this process."""
    env = {"JURIST_HOME": str(tmp_path / "home")}
    monkeypatch.delenv("JURIST_DATABASE_URL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(ROOT)
    get_settings.cache_clear()
    yield env
    get_settings.cache_clear()


def test_quickstart_runs(home: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    runs = [run_command(command, home) for command in commands("quickstart.md", with_model=False)]
    assert [run.returncode for run in runs] == [0, 1]
    assert runs[0].stdout.startswith("PASS  examples/good-answer.json")
    assert runs[1].stdout.startswith("FAIL  examples/bad-answer.json")
    assert "$.confidence" in runs[1].stdout
    run_python("quickstart.md", with_model=False)
    assert capsys.readouterr().out.splitlines() == ["PASS"]


def test_first_judgment_runs(home: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    run_python("tutorials/first-judgment.md", with_model=False)
    assert capsys.readouterr().out.splitlines() == [
        "PASS",
        "FAIL - missing 1 of 2 keywords: '30 days'",
        "  refund passed",
        "  30 days failed",
        "PASS",
        "PASS {'schema': 'PASS', 'no_apology': 'PASS', 'contains': 'FAIL'}",
        "True",
    ]


def test_rag_check_runs(home: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    run_python("tutorials/rag-check.md", with_model=False)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("handbook: 1 added, 0 updated, 0 unchanged, 0 skipped, 1 chunk")
    assert printed[1:] == ["# Refunds", "", "Items may be returned within 30 days of delivery  ..."]
    added, found = (
        run_command(command, home)
        for command in commands("tutorials/rag-check.md", with_model=False)
    )
    assert "1 added" in added.stdout
    assert "refunds.md" in found.stdout


def test_calibrating_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run_python("tutorials/calibrating.md", with_model=False)
    assert capsys.readouterr().out.splitlines() == [
        "100 items; coherence, consistency, fluency, relevance",
        "summeval-A0-S0 A0 1.0",
        "Pearson +0.28 [+0.03, +0.48]",
        "verdict: FAIL",
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def service(home: dict[str, str]) -> Iterator[str]:
    """`jurist serve` as the tutorial starts it, on a free port of 127.0.0.1."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "jurist", "serve", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **home},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    try:
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the service did not answer /health"
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_validation_service_runs(
    service: str, home: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    shell = commands("tutorials/validation-service.md", with_model=False)
    health, invalid = (
        run_command(type(c)(c.line.replace("127.0.0.1:8005", service), c.expected_exit), home)
        for c in shell
    )
    assert '"alive"' in health.stdout
    answer = httpx.Response(200, content=invalid.stdout).json()
    assert answer["valid"] is False
    assert [issue["suggestion"] for issue in answer["issues"]] == ["Add the 'tests' field at $"]
    run_python(
        "tutorials/validation-service.md",
        with_model=False,
        replace={"127.0.0.1:8005": service},
    )
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "True 0"
    assert printed[1] == "['schema'] 0 0"
    assert printed[2].startswith("schema pass ")
    assert printed[3:] == ["200", "True"]


TESTED_PAGES = {
    "quickstart.md",
    "tutorials/first-judgment.md",
    "tutorials/rag-check.md",
    "tutorials/validation-service.md",
    "tutorials/calibrating.md",
}


def test_every_tutorial_page_is_tested() -> None:
    pages = {f"tutorials/{page.name}" for page in (ROOT / "docs" / "tutorials").glob("*.md")}
    assert pages | {"quickstart.md"} == TESTED_PAGES
