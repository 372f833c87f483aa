"""`jurist compare` as a user runs it, with a scripted model in place of the real one."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.core import Judgment, Status
from jurist.llm import ErrorKind, ModelError, Request, Response
from scripted import with_logprobs

INSTRUCTION = "What is the capital of Australia?"
GOOD = "The capital of Australia is Canberra."
BAD = "The capital of Australia is Sydney."
runner = CliRunner()


def choose(p_first: float, reason: str = "one is right") -> Response:
    label = "1" if p_first >= 0.5 else "2"
    return with_logprobs(
        f'{{"reason": "{reason}", "better": "',
        (label, {"1": p_first, "2": 1 - p_first}),
        '"}',
    )


def prefers(text: str, p: float = 0.9):
    """A step giving P(the response holding `text` is better) = p, wherever it is shown."""

    def step(request: Request) -> Response:
        prompt = request.messages[-1].content
        first = prompt[prompt.index("Response 1:") : prompt.index("Response 2:")]
        return choose(p if text in first else 1 - p)

    return step


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text(GOOD, "utf-8")
    bad.write_text(BAD, "utf-8")
    return str(good), str(bad)


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def test_a_better_exits_0_and_shows_both_orders(use_model, files):
    good, bad = files
    use_model(prefers(GOOD), prefers(GOOD))
    result = run("compare", "--method", "direct", "--instruction", INSTRUCTION, good, bad)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("A WINS")
    assert "P(A better) 0.90" in out
    assert "position-consistent: yes" in out
    assert "A first" in out
    assert "B first" in out


def test_b_better_exits_1(use_model, files):
    good, bad = files
    use_model(prefers(GOOD), prefers(GOOD))
    result = run("compare", "--method", "direct", "-i", INSTRUCTION, bad, good)
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("B WINS")
    assert "P(A better) 0.10" in result.stdout


def test_a_position_bias_is_a_tie_with_exit_3(use_model, files):
    good, bad = files
    use_model(choose(0.9), choose(0.9))  # always the first shown
    result = run("compare", "--method", "direct", "-i", INSTRUCTION, good, bad)
    assert result.exit_code == 3, result.output
    assert result.stdout.startswith("TIE")
    assert "position-consistent: no" in result.stdout


def test_a_model_error_exits_3(use_model, files):
    good, bad = files
    use_model(prefers(GOOD), ModelError(ErrorKind.UNAVAILABLE, "weights missing"))
    result = run("compare", "--method", "direct", "-i", INSTRUCTION, good, bad)
    assert result.exit_code == 3, result.output
    assert result.stdout.startswith("ERROR")
    assert "weights missing" in result.stdout


def test_json_round_trips(use_model, files):
    good, bad = files
    use_model(prefers(GOOD, 0.8), prefers(GOOD, 0.8))
    result = run("compare", "--method", "direct", "-i", INSTRUCTION, good, bad, "--json")
    assert result.exit_code == 0, result.output
    judgment = Judgment.from_json(result.stdout)
    assert judgment.status is Status.PASS
    assert judgment.metadata["p_a"] == pytest.approx(0.8)
    assert judgment.metadata["position_consistent"] is True


def test_one_output_from_stdin(use_model, files):
    good, _ = files
    model = use_model(prefers(GOOD), prefers(GOOD))
    result = run("compare", "--method", "direct", "-i", INSTRUCTION, good, "-", stdin=BAD)
    assert result.exit_code == 0, result.output
    assert BAD in model.requests[0].messages[-1].content


def test_both_from_stdin_is_bad_input(use_model):
    model = use_model()
    result = run("compare", "--method", "direct", "-i", INSTRUCTION, "-", "-", stdin=GOOD)
    assert result.exit_code == 2
    assert "stdin" in result.stderr
    assert model.calls == 0


def test_a_missing_file_is_named(use_model, files, tmp_path):
    good, _ = files
    use_model()
    result = run(
        "compare", "--method", "direct", "-i", INSTRUCTION, good, str(tmp_path / "nope.txt")
    )
    assert result.exit_code == 2
    assert "B: no such file" in result.stderr


def test_an_empty_instruction_is_bad_input(use_model, files):
    use_model()
    result = run("compare", "--method", "direct", "-i", "  ", *files)
    assert result.exit_code == 2
    assert "--instruction" in result.stderr


def test_reference_goes_into_the_prompt(use_model, files, tmp_path):
    reference = tmp_path / "ref.txt"
    reference.write_text("Canberra", "utf-8")
    model = use_model(prefers(GOOD), prefers(GOOD))
    result = run(
        "compare", "--method", "direct", "-i", INSTRUCTION, *files, "--reference", str(reference)
    )
    assert result.exit_code == 0, result.output
    assert "```reference\nCanberra\n```" in model.requests[0].messages[-1].content


def test_a_missing_reference_is_named(use_model, files, tmp_path):
    use_model()
    result = run(
        "compare",
        "--method",
        "direct",
        "-i",
        INSTRUCTION,
        *files,
        "--reference",
        str(tmp_path / "x"),
    )
    assert result.exit_code == 2
    assert "--reference" in result.stderr


def test_rubric_criteria_go_into_the_prompt(use_model, files):
    model = use_model(prefers(GOOD), prefers(GOOD))
    result = run(
        "compare", "--method", "direct", "-i", INSTRUCTION, *files, "--rubric", "summarization"
    )
    assert result.exit_code == 0, result.output
    assert "- coherence: " in model.requests[0].messages[-1].content


def test_an_unknown_rubric_is_bad_input(use_model, files):
    use_model()
    result = run(
        "compare", "--method", "direct", "-i", INSTRUCTION, *files, "--rubric", "no-such-rubric"
    )
    assert result.exit_code == 2
    assert "--rubric" in result.stderr


def test_model_spec_is_checked_and_passed_on(use_model, files):
    model = use_model(prefers(GOOD), prefers(GOOD))
    assert (
        run(
            "compare", "--method", "direct", "-i", INSTRUCTION, *files, "--model", "nonsense::"
        ).exit_code
        == 2
    )
    result = run(
        "compare", "--method", "direct", "-i", INSTRUCTION, *files, "--model", "local:qwen2.5-0.5b"
    )
    assert result.exit_code == 0, result.output
    assert model.specs == ["local:qwen2.5-0.5b"]


def test_one_order_asks_once(use_model, files):
    model = use_model(prefers(GOOD))
    result = run("compare", "--method", "direct", "-i", INSTRUCTION, *files, "--one-order")
    assert result.exit_code == 0, result.output
    assert model.calls == 1
    assert "not measured" in result.stdout


def test_a_rubric_file_goes_into_the_prompt(use_model, files, rubric_file, tmp_path):
    rubric = rubric_file("brevity")
    model = use_model(prefers(GOOD), prefers(GOOD))
    result = run(
        "compare", "--method", "direct", "-i", INSTRUCTION, *files, "--rubric", str(rubric)
    )
    assert result.exit_code == 0, result.output
    assert "- brevity: The output is brevity." in model.requests[0].messages[-1].content
    missing = run(
        "compare",
        "--method",
        "direct",
        "-i",
        INSTRUCTION,
        *files,
        "--rubric",
        str(tmp_path / "no.yaml"),
    )
    assert missing.exit_code == 2
    assert "--rubric: " in missing.stderr
    assert "cannot be read" in " ".join(missing.stderr.split())


def pointwise_step(request: Request) -> Response:
    """The requirements listed, each output's verdicts (GOOD meets them, BAD does not), and
    a direct answer that always says the first shown is better."""
    prompt = request.messages[-1].content
    if "List what a response must do" in prompt:
        return with_logprobs('{"requirements": ["The response names the capital."]}')
    if "Requirements:" in prompt:
        yes = GOOD in prompt
        verdicts = [
            {"criterion": i, "answer": "yes" if yes else "no", "reason": "checked"} for i in (1, 2)
        ]
        return with_logprobs(json.dumps({"verdicts": verdicts}))
    return choose(0.9)


def test_pointwise_is_the_default_and_shows_the_requirements(use_model, files):
    good, bad = files
    use_model(*[pointwise_step] * 5)
    result = run("compare", "-i", INSTRUCTION, bad, good)
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("B WINS")
    assert "The response names the capital." in result.stdout
    assert "A P(yes)" in result.stdout


def test_an_unknown_method_is_bad_input(use_model, files):
    use_model()
    result = run("compare", "-i", INSTRUCTION, *files, "--method", "vibes")
    assert result.exit_code == 2
    assert "--method" in result.stderr
