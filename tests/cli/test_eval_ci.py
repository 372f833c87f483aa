"""`jurist eval` gating a CI job (--fail-under, --junit) and `jurist runs export` for review,
as a user runs them, with deterministic judge specs."""

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app

runner = CliRunner()


@pytest.fixture
def database(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite3'}"


@pytest.fixture
def refund(tmp_path) -> Path:
    path = tmp_path / "refund.yaml"
    path.write_text("type: contains\nname: refund\nkeywords: [refund]\n")
    return path


@pytest.fixture
def panel(tmp_path) -> Path:
    spec = {
        "type": "jury",
        "name": "panel",
        "strategy": {"type": "majority"},
        "judges": [
            {"type": "contains", "name": "refund", "keywords": ["refund"]},
            {"type": "contains", "name": "days", "keywords": ["days"]},
            {"type": "contains", "name": "polite", "keywords": ["please"]},
        ],
    }
    path = tmp_path / "panel.json"
    path.write_text(json.dumps(spec))
    return path


def answers(path: Path, n: int, passing: int, *, broken: int | None = None) -> Path:
    """n rows, the first `passing` mention a refund; row `broken` has no answer."""
    lines = []
    for i in range(1, n + 1):
        row = {"id": f"q{i}", "question": f"Question {i}?", "docs": [f"doc {i}"]}
        if i != broken:
            row["answer"] = (
                "A refund within 30 days." if i <= passing else "No idea, <sorry> & bye."
            )
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")
    return path


def evaluate(*args: str):
    return runner.invoke(app, ["eval", *args])


@pytest.mark.parametrize(
    ("threshold", "code", "said"),
    [
        (
            "0.7",
            1,
            "gate: pass rate 66.5% (133 of 200 decided) is below --fail-under 70.0%: failed",
        ),
        ("70%", 1, "is below --fail-under 70.0%: failed"),
        ("0.665", 0, "gate: pass rate 66.5% (133 of 200 decided) meets --fail-under 66.5%"),
        ("60%", 0, "meets --fail-under 60.0%"),
    ],
)
def test_fail_under_gates_the_exit_code_on_the_pass_rate(
    tmp_path, refund, database, *, threshold, code, said
):
    data = answers(tmp_path / "answers.jsonl", 200, 133)
    result = evaluate(
        str(data), "--judge", str(refund), "--database", database, "--fail-under", threshold
    )
    assert result.exit_code == code, result.output
    assert said in result.stdout


def test_without_a_gate_failing_items_still_exit_0(tmp_path, refund, database):
    data = answers(tmp_path / "answers.jsonl", 10, 3)
    result = evaluate(str(data), "--judge", str(refund), "--database", database)
    assert result.exit_code == 0, result.output
    assert "gate:" not in result.stdout


def test_the_gate_is_in_the_json_summary(tmp_path, refund, database):
    data = answers(tmp_path / "answers.jsonl", 4, 1)
    result = evaluate(
        str(data), "--judge", str(refund), "--database", database, "--fail-under", "0.5", "--json"
    )
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["gate"] == {"fail_under": 0.5, "pass_rate": 0.25, "passed": False}


def test_a_failed_gate_outranks_errors_and_a_met_gate_leaves_them_exit_3(
    tmp_path, refund, database
):
    data = answers(tmp_path / "answers.jsonl", 4, 1, broken=4)
    low = evaluate(str(data), "-j", str(refund), "--database", database, "--fail-under", "0.9")
    assert low.exit_code == 1, low.output
    met = evaluate(str(data), "-j", str(refund), "--database", database, "--fail-under", "0.1")
    assert met.exit_code == 3, met.output


def test_no_decided_item_under_a_gate_exits_3_saying_so(tmp_path, refund, database):
    data = tmp_path / "answers.csv"
    data.write_text("id,answer\na,a refund,extra\nb,no,extra\n")  # every record too long
    result = evaluate(str(data), "-j", str(refund), "--database", database, "--fail-under", "0.5")
    assert result.exit_code == 3, result.output
    assert "gate: no item was decided (pass or fail), so there is no pass rate" in " ".join(
        result.stdout.split()
    )


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (
            "90",
            "--fail-under: '90' is not between 0 and 1 (or 0% and 100%); for 90 percent write 90%",
        ),
        ("1.5", "--fail-under: '1.5' is not between 0 and 1"),
        ("-0.1", "--fail-under: '-0.1' is not between 0 and 1"),
        ("120%", "--fail-under: '120%' is not between 0 and 1"),
        (
            "most",
            "--fail-under: 'most' is not a rate: write a fraction (0.9) or a percentage (90%)",
        ),
        ("nan", "--fail-under: 'nan' is not a rate"),
    ],
)
def test_a_bad_rate_exits_2_naming_the_option(tmp_path, refund, database, value, said):
    data = answers(tmp_path / "answers.jsonl", 2, 1)
    result = evaluate(str(data), "-j", str(refund), "--database", database, "--fail-under", value)
    assert result.exit_code == 2
    assert said in " ".join(result.stderr.split())


