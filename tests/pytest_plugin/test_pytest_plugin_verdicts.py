"""The pytest plugin run on users' test files (pytester): what a judgment does to a test."""

import pytest

from jurist.settings import get_settings

# The users' conftest: every test judges with a FakeModel that says yes when the output
# states a refund window of 30 days, and whose answer is unreadable for "garbled" outputs.
CONFTEST = """
import pytest
from jurist.testing import FakeModel


def reply(prompt):
    if "garbled" in prompt:
        return "this is not JSON"
    if "30 days" in prompt:
        return {"answer": "yes", "reason": "It says 30 days."}
    return {"answer": "no", "reason": "It never mentions the refund window."}


@pytest.fixture(scope="session")
def jurist_model():
    return FakeModel(reply)
"""

CRITERION = "criterion:The answer states the refund window"


@pytest.fixture
def bare(pytester: pytest.Pytester) -> pytest.Pytester:
    # pytest-asyncio, installed here, warns in every session that leaves this unset
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


@pytest.fixture
def users(bare: pytest.Pytester) -> pytest.Pytester:
    bare.makeconftest(CONFTEST)
    return bare


def test_a_passing_judgment_passes_and_is_returned(users: pytest.Pytester):
    users.makepyfile(
        f"""
        from jurist.core import Status
        from jurist.pytest_plugin import assert_judgment

        def test_refund(jurist):
            judgment = assert_judgment({CRITERION!r}, goal="Refunds?", output="Within 30 days.")
            assert judgment.status is Status.PASS
            assert judgment.reasoning == "It says 30 days."
            assert jurist.judgments == [judgment]
        """
    )
    users.runpytest().assert_outcomes(passed=1)


def test_a_fail_shows_status_score_reasoning_checks_and_inputs(users: pytest.Pytester):
    users.makepyfile(
        f"""
        from jurist.pytest_plugin import assert_judgment

        def test_refund(jurist):
            jurist.assert_judgment({CRITERION!r}, goal="Refunds?", output="We ship fast.")

        def test_keywords():
            assert_judgment(
                {{"type": "contains", "keywords": ["refund", "days"], "mode": "all"}},
                output="No refunds, sorry.",
            )
        """
    )
    result = users.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "jurist: judge 'criterion': FAIL, score no",
            "  reasoning: It never mentions the refund window.",
            "  judged:",
            "    goal: Refunds?",
            "    output: We ship fast.",
        ]
    )
    result.stdout.fnmatch_lines(["jurist: judge 'contains': FAIL*", "  failed checks:", "    - *"])
    # The message is jurist's, not a traceback into the plugin.
    assert "_judging.py" not in result.stdout.str()


def test_an_error_fails_the_test_with_its_cause(users: pytest.Pytester):
    users.makepyfile(
        f"""
        from jurist.llm import ModelError
        from jurist.pytest_plugin import assert_judgment
        from jurist.testing import FakeModel

        def test_unreadable_answer(jurist):
            jurist.assert_judgment({CRITERION!r}, output="garbled")

        def test_model_down():
            down = FakeModel(ModelError("connection", "the endpoint refused the connection"))
            assert_judgment({CRITERION!r}, output="Within 30 days.", model=down)

        def test_error_cannot_pass_even_when_abstentions_may(jurist):
            jurist.assert_judgment({CRITERION!r}, output="garbled", abstain="pass")
        """
    )
    result = users.runpytest()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["jurist: judge 'criterion': ERROR", "*", "  cause: unparseable"])
    result.stdout.fnmatch_lines(["  cause: connection", "  error: *the endpoint refused*"])


ABSTAINING = """
from jurist.core import Judgment, judge
from jurist.pytest_plugin import assert_judgment


@judge(name="sourced")
def sourced(ctx):
    if not ctx.context:
        return Judgment.abstain("no sources to check the answer against")
    return Judgment.ok("sourced")
"""


