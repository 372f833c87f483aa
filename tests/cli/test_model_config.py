"""A model configuration no call can succeed with stops a command before any work, with
exit 2 and one line naming the setting; an eval's errors show their cause; and an
interrupted eval prints the command that resumes it."""

import json
import shlex
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.llm import ErrorKind, ModelError
from jurist.settings import get_settings

runner = CliRunner()
WIDE = {"COLUMNS": "400"}  # a line is one line however long
ANSWER = "You can return any item within 30 days for a full refund."


@pytest.fixture
def environment(monkeypatch) -> Iterator[pytest.MonkeyPatch]:
    """The settings as the test sets them: no provider key from the machine leaks in."""
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "JURIST_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("JURIST_CACHE", "0")  # restored afterwards, whatever --no-cache sets
    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "answer.txt").write_text(ANSWER, "utf-8")
    (tmp_path / "other.txt").write_text("No refunds.", "utf-8")
    (tmp_path / "source.txt").write_text("Items may be returned within 30 days.", "utf-8")
    rows = [{"id": f"q{i}", "question": "Refunds?", "answer": ANSWER} for i in (1, 2)]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    request = {"output": ANSWER, "validation_types": ["criteria"], "acceptance_criteria": ["x"]}
    (tmp_path / "request.json").write_text(json.dumps(request), "utf-8")
    (tmp_path / "refund.yaml").write_text("type: contains\nname: refund\nkeywords: [refund]\n")
    ratings = [
        {"id": f"s{i}", "doc_id": "d", "source": "Items may be returned.", "output": ANSWER}
        | {"human_scores": {"coherence": 3 + i % 2}, "scale": [1, 5]}
        for i in range(4)
    ]
    (tmp_path / "ratings.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ratings))
    (tmp_path / "prompt.txt").write_text("Answer the question.\n", "utf-8")
    cases = [{"id": f"c{i}", "input": f"Question {i}?"} for i in range(4)]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    truth = [{"id": f"t{i}", "output": ANSWER, "label": i % 2 == 0} for i in range(4)]
    (tmp_path / "truth.jsonl").write_text("".join(json.dumps(t) + "\n" for t in truth))
    return (
        {name: str(tmp_path / name) for name in ("answer.txt", "other.txt", "source.txt")}
        | {
            "rows": str(tmp_path / "rows.jsonl"),
            "request": str(tmp_path / "request.json"),
            "spec": str(tmp_path / "refund.yaml"),
            "db": f"sqlite:///{tmp_path / 'runs.sqlite3'}",
        }
        | {name: str(tmp_path / f"{name}.jsonl") for name in ("ratings", "cases", "truth")}
        | {"prompt": str(tmp_path / "prompt.txt")}
    )


def commands(files: dict[str, str]) -> dict[str, list[str]]:
    """Every model-backed command, as a user would run it."""
    answer, db = files["answer.txt"], files["db"]
    return {
        "eval": ["eval", files["rows"], "-j", "criterion:Mentions a refund", "--database", db],
        "judge": ["judge", answer, "--rubric", "summarization", "--source", files["source.txt"]],
        "criteria": ["criteria", answer, "-c", "Mentions a refund"],
        "grounding": ["grounding", answer, "--context", files["source.txt"]],
        "compare": ["compare", answer, files["other.txt"], "-i", "Explain refunds."],
        "validate": ["validate", files["request"]],
        "calibrate": ["calibrate", files["ratings"], "--rubric", "summarization", "--database", db],
        "align": [
            *("align", files["ratings"], "--rubric", "summarization", "-d", "coherence"),
            *("--database", db),
        ],
        "improve": [
            *("improve", "--prompt", files["prompt"], "--cases", files["cases"]),
            *("--criterion", "Answers the question", "--database", db),
        ],
        "tournament": [
            *("tournament", "--ground-truth", files["truth"], "--criterion", "Is right"),
            *("--database", db),
        ],
    }


COMMANDS = [
    *["eval", "judge", "criteria", "grounding", "compare", "validate"],
    *["calibrate", "align", "improve", "tournament"],
]


def refused_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_api_key_stops_before_any_work(command, environment, files, use_model):
    model = use_model()  # an empty script: any call would fail the command another way
    environment.setenv("JURIST_MODEL", "openai:gpt-4o-mini")
    line = refused_line(runner.invoke(app, commands(files)[command], env=WIDE))
    assert line.startswith("error: OPENAI_API_KEY: not set, and the model openai:gpt-4o-mini")
    assert model.calls == 0


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_provider_in_the_setting_stops_before_any_work(command, environment, files):
    environment.setenv("JURIST_MODEL", "gemini:pro")
    line = refused_line(runner.invoke(app, commands(files)[command], env=WIDE))
    assert line.startswith("error: JURIST_MODEL: unknown provider 'gemini' in 'gemini:pro'")


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unreachable_base_url_stops_before_any_work(command, environment, files):
    with socket.socket() as bound:  # bound, never listening: a connection is refused
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/v1"
        args = [*commands(files)[command], "--model", f"openai-compatible:judge@{url}"]
        line = refused_line(runner.invoke(app, args, env=WIDE))
    assert line == f"error: --model: {url} is unreachable: connection refused"


def test_an_eval_that_asks_no_model_runs_whatever_the_model_setting(environment, files):
    environment.setenv("JURIST_MODEL", "openai:gpt-4o-mini")  # no key: never needed here
    args = ["eval", files["rows"], "--judge", files["spec"], "--database", files["db"]]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output


def test_an_eval_with_errors_shows_the_first_ones_cause(environment, files, use_model):
    failure = ModelError(ErrorKind.UNAVAILABLE, "the server said no", model="test:judge")
    use_model(failure, failure)
    args = [*commands(files)["eval"]]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 3, result.output
    out = " ".join(result.stdout.split())
    assert "errors 2 unavailable" in out
    assert "first error q1:" in out
    assert "the server said no" in out


def test_ctrl_c_prints_the_command_that_resumes_the_run(environment, files, tmp_path, monkeypatch):
    async def interrupted(dataset, judge, *, progress, **options):
        progress.start(total=2, done=0, run="3f" * 16)
        progress.finish()
        raise KeyboardInterrupt

    monkeypatch.setattr("jurist.cli._eval.evaluate", interrupted)
    folder = tmp_path / "my data"
    folder.mkdir()
    data = folder / "rows.jsonl"
    data.write_text(json.dumps({"id": "q1", "question": "Q?", "answer": "A refund."}) + "\n")
    database = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    args = ["--no-cache", "eval", str(data), "-j", files["spec"], "--map", "goal=question"]
    args += ["-c", "2", "--name", "nightly", "--database", database]
    result = runner.invoke(app, args)
    assert result.exit_code == 130
    expected = [
        "jurist", "--no-cache", "eval", str(data), "--judge", files["spec"],
        "--map", "goal=question", "--concurrency", "2", "--database", database,
        "--resume", "3f" * 16,
    ]  # fmt: skip
    assert result.stderr.splitlines()[-1].strip() == shlex.join(expected)
    assert shlex.split(result.stderr.splitlines()[-1]) == expected


def test_a_bad_jurist_setting_stops_any_command_with_one_line(environment, files):
    environment.setenv("JURIST_QUALITY_MIN_SCORE", "5")
    get_settings.cache_clear()
    result = runner.invoke(app, ["check", files["answer.txt"], "--contains", "refund"], env=WIDE)
    line = refused_line(result)
    assert line.startswith("error: invalid configuration: JURIST_QUALITY_MIN_SCORE='5': ")
    assert "less than or equal to 1" in line