def test_a_junit_file_that_cannot_be_written_is_refused_before_the_run(tmp_path, refund, database):
    data = answers(tmp_path / "answers.jsonl", 2, 1)
    (tmp_path / "a-file").write_text("")
    for report, said in [
        (tmp_path / "a-file" / "r.xml", "cannot make its directory"),
        (tmp_path, "is a directory; name the .xml file to write"),
    ]:
        result = evaluate(
            str(data), "-j", str(refund), "--database", database, "--junit", str(report)
        )
        assert result.exit_code == 2
        assert "--junit:" in result.stderr
        assert said in " ".join(result.stderr.split())
    listed = runner.invoke(app, ["runs", "list", "--database", database, "--json"])
    assert json.loads(listed.stdout) == []  # refused before anything ran


def test_junit_has_a_case_per_item_with_failures_errors_and_the_reason(tmp_path, refund, database):
    data = answers(tmp_path / "answers.jsonl", 5, 2, broken=5)
    report = tmp_path / "reports" / "jurist.xml"  # its directory is made, as in a CI job
    result = evaluate(
        str(data), "-j", str(refund), "--database", database, "--junit", str(report),
        "--name", "nightly",
    )  # fmt: skip
    assert result.exit_code == 3, result.output
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites"
    assert (root.get("name"), root.get("tests"), root.get("failures"), root.get("errors")) == (
        "nightly", "5", "2", "1",
    )  # fmt: skip
    [suite] = root.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("skipped")) == ("refund", "5", "0")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == ["q1", "q2", "q3", "q4", "q5"]
    assert all(case.get("classname") == "refund" for case in cases.values())
    assert list(cases["q1"]) == []  # a pass is a bare test case
    [failure] = cases["q3"]
    assert failure.tag == "failure"
    assert "refund" in failure.get("message")  # the judge's reasoning names the missing keyword
    [error] = cases["q5"]
    assert (error.tag, error.get("type")) == ("error", "bad_input")
    assert "no column 'answer'" in error.get("message")
    for element in root.iter():  # numbers where the common schema wants numbers
        for attribute in ("tests", "failures", "errors", "skipped"):
            if element.get(attribute) is not None:
                int(element.get(attribute))
        if element.get("time") is not None:
            float(element.get("time"))


def test_junit_of_a_jury_has_a_suite_per_member(tmp_path, panel, database):
    data = answers(tmp_path / "answers.jsonl", 3, 1)
    report = tmp_path / "jury.xml"
    result = evaluate(str(data), "-j", str(panel), "--database", database, "--junit", str(report))
    assert result.exit_code == 0, result.output
    suites = ET.parse(report).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "panel",
        "panel/refund",
        "panel/days",
        "panel/polite",
    ]
    assert [s.get("failures") for s in suites] == ["2", "2", "2", "3"]


def test_runs_export_carries_inputs_and_votes_for_review(tmp_path, panel, database):
    data = answers(tmp_path / "answers.jsonl", 3, 1)
    ran = evaluate(str(data), "-j", str(panel), "--database", database, "--name", "review",
                   "--map", "context=docs")  # fmt: skip
    assert ran.exit_code == 0, ran.output
    exported = runner.invoke(app, ["runs", "export", "review", "-f", "csv", "--database", database])
    assert exported.exit_code == 0, exported.output
    table = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert [row["goal"] for row in table] == ["Question 1?", "Question 2?", "Question 3?"]
    assert table[1]["output"] == "No idea, <sorry> & bye."
    assert json.loads(table[2]["context"]) == ["doc 3"]
    assert [row["status"] for row in table] == ["pass", "fail", "fail"]
    assert [row["vote.days"] for row in table] == ["pass", "fail", "fail"]
    assert [row["vote_score.refund"] for row in table] == ["1.0", "0.0", "0.0"]

    lines = runner.invoke(app, ["runs", "export", "review", "-f", "jsonl", "--database", database])
    first = json.loads(lines.stdout.splitlines()[0])
    assert (first["goal"], first["context"], first["vote.polite"]) == (
        "Question 1?",
        ["doc 1"],
        "fail",
    )

    data.write_text(data.read_text().replace("Question 1?", "Changed?"))
    changed = runner.invoke(app, ["runs", "export", "review", "-f", "csv", "--database", database])
    assert changed.exit_code == 0
    assert f"note: the items' inputs are left out: its dataset {data.resolve()} has changed" in (
        " ".join(changed.stderr.split())
    )
    assert "goal" not in next(csv.reader(io.StringIO(changed.stdout)))
