"""The pytest plugin across a session (pytester): the marker, dataset parametrisation, the
summary at the end, and the run `--jurist-report` stores for `jurist runs show`."""

import json

import pytest
from typer.testing import CliRunner

from jurist.cli import app

CONFTEST = """
import pytest
from jurist.testing import FakeModel


def reply(prompt):
    if "30 days" in prompt:
        return {"answer": "yes", "reason": "It says 30 days."}
    return {"answer": "no", "reason": "It never mentions the refund window."}


@pytest.fixture(scope="session")
def jurist_model():
    return FakeModel(reply)
"""

CRITERION = "criterion:The answer states the refund window"

ANSWERS = [
    {"id": "refund-window", "goal": "Refunds?", "output": "Within 30 days of delivery."},
    {"id": "shipping-only", "goal": "Refunds?", "output": "We ship in 2 days."},
    {"goal": "Refunds?", "output": "Refunds are accepted for 30 days."},
]


@pytest.fixture
def users(pytester: pytest.Pytester) -> pytest.Pytester:
    # pytest-asyncio, installed here, warns in every session that leaves this unset
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(CONFTEST)
    data = pytester.path / "data"
    data.mkdir()
    (data / "answers.jsonl").write_text("".join(json.dumps(row) + "\n" for row in ANSWERS))
    return pytester


MIXED = f"""
import pytest
from jurist.pytest_plugin import assert_judgment


def test_with_fixture(jurist):
    jurist.assert_judgment({CRITERION!r}, output="Within 30 days.")


@pytest.mark.jurist
def test_marked():
    assert_judgment("json", output='{{"ok": true}}')


def test_plain():
    assert 1 + 1 == 2
"""


def test_the_marker_selects_judged_tests_and_leaves_them_out(users: pytest.Pytester):
    users.makepyfile(test_user_mixed=MIXED)
    judged = users.runpytest("-m", "jurist", "-v")
    judged.assert_outcomes(passed=2, deselected=1)
    judged.stdout.fnmatch_lines(["*test_with_fixture PASSED*", "*test_marked PASSED*"])
    others = users.runpytest("-m", "not jurist", "-v")
    others.assert_outcomes(passed=1, deselected=2)
    others.stdout.fnmatch_lines(["*test_plain PASSED*"])
    # --strict-markers: the markers are registered
    users.runpytest("--strict-markers", "--markers").stdout.fnmatch_lines(
        ["@pytest.mark.jurist:*", "@pytest.mark.jurist_dataset(path, *"]
    )


def test_a_dataset_marker_runs_the_test_once_per_row_with_readable_ids(users: pytest.Pytester):
    users.makepyfile(
        test_user_rows=f"""
        import pytest

        @pytest.mark.jurist_dataset("data/answers.jsonl")
        def test_answer(jurist, case):
            assert case.goal == "Refunds?"
            jurist.assert_judgment({CRITERION!r}, case)
        """
    )
    result = users.runpytest("-v", "-m", "jurist")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_answer?refund-window? PASSED*",
            "*test_answer?shipping-only? FAILED*",
            "*test_answer?3? PASSED*",
        ]
    )


def test_jurist_cases_parametrize_from_the_test_modules_directory(users: pytest.Pytester):
    sub = users.path / "suite"
    sub.mkdir()
    (sub / "answers.csv").write_text("question,answer\nRefunds?,Within 30 days.\n")
    (sub / "test_cases.py").write_text(
        "import pytest\n"
        "from jurist.pytest_plugin import assert_judgment, jurist_cases\n\n"
        'CASES = jurist_cases("answers.csv", "goal=question,output=answer")\n\n'
        '@pytest.mark.parametrize("case", CASES)\n'
        "def test_answer(case):\n"
        f"    assert_judgment({CRITERION!r}, case)\n"
    )
    result = users.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_answer?2? PASSED*"])


def test_an_unreadable_row_or_marker_is_named_at_collection(users: pytest.Pytester):
    (users.path / "data" / "broken.jsonl").write_text(
        '{"goal": "Refunds?", "output": "30 days"}\n{"goal": "Refunds?"}\n'
    )
    (users.path / "data" / "other.jsonl").write_text('{"question": "Refunds?"}\n')
    users.makepyfile(
        test_user_broken="""
        import pytest

        @pytest.mark.jurist_dataset("data/broken.jsonl")
        def test_row(case):
            pass
        """,
        test_user_columns="""
        import pytest

        @pytest.mark.jurist_dataset("data/other.jsonl")
        def test_columns(case):
            pass
        """,
        test_user_argument="""
        import pytest

        @pytest.mark.jurist_dataset("data/answers.jsonl")
        def test_no_argument():
            pass
        """,
    )
    result = users.runpytest("--continue-on-collection-errors")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["test_user_broken.py::test_row: *broken.jsonl: line 2: *output*"])
    result.stdout.fnmatch_lines(["*other.jsonl: *no column for the output*marker's map=*"])
    result.stdout.fnmatch_lines(["*gives each row as the argument 'case', which the test does*"])
    assert "_cases.py" not in result.stdout.str()