def test_an_abstention_skips_with_its_reason_unless_told_otherwise(users: pytest.Pytester):
    users.makepyfile(
        ABSTAINING
        + """
def test_skipped():
    assert_judgment(sourced, output="42")

def test_failed():
    assert_judgment(sourced, output="42", abstain="fail")

def test_passed():
    judgment = assert_judgment(sourced, output="42", abstain="pass")
    assert judgment.status.value == "abstain"

def test_sourced():
    assert_judgment(sourced, output="42", context=["The answer is 42."])
"""
    )
    result = users.runpytest("-rs")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["SKIPPED*jurist: judge 'sourced' abstained: no sources to check the answer against"]
    )
    result.stdout.fnmatch_lines(["jurist: judge 'sourced': ABSTAIN", "  reasoning: no sources*"])


def test_the_fixture_judges_without_failing_and_keeps_the_tests_judgments(users: pytest.Pytester):
    users.makepyfile(
        f"""
        def test_judge(jurist):
            first = jurist.judge({CRITERION!r}, output="We ship fast.")
            second = jurist.judge("json", output='{{"refund": "30 days"}}')
            assert [first.status.value, second.status.value] == ["fail", "pass"]
            assert [c.judge for c in jurist.calls] == ["criterion", "json"]
            assert jurist.model.name == "fake:model"

        def test_other(jurist):
            assert jurist.judgments == []
            assert len(jurist.session_calls) == 2
        """
    )
    users.runpytest("-p", "no:randomly").assert_outcomes(passed=2)


def test_bad_specs_and_fields_are_named(users: pytest.Pytester):
    users.makepyfile(
        """
        import pytest
        from jurist.pytest_plugin import assert_judgment

        def test_unknown_form():
            with pytest.raises(ValueError, match="criterion:TEXT"):
                assert_judgment("politeness please", output="hi")

        def test_unknown_field():
            with pytest.raises(TypeError, match="unknown field 'answer'"):
                assert_judgment("json", answer="{}")

        def test_bad_abstain():
            with pytest.raises(ValueError, match="abstain"):
                assert_judgment("json", output="{}", abstain="maybe")

        def test_bad_abstain_of_the_fixture(jurist):
            with pytest.raises(ValueError, match="abstain"):
                jurist.assert_judgment("json", output="{}", abstain="maybe")
            assert jurist.judgments == []

        def test_bad_spec():
            with pytest.raises(ValueError, match="keywords"):
                assert_judgment({"type": "contains"}, output="{}")
        """
    )
    users.runpytest().assert_outcomes(passed=5)


def test_jurist_model_option_is_the_model_judges_ask(
    bare: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    # No key for the model named: the judge's ERROR names the model the option chose.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("JURIST_MODEL", "local:qwen2.5-1.5b")
    get_settings.cache_clear()
    bare.makepyfile(
        f"""
        from jurist.pytest_plugin import assert_judgment

        def test_model(jurist_model, jurist):
            assert jurist_model == "openai:judge-model"
            judgment = jurist.judge({CRITERION!r}, output="Within 30 days.")
            assert judgment.status.value == "error"
            assert "openai:judge-model" in judgment.error_info["message"]
            assert "OPENAI_API_KEY" in judgment.reasoning

        def test_on_its_own():
            assert_judgment({CRITERION!r}, output="Within 30 days.")
        """
    )
    try:
        result = bare.runpytest("--jurist-model", "openai:judge-model")
    finally:
        get_settings.cache_clear()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["  cause: unavailable", "  error: *openai:judge-model*"])


def test_judging_in_an_async_test_works_beside_its_event_loop(users: pytest.Pytester):
    users.makepyfile(
        f"""
        import asyncio

        import pytest
        from jurist.pytest_plugin import assert_judgment

        @pytest.mark.asyncio
        async def test_async(jurist):
            assert asyncio.get_running_loop().is_running()
            assert_judgment({CRITERION!r}, output="Within 30 days.")
            jurist.assert_judgment({CRITERION!r}, output="We ship fast.")
        """
    )
    result = users.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["jurist: judge 'criterion': FAIL, score no"])
    result.stdout.fnmatch_lines(["2 judgments in 1 test: 1 pass, 1 fail"])
