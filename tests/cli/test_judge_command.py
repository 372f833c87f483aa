"""`jurist judge` as a user runs it, with a scripted model in place of the real one."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.core import Judgment, Status
from jurist.judges import RubricResult
from jurist.llm import ErrorKind, ModelError, Request, Response
from scripted import with_logprobs

runner = CliRunner()


def scored(distribution: dict[str, float], reasoning: str = "Reads well.") -> Response:
    top = max(distribution, key=distribution.__getitem__)
    return with_logprobs(
        json.dumps({"reasoning": reasoning})[:-1] + ', "score": ', (top, distribution), "}"
    )


def per_criterion(answers: dict[str, Response]):
    def step(request: Request) -> Response:
        prompt = request.messages[-1].content
        for name, response in answers.items():
            if f"one criterion only: {name}." in prompt:
                return response
        raise AssertionError("unknown criterion")

    return step


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    summary = tmp_path / "summary.txt"
    summary.write_text("The council approved a new park on Friday.", "utf-8")
    article = tmp_path / "article.txt"
    article.write_text("On Friday the city council voted to approve a new park.", "utf-8")
    return {"summary": summary, "article": article}


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def test_a_table_of_scores_and_exit_0_on_pass(use_model, files):
    model = use_model(
        *[
            per_criterion(
                {
                    "fluency": scored({"5": 0.8, "4": 0.2}, "Grammatical and clear."),
                    "consistency": scored({"5": 0.6, "4": 0.4}, "Matches the article."),
                }
            )
        ]
        * 2
    )
    result = run(
        "judge",
        str(files["summary"]),
        "--rubric",
        "summarization",
        "-c",
        "fluency",
        "-c",
        "consistency",
        "--source",
        str(files["article"]),
        "--plain",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("PASS")
    for text in ("fluency", "consistency *", "4.80", "Grammatical and clear.", "test:scripted"):
        assert text in result.stdout
    assert "city council voted" in model.requests[0].messages[-1].content


def test_json_output_carries_the_rubric_result_and_fail_exits_1(use_model, files):
    use_model(scored({"1": 0.7, "2": 0.3}, "Ungrammatical."))
    result = run(
        "judge", str(files["summary"]), "-r", "summarization", "-c", "fluency", "--plain", "--json"
    )
    assert result.exit_code == 1, result.output
    judgment = Judgment.from_json(result.stdout)
    assert judgment.status is Status.FAIL
    rubric = RubricResult.from_judgment(judgment)
    assert rubric.criteria_results[0].expected_score == pytest.approx(1.3)


def test_a_model_failure_exits_3(use_model, files):
    use_model(ModelError(ErrorKind.UNAVAILABLE, "no weights"))
    result = run("judge", str(files["summary"]), "-r", "summarization", "-c", "fluency")
    assert result.exit_code == 3, result.output
    assert result.stdout.startswith("ERROR")
    assert "no weights" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-r", "no-such-rubric"], "--rubric: no rubric with id 'no-such-rubric'"),
        (["-r", "summarization", "-c", "tone"], "--criterion: rubric 'summarization' has no"),
        (["-r", "summarization", "--pass-score", "9"], "--pass-score"),
        (["-r", "summarization", "--model", "nonsense"], "--model"),
        (["-r", "summarization", "--source", "/no/such/file"], "--source: no such file"),
        (["-r", "summarization", "--reference", "/no/such/file"], "--reference: no such file"),
    ],
)
def test_bad_input_exits_2_naming_the_option(use_model, files, args, message):
    model = use_model()
    result = run("judge", str(files["summary"]), *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert model.calls == 0


def test_a_rubric_file_is_read_and_its_criteria_chosen(use_model, files, rubric_file):
    # A spec names rubrics by library id only; the command line may also name a file.
    rubric = rubric_file("brevity", "plainness")
    use_model(scored({"5": 0.9, "4": 0.1}, "Short."))
    result = run("judge", str(files["summary"]), "-r", str(rubric), "-c", "brevity", "--json")
    assert result.exit_code == 0, result.output
    judged = RubricResult.from_judgment(Judgment.from_json(result.stdout))
    assert judged.rubric_id == "house-style"
    assert [row.criterion_name for row in judged.criteria_results] == ["brevity"]
    unknown = run("judge", str(files["summary"]), "-r", str(rubric), "-c", "tone")
    assert unknown.exit_code == 2
    assert "--criterion: rubric 'house-style' has no criterion 'tone'" in unknown.stderr


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("9", "--pass-score: Input should be less than or equal to 5"),
        ("0.5", "--pass-score: Input should be greater than or equal to 1"),
    ],
)
def test_a_pass_score_outside_one_to_five_names_its_flag(use_model, files, score, message):
    model = use_model()
    result = run("judge", str(files["summary"]), "-r", "summarization", "--pass-score", score)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert model.calls == 0
