"""The plugin's hooks and fixtures: options, markers, attributing judgments to tests, the
summary at the end, and the run stored with `--jurist-report`."""

import time
from collections.abc import Generator

import pytest

from jurist.core import Usage, run_sync
from jurist.pytest_plugin._cases import MARKER, parametrize_marked
from jurist.pytest_plugin._fixture import Jurist
from jurist.pytest_plugin._log import JudgmentLog, ModelChoice, close_log, open_log
from jurist.pytest_plugin._summary import summary_lines

JUDGED = "jurist"
LOG = pytest.StashKey[JudgmentLog]()
STARTED = pytest.StashKey[float]()
REPORTED = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jurist", "judging with jurist")
    group.addoption(
        "--jurist-model",
        default=None,
        metavar="SPEC",
        help="the model judges ask (a model spec: openai:gpt-4o-mini, local:qwen2.5-1.5b, ...); "
        "default: the JURIST_MODEL setting",
    )
    group.addoption(
        "--jurist-report",
        default=None,
        metavar="FILE",
        help="store the session's judgments as a run, one record per judged test, in the "
        "SQLite file FILE (or a database URL); `jurist runs show RUN --database URL` reads it",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{JUDGED}: a test judged with jurist (added to every test that uses the `jurist` "
        "fixture or a dataset); select with -m jurist, leave out with -m 'not jurist'",
    )
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path, map=None, argument='case'): run the test once per row of the dataset "
        "file `path` (relative to the test module), the row's Context as `argument`",
    )
    log = JudgmentLog(model=config.getoption("jurist_model"))
    config.stash[LOG] = log
    open_log(log)


def pytest_unconfigure(config: pytest.Config) -> None:
    log = config.stash.get(LOG, None)
    if log is not None:
        close_log(log)


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[STARTED] = time.perf_counter()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_marked(metafunc)


# Before pytest's own selection by marker (`-m`), so that the marker added here selects.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        judged = JUDGED in getattr(item, "fixturenames", ()) or item.get_closest_marker(MARKER)
        if judged and item.get_closest_marker(JUDGED) is None:
            item.add_marker(JUDGED)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    log = item.config.stash.get(LOG, None)
    if log is None:
        yield
        return
    with log.running(item.nodeid):
        yield


@pytest.fixture(scope="session")
def jurist_model(pytestconfig: pytest.Config) -> ModelChoice:
    """The model the `jurist` fixture's judges ask: `--jurist-model`, else None (the
    JURIST_MODEL setting). Override it in a conftest.py to judge with another model, such as
    `jurist.testing.FakeModel` in tests of your own."""
    model: str | None = pytestconfig.getoption("jurist_model")
    return model


@pytest.fixture
def jurist(request: pytest.FixtureRequest, jurist_model: ModelChoice) -> Jurist:
    """Judge in a test: `jurist.judge(spec_or_judge, output=..., ...)` returns the judgment,
    `jurist.assert_judgment(...)` fails the test unless it passes. Every judgment is counted
    in the session's summary under this test."""
    return Jurist(jurist_model, request.config.stash.get(LOG, None), request.node.nodeid)


@pytest.fixture(autouse=True)
def _jurist_model_of_the_test(request: pytest.FixtureRequest) -> None:
    """`assert_judgment` in a test that does not take the `jurist` fixture asks the test's
    `jurist_model` fixture all the same; it is looked up only when the test judges."""
    log = request.config.stash.get(LOG, None)
    if log is not None:
        log.test_model = lambda: request.getfixturevalue("jurist_model")


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = session.config.getoption("jurist_report")
    log = session.config.stash.get(LOG, None)
    if target is None or log is None:
        return
    # pytest imports this plugin in every session wherever jurist is installed: the store
    # and the runner (a third of a second and more) load only for a session that reports.
    from jurist.pytest_plugin._report import store_url, write_run
    from jurist.store import StoreError

    started = session.config.stash.get(STARTED, time.perf_counter())
    usage = Usage.total(call.judgment.usage for call in log.calls)
    try:
        run_id = run_sync(
            lambda: write_run(
                log,
                target,
                model=None if usage is None else usage.model,
                wall_seconds=time.perf_counter() - started,
            )
        )
    except (StoreError, OSError, ValueError) as exc:
        session.config.stash[REPORTED] = f"--jurist-report: cannot store the run in {target}: {exc}"
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    session.config.stash[REPORTED] = (
        f"run {run_id} stored: jurist runs show {run_id} --database {store_url(target)}"
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    config = terminalreporter.config
    log = config.stash.get(LOG, None)
    lines = [] if log is None else summary_lines(log)
    reported = config.stash.get(REPORTED, None)
    if not lines and reported is None:
        return
    terminalreporter.write_sep("=", "jurist")
    for line in lines:
        terminalreporter.write_line(line)
    if reported is not None:
        terminalreporter.write_line(reported)