def test_the_summary_counts_statuses_usage_and_the_slowest(users: pytest.Pytester):
    users.makepyfile(
        test_user_summary=f"""
        from jurist.core import Judgment, Usage, judge

        @judge(name="slow_abstainer")
        async def slow_abstainer(ctx):
            return Judgment.abstain("cannot tell", usage=Usage(3, 4, cost_usd=0.25, calls=1))

        def test_judged(jurist):
            jurist.judge({CRITERION!r}, output="Within 30 days.")
            jurist.judge({CRITERION!r}, output="We ship fast.")
            jurist.judge(slow_abstainer, output="?")

        def test_error(jurist):
            jurist.judge("json", output="{{")

        def test_priced(jurist):
            jurist.judge(slow_abstainer, output="?")
        """
    )
    result = users.runpytest("-k", "not priced")
    result.assert_outcomes(passed=2, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "*= jurist =*",
            "4 judgments in 2 tests: 1 pass, 2 fail, 1 abstain",
            # the fake model reports tokens and no cost: the sum's cost is unknown
            "usage: 3 model calls, * input + * output tokens, cost unknown",
            "slowest judgments:",
            "*s  * criterion * test_user_summary.py::test_judged",
        ]
    )
    lines = result.stdout.lines
    slowest = lines[lines.index("slowest judgments:") + 1 :]
    assert len([li for li in slowest if "test_user_summary.py::" in li]) == 4
    seconds = [float(li.split()[0].rstrip("s")) for li in slowest if "test_user_summary.py::" in li]
    assert seconds == sorted(seconds, reverse=True)

    priced = users.runpytest("-k", "priced")
    priced.stdout.fnmatch_lines(
        [
            "1 judgment in 1 test: 1 abstain",
            "usage: 1 model call, 3 input + 4 output tokens, cost $0.2500",
        ]
    )


def test_a_session_that_judges_nothing_prints_no_summary(users: pytest.Pytester):
    users.makepyfile(test_user_nothing="def test_nothing():\n    pass\n")
    result = users.runpytest()
    result.assert_outcomes(passed=1)
    assert "= jurist =" not in result.stdout.str()


def test_the_report_is_a_run_jurist_runs_show_reads(users: pytest.Pytester):
    users.makepyfile(
        test_user_report=f"""
        import pytest

        def test_two_judgments(jurist):
            jurist.judge("json", output='{{"refund": "30 days"}}')
            jurist.judge({CRITERION!r}, output="We ship fast.")

        def test_one(jurist):
            jurist.assert_judgment({CRITERION!r}, output="Within 30 days.")

        @pytest.mark.jurist_dataset("data/answers.jsonl")
        def test_rows(jurist, case):
            jurist.assert_judgment({CRITERION!r}, case)

        def test_not_judged():
            pass
        """
    )
    result = users.runpytest("--jurist-report", "report.db")
    result.assert_outcomes(passed=5, failed=1)
    line = next(li for li in result.stdout.lines if li.startswith("run ") and " stored" in li)
    run_id = line.split()[1]
    url = f"sqlite:///{users.path / 'report.db'}"
    assert line.endswith(f"jurist runs show {run_id} --database {url}")

    shown = CliRunner().invoke(app, ["runs", "show", run_id, "--database", url, "--json"])
    assert shown.exit_code == 0, shown.output
    run = json.loads(shown.output)
    assert run["kind"] == "pytest"
    assert run["status"] == "done"
    assert run["judge"] == "pytest"
    # one record per judged test: the two judgments of the first are its one verdict
    assert run["summary"]["n"] == 5
    assert run["summary"]["counts"]["fail"] == 2
    assert run["summary"]["counts"]["pass"] == 3

    exported = CliRunner().invoke(
        app, ["runs", "export", run_id, "--database", url, "--format", "jsonl"]
    )
    rows = {json.loads(li)["item_id"]: json.loads(li) for li in exported.stdout.splitlines()}
    assert set(rows) == {
        "test_user_report.py::test_two_judgments",
        "test_user_report.py::test_one",
        "test_user_report.py::test_rows[refund-window]",
        "test_user_report.py::test_rows[shipping-only]",
        "test_user_report.py::test_rows[3]",
    }
    assert rows["test_user_report.py::test_two_judgments"]["status"] == "fail"
    assert rows["test_user_report.py::test_rows[shipping-only]"]["status"] == "fail"

    human = CliRunner().invoke(app, ["runs", "show", run_id, "--database", url])
    assert human.exit_code == 0
    assert "3 pass, 2 fail" in human.output


def test_a_report_that_cannot_be_stored_says_so_and_fails_the_session(users: pytest.Pytester):
    users.makepyfile(
        test_user_one=f"def test_one(jurist):\n    jurist.judge({CRITERION!r}, output='')\n"
    )
    result = users.runpytest("--jurist-report", "nosuchdb://somewhere")
    result.stdout.fnmatch_lines(
        ["--jurist-report: cannot store the run in nosuchdb://somewhere: *"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_the_plugin_is_loaded_from_its_entry_point_and_can_be_turned_off(
    users: pytest.Pytester,
):
    users.makepyfile(test_user_mixed=MIXED)
    # no -p and no conftest line: pytest found the plugin by its pytest11 entry point
    loaded = users.runpytest("-m", "jurist")
    loaded.assert_outcomes(passed=2, deselected=1)
    off = users.runpytest("-p", "no:jurist", "-k", "fixture")
    off.assert_outcomes(errors=1, deselected=2)
    off.stdout.fnmatch_lines(["*fixture 'jurist' not found*"])
