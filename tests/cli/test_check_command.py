"""`jurist check` as a user runs it: exit codes, readable and JSON verdicts, bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist import __version__
from jurist.cli import app
from jurist.jury import Verdict

EXAMPLES = Path(__file__).parents[2] / "examples"
SCHEMA = str(EXAMPLES / "answer.schema.json")
GOOD = str(EXAMPLES / "good-answer.json")
BAD = str(EXAMPLES / "bad-answer.json")
KEYWORDS = ["--contains", "refund", "--contains", "30 days"]

runner = CliRunner()


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def test_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"jurist {__version__}"


def test_good_answer_passes_with_exit_0():
    result = run("check", GOOD, "--schema", SCHEMA, *KEYWORDS)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("PASS")


def test_bad_answer_fails_with_exit_1_and_names_every_problem():
    result = run("check", BAD, "--schema", SCHEMA, *KEYWORDS)
    assert result.exit_code == 1, result.output
    out = result.stdout
    assert out.startswith("FAIL")
    assert "$.confidence" in out
    assert "$.sources[0].url" in out
    assert "30 days" in out  # the missing keyword


def test_json_verdict_round_trips():
    result = run("check", BAD, "--schema", SCHEMA, *KEYWORDS, "--json")
    assert result.exit_code == 1
    verdict = Verdict.from_json(result.stdout)
    assert verdict.status.value == "fail"
    assert set(verdict.by_name) == {"schema", "contains"}
    schema_checks = {c.name for c in verdict.by_name["schema"].checks if not c.passed}
    assert {"$.confidence", "$.sources[0].url"} <= schema_checks


def test_output_from_stdin():
    text = Path(GOOD).read_text()
    assert run("check", "-", "--schema", SCHEMA, stdin=text).exit_code == 0
    assert run("check", "-", "--contains", "warranty", stdin=text).exit_code == 1


def test_any_keyword_mode():
    assert run("check", BAD, "--contains", "refund", "--contains", "send").exit_code == 1
    assert run("check", BAD, "--any", "--contains", "refund", "--contains", "send").exit_code == 0


def test_unparseable_output_is_a_fail_not_a_crash(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"answer": "unterminated')
    result = run("check", str(broken), "--schema", SCHEMA)
    assert result.exit_code == 1
    assert "FAIL" in result.stdout


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["check", "missing.json", "--contains", "x"], "OUTPUT"),
        (["check", GOOD, "--schema", "missing.schema.json"], "--schema"),
        (["check", GOOD], "nothing to check"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(args, names):
    result = run(*args)
    assert result.exit_code == 2
    assert names in result.stderr


def test_a_schema_that_is_not_json_or_not_valid_exits_2(tmp_path):
    not_json = tmp_path / "s.json"
    not_json.write_text("{not json")
    result = run("check", GOOD, "--schema", str(not_json))
    assert result.exit_code == 2
    assert "--schema" in result.stderr
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps({"type": "no-such-type"}))
    result = run("check", GOOD, "--schema", str(invalid))
    assert result.exit_code == 2
    assert "schema" in result.stderr.lower()


def test_the_installed_command_runs_as_a_real_process():
    # The console script a user gets, not the in-process runner.
    jurist = Path(sys.executable).parent / "jurist"
    done = subprocess.run(
        [str(jurist), "check", BAD, "--schema", SCHEMA, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["aggregated"]["status"] == "fail"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-words", "-1"], "--max-words: Input should be greater than or equal to 0"),
        (["--max-chars", "-5"], "--max-chars: Input should be greater than or equal to 0"),
        (["--regex", "x", "--regex", "("], "--regex: pattern '(' is not a valid regex"),
        (["--contains", ""], "--contains: String should have at least 1 character"),
    ],
)
def test_a_value_the_judges_refuse_exits_2_naming_its_flag(args, message):
    result = run("check", GOOD, *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())


def test_an_invalid_schema_is_named_by_its_flag(tmp_path):
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps({"type": "no-such-type"}))
    result = run("check", GOOD, "--schema", str(invalid))
    assert result.exit_code == 2
    assert "--schema: schema is not a valid JSON Schema" in " ".join(result.stderr.split())


def test_every_regex_given_is_checked_however_many():
    # A spec from a client holds at most MAX_SPEC_JUDGES judges; the command line's own
    # flags are not bounded by it.
    patterns = [arg for index in range(80) for arg in ("--regex", f"x{index}|.")]
    result = run("check", GOOD, *patterns, "--json")
    assert result.exit_code == 0, result.output
    assert len(Verdict.from_json(result.stdout).individual) == 80


def test_a_deeply_nested_schema_is_checked(tmp_path):
    # A spec from a client is refused past MAX_SPEC_DEPTH; a schema file is the user's own.
    schema: dict[str, object] = {"type": "string"}
    for _ in range(40):
        schema = {"type": "object", "properties": {"a": schema}}
    deep = tmp_path / "deep.schema.json"
    deep.write_text(json.dumps(schema))
    result = run("check", GOOD, "--schema", str(deep))
    assert result.exit_code == 0, result.output
