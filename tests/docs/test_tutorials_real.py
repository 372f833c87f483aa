"""The tutorials' blocks that need the embedded model, through the real default model
(slow: one small judgment each). The rest of each page runs in test_tutorials.py."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from doc_snippets import ROOT, commands, run_command, run_python

from jurist.settings import get_settings


@pytest.fixture
def uncached(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The real model is asked: no cached answer stands in for it."""
    monkeypatch.setenv("JURIST_CACHE", "0")
    monkeypatch.chdir(ROOT)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_quickstart_model_commands_real(uncached: None, tmp_path: Path) -> None:
    models = str(get_settings().models_dir)
    env = {"JURIST_HOME": str(tmp_path), "JURIST_MODELS_DIR": models, "JURIST_CACHE": "0"}
    with_model = commands("quickstart.md", with_model=True)
    without = commands("quickstart.md", with_model=False)
    ran = [run_command(c, env) for c in with_model if c not in without]
    assert len(ran) == 2
    criterion = ran[1].stdout
    assert criterion.startswith("PASS")
    assert "P(yes) 0." in criterion


def test_first_judgment_real(uncached: None, capsys: pytest.CaptureFixture[str]) -> None:
    run_python("tutorials/first-judgment.md", with_model=True)
    printed = capsys.readouterr().out.splitlines()
    verdict = next(line for line in printed if " P(yes) = " in line)
    assert verdict.startswith("PASS ")
    assert float(verdict.split()[-1]) >= 0.5
    assert printed[-1] == "True"


def test_rag_check_real(uncached: None, capsys: pytest.CaptureFixture[str]) -> None:
    run_python("tutorials/rag-check.md", with_model=True)
    printed = capsys.readouterr().out.splitlines()
    # The answer's 5 business days against the policy's 10: not verified.
    assert printed[-1].startswith("FAIL - ")
