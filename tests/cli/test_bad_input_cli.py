"""Bad JSON given to the command line and to dataset readers: exit 2 with a message naming
the argument, the line and the field, never a traceback."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.data import DatasetError, load_dataset, load_labelled
from jurist.settings import get_settings

runner = CliRunner()
DEEP = "[" * 10_000 + "]" * 10_000


def request_text(output: str) -> str:
    body = json.dumps({"output": "@@", "validation_types": ["schema"], "expected_schema": {}})
    return body.replace('"@@"', output)


def assert_refused(result, *expected: str) -> None:
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    for text in expected:
        assert text in said, said
    assert "Traceback" not in said
    assert not isinstance(result.exception, RecursionError)


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        (DEEP, "output[0][0][0]… : nested deeper than 64 levels (JURIST_MAX_JSON_DEPTH)"),
        ("NaN", "output: NaN is not a JSON number"),
        ("1e400", "output: the number 1e400 is too large for a float"),
        ("9" * 5_000, "output: an integer of 5000 digits"),
        ('"\\udc00"', "output: the string holds a lone surrogate"),
    ],
)
def test_validate_refuses_json_it_cannot_hold_naming_the_field(tmp_path, output, problem):
    path = tmp_path / "request.json"
    path.write_text(request_text(output))
    result = runner.invoke(app, ["validate", str(path)])
    # The console wraps long lines; the words, not the breaks, are compared.
    assert_refused(result, "REQUEST:", problem.replace("… :", "…:"))


def test_validate_refuses_bytes_that_are_not_utf8_in_a_file_or_on_stdin(tmp_path):
    path = tmp_path / "request.json"
    path.write_bytes(request_text('"caf\xe9"').encode("latin-1"))
    assert_refused(runner.invoke(app, ["validate", str(path)]), "REQUEST:", "cannot read")
    piped = runner.invoke(app, ["validate", "-"], input=path.read_bytes())
    assert_refused(piped, "REQUEST:", "not UTF-8")


@pytest.fixture
def depth_limit_2(monkeypatch):
    monkeypatch.setenv("JURIST_MAX_JSON_DEPTH", "2")
    get_settings.cache_clear()  # the settings are read once per process
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


@pytest.mark.usefixtures("depth_limit_2")
def test_the_depth_limit_follows_the_setting(tmp_path):
    path = tmp_path / "request.json"
    path.write_text(request_text("[[1]]"))
    assert_refused(runner.invoke(app, ["validate", str(path)]), "output[0]: nested deeper than 2")


def write_rows(path: Path, bad: str) -> Path:
    rows = [json.dumps({"id": "a", "answer": "A refund."}), '{"id": "b", "answer": ' + bad + "}"]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_eval_on_a_row_nested_10000_deep_exits_2_naming_line_and_field(tmp_path):
    data = write_rows(tmp_path / "answers.jsonl", DEEP)
    spec = tmp_path / "judge.yaml"
    spec.write_text("type: contains\nname: refund\nkeywords: [refund]\n")
    result = runner.invoke(
        app,
        [
            "eval",
            str(data),
            "--judge",
            str(spec),
            "--database",
            f"sqlite:///{tmp_path / 'runs.sqlite3'}",
        ],
    )
    assert_refused(
        result, "DATASET:", "answers.jsonl:2: answer[0][0][0]…: nested deeper than 64 levels"
    )


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("NaN", "rows.jsonl:2: answer: NaN is not a JSON number"),
        ("-1e999", "rows.jsonl:2: answer: the number -1e999 is too large"),
        ('"\\ud800"', "rows.jsonl:2: answer: the string holds a lone surrogate"),
    ],
)
def test_runner_datasets_refuse_values_no_record_could_hold(tmp_path, bad, problem):
    with pytest.raises(DatasetError, match=problem):
        load_dataset(write_rows(tmp_path / "rows.jsonl", bad))


def test_a_syntax_error_stays_the_error_of_its_item(tmp_path):
    dataset = load_dataset(write_rows(tmp_path / "rows.jsonl", "{oops"))
    assert dataset.items[1].context is None
    assert (dataset.items[1].problem or "").startswith("line 2: not valid JSON")


def test_calibration_datasets_name_the_line_and_field(tmp_path):
    path = tmp_path / "ratings.jsonl"
    good = {
        "id": "1",
        "source": "s",
        "output": "o",
        "human_scores": {"overall": 3},
        "scale": [1, 5],
    }
    deep = json.dumps({**good, "id": "2", "metadata": "@@"}).replace('"@@"', DEEP)
    path.write_text(json.dumps(good) + "\n" + deep + "\n")
    with pytest.raises(DatasetError) as caught:
        load_labelled(path)
    assert ":2" in str(caught.value)
    assert "metadata[0][0][0]…: nested deeper than 64 levels" in str(caught.value)
