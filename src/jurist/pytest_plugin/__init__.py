"""jurist in pytest: judge in tests, and fail them with a message that says why.

Installed with jurist, the plugin is loaded by pytest on its own (the `pytest11` entry
point). It gives

- `assert_judgment(judge_or_spec, ctx | **fields)`: judge, return the judgment when it
  passes; a FAIL or an ERROR fails the test with status, score, reasoning, cause and
  failed checks; an ABSTAIN skips it (`abstain="fail"` or `"pass"` to choose otherwise);
- the `jurist` fixture (`jurist.judge(...)`, `jurist.assert_judgment(...)`, `jurist.model`)
  and the `jurist_model` fixture it asks, which a conftest.py overrides to judge with
  another model (`jurist.testing.FakeModel` in tests of your own);
- the `jurist` marker (every test that uses the fixture or a dataset has it: `-m jurist`);
- `@pytest.mark.jurist_dataset(PATH)` and `jurist_cases(PATH)`: a test per dataset row;
- a summary of the session's judgments at the end, and `--jurist-report FILE` to store
  them as a run `jurist runs show` reads; `--jurist-model SPEC` picks the model.

    from jurist.pytest_plugin import assert_judgment

    def test_refund_answer(jurist):
        answer = my_bot("How long do I have to return shoes?")
        assert_judgment("criterion:The answer states the refund window", output=answer)
"""

from jurist.pytest_plugin._cases import jurist_cases
from jurist.pytest_plugin._fixture import Jurist

# pytest finds the plugin's hooks and fixtures in this module, the entry point's.
from jurist.pytest_plugin._hooks import (
    _jurist_model_of_the_test as _jurist_model_of_the_test,
)
from jurist.pytest_plugin._hooks import (
    jurist,
    jurist_model,
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_generate_tests,
    pytest_runtest_protocol,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
    pytest_unconfigure,
)
from jurist.pytest_plugin._judging import (
    AbstainPolicy,
    JudgeLike,
    assert_judgment,
    describe_judgment,
)
from jurist.pytest_plugin._log import JudgedCall

__all__ = [
    "AbstainPolicy",
    "JudgeLike",
    "JudgedCall",
    "Jurist",
    "assert_judgment",
    "describe_judgment",
    "jurist",
    "jurist_cases",
    "jurist_model",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_generate_tests",
    "pytest_runtest_protocol",
    "pytest_sessionfinish",
    "pytest_sessionstart",
    "pytest_terminal_summary",
    "pytest_unconfigure",
]
