"""`jurist criteria` as a user runs it, with a scripted model in place of the real one."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.core import Judgment, Status
from jurist.llm import ErrorKind, ModelError, Request, Response
from scripted import answer, with_logprobs

REFUND = "The answer states that the refund window is 30 days"
POLITE = "The answer is polite"
runner = CliRunner()


def verdict(p_yes: float, reason: str) -> Response:
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs(
        '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), f'", "reason": "{reason}"}}'
    )


def by_criterion(answers: dict[str, Response]):
    def step(request: Request) -> Response:
        return answers[request.messages[-1].content.rstrip().rsplit("Criterion: ", 1)[1]]

    return step


@pytest.fixture
def output_file(tmp_path: Path) -> Path:
    path = tmp_path / "answer.txt"
    path.write_text("You can return any item within 30 days for a full refund.", "utf-8")
    return path


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def test_all_criteria_met_exits_0_with_a_table(use_model, output_file):
    answers = {REFUND: verdict(0.93, "It says 30 days."), POLITE: verdict(0.8, "Neutral tone.")}
    use_model(*[by_criterion(answers)] * 2)
    result = run("criteria", str(output_file), "--criterion", REFUND, "-c", POLITE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("PASS")
    assert "all 2 criteria met" in out
    assert "P(yes) 0.93" in out
    assert "It says 30 days." in out
    assert "polite" in out


def test_one_criterion_met_reads_in_the_singular(use_model, output_file):
    use_model(by_criterion({REFUND: verdict(0.93, "It says 30 days.")}))
    result = run("criteria", str(output_file), "--criterion", REFUND)
    assert result.exit_code == 0, result.output
    assert "the criterion met" in result.stdout
    assert "all 1" not in result.stdout


def test_an_unmet_criterion_exits_1(use_model, output_file):
    answers = {REFUND: verdict(0.93, "It says 30 days."), POLITE: verdict(0.2, "Curt.")}
    use_model(*[by_criterion(answers)] * 2)
    result = run("criteria", str(output_file), "-c", REFUND, "-c", POLITE)
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("FAIL")
    assert "1 of 2 criteria not met" in result.stdout
    assert "Curt." in result.stdout


def test_json_output_is_the_judgment(use_model, output_file):
    use_model(verdict(0.3, "It says 90 days."))
    result = run("criteria", str(output_file), "-c", REFUND, "--threshold", "0.2", "--json")
    assert result.exit_code == 0, result.output
    judgment = Judgment.from_json(result.stdout)
    assert judgment.status is Status.PASS
    assert judgment.metadata["passed_criteria"] == (REFUND,)
    assert judgment.metadata["threshold"] == 0.2


def test_goal_sources_and_stdin_reach_the_prompt(use_model, tmp_path):
    source = tmp_path / "policy.txt"
    source.write_text("Refunds are accepted within 30 days.", "utf-8")
    model = use_model(verdict(0.9, "ok"))
    result = run(
        "criteria", "-", "-c", REFUND, "--goal", "What is the refund window?",
        "--source", str(source),
        stdin="Thirty days.",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    prompt = model.requests[0].messages[-1].content
    assert "Refunds are accepted within 30 days." in prompt
    assert "What is the refund window?" in prompt
    assert "Thirty days." in prompt


def test_together_asks_once(use_model, output_file):
    response = with_logprobs(
        '{"verdicts": [{"criterion": 1, "answer": "',
        ("yes", {"yes": 0.9, "no": 0.1}),
        '", "reason": "a"}, {"criterion": 2, "answer": "',
        ("yes", {"yes": 0.7, "no": 0.3}),
        '", "reason": "b"}]}',
    )
    model = use_model(response)
    result = run("criteria", str(output_file), "-c", REFUND, "-c", POLITE, "--together", "--json")
    assert result.exit_code == 0, result.output
    assert model.calls == 1
    assert json.loads(result.stdout)["metadata"]["mode"] == "together"


def test_a_model_failure_is_undecided_exit_3(use_model, output_file):
    use_model(ModelError(ErrorKind.TIMEOUT, "too slow"))
    result = run("criteria", str(output_file), "-c", REFUND)
    assert result.exit_code == 3, result.output
    assert result.stdout.startswith("ERROR")
    assert "timeout" in result.stdout


def test_an_unreadable_answer_is_undecided_exit_3(use_model, output_file):
    use_model(answer("Sure!"))
    result = run("criteria", str(output_file), "-c", REFUND, "--json")
    assert result.exit_code == 3
    assert json.loads(result.stdout)["metadata"]["cause"] == "unparseable"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["criteria", "{out}"], "--criterion"),
        (["criteria", "{out}", "-c", "  "], "--criterion: criteria[0] is empty"),
        (["criteria", "{out}", "-c", REFUND, "-c", REFUND], "repeats"),
        (["criteria", "missing.txt", "-c", REFUND], "OUTPUT: no such file"),
        (["criteria", "{out}", "-c", REFUND, "--source", "nope.txt"], "--source: no such file"),
        (["criteria", "{out}", "-c", REFUND, "--threshold", "1.5"], "--threshold"),
        (["criteria", "{out}", "-c", REFUND, "--model", "nonsense"], "--model"),
    ],
)
def test_bad_input_exits_2_and_names_the_argument(use_model, output_file, args, message):
    model = use_model()
    result = run(*[a.replace("{out}", str(output_file)) for a in args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())
    assert model.calls == 0


@pytest.mark.parametrize(
    ("threshold", "message"),
    [("1.5", "Input should be less than 1"), ("0", "Input should be greater than 0")],
)
def test_a_threshold_outside_zero_one_names_its_flag(use_model, output_file, threshold, message):
    model = use_model()
    result = run("criteria", str(output_file), "-c", REFUND, "--threshold", threshold)
    assert result.exit_code == 2, result.output
    assert f"--threshold: {message}" in result.stderr
    assert model.calls == 0
