"""docs/how-to/testing.md and docs/how-to/ci.md as a user follows them: the pytest module runs
and passes under pytest, and the GitHub Actions job's commands run on the page's own files
(with a FakeModel in place of the embedded model) and gate as the page says."""

import csv
import json
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from jurist.cli import app
from jurist.settings import get_settings
from jurist.testing import FakeModel

DOCS = Path(__file__).resolve().parents[2] / "docs" / "how-to"


def blocks(page: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", (DOCS / page).read_text(), flags=re.DOTALL)


def test_the_reply_forms_run():
    [forms, _suite] = blocks("testing.md", "python")
    names: dict = {}
    exec(compile(forms, "testing.md", "exec"), names)
    assert isinstance(names["by_prompt"], FakeModel)


def test_the_pytest_module_passes_under_pytest(tmp_path):
    [_forms, suite] = blocks("testing.md", "python")
    (tmp_path / "test_refund_answers.py").write_text(suite)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "4 passed" in ran.stdout


@pytest.fixture
def repository(tmp_path, monkeypatch) -> Path:
    """A checkout holding the page's evals/ files, as the working directory, with its own
    JURIST_HOME and a FakeModel answering the criterion (yes when the answer says 30 days)."""
    [answers] = blocks("ci.md", "json")
    judge, _workflow = blocks("ci.md", "yaml")
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "answers.jsonl").write_text(answers)
    (tmp_path / "evals" / "judge.yaml").write_text(judge)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JURIST_HOME", str(tmp_path / "home"))
    get_settings.cache_clear()
    model = FakeModel(
        lambda prompt: {"answer": "yes" if "30 days" in prompt else "no", "reason": "scripted"}
    )
    monkeypatch.setattr("jurist.judges._ask.get_model", lambda spec=None: model)
    yield tmp_path
    get_settings.cache_clear()


def workflow_steps() -> list[dict]:
    _judge, workflow = blocks("ci.md", "yaml")
    parsed = yaml.safe_load(workflow)
    assert set(parsed[True]) == {"pull_request", "push"}  # YAML 1.1 reads `on` as true
    return parsed["jobs"]["evals"]["steps"]


def command(step: dict) -> list[str]:
    line = step["run"]
    for expression, value in {"github.run_id": "7", "github.run_attempt": "1"}.items():
        line = line.replace("${{ " + expression + " }}", value)
    words = shlex.split(line)
    assert words[0] == "jurist"
    return words[1:]


def test_the_workflow_checks_out_installs_caches_and_publishes():
    steps = workflow_steps()
    uses = [step.get("uses", "").split("@")[0] for step in steps]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"]
    assert "actions/cache" in uses
    assert "mikepenz/action-junit-report" in uses
    published = next(s for s in steps if s.get("uses", "").startswith("mikepenz/"))
    assert published["if"] == "always()"
    assert published["with"]["report_paths"] == "reports/jurist.xml"
    assert any(step.get("run") == 'pip install "jurist[local]"' for step in steps)


def test_the_jobs_commands_gate_report_and_export_as_the_page_says(repository):
    steps = workflow_steps()
    judged = next(s for s in steps if s.get("name") == "Judge the answers")
    ran = CliRunner().invoke(app, command(judged))
    # One of the two answers is grounded: 50% is below the job's 90%.
    assert ran.exit_code == 1, ran.output
    assert "gate: pass rate 50.0% (1 of 2 decided) is below --fail-under 90.0%: failed" in (
        ran.stdout
    )
    suites = ET.parse(repository / "reports" / "jurist.xml").getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "refund-answers",
        "refund-answers/mentions-refund",
        "refund-answers/grounded",
    ]
    exported = next(s for s in steps if s.get("name") == "Export the results for review")
    done = CliRunner().invoke(app, command(exported))
    assert done.exit_code == 0, done.output
    with (repository / "reports" / "results.csv").open() as table:
        rows = list(csv.DictReader(table))
    assert [row["item_id"] for row in rows] == ["refund-window", "shipping"]
    assert [row["vote.grounded"] for row in rows] == ["pass", "fail"]
    assert json.loads(rows[1]["context"]) == ["We ship within the EU."]
