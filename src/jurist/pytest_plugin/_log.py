"""The session's judgments: every one a test made, with the test it belongs to."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from jurist.core import Judgment

if TYPE_CHECKING:  # pytest loads the plugin in every session: the model layer when used
    from jurist.llm import Model

ModelChoice: TypeAlias = "Model | str | None"


@dataclass(frozen=True)
class JudgedCall:
    """One judgment made during the session: by which judge, in which test (its node id;
    None outside any test), and how long judging took."""

    test: str | None
    judge: str
    judgment: Judgment
    seconds: float


@dataclass
class JudgmentLog:
    """What one pytest session judged. `model` is the session's model (`--jurist-model`,
    else None: the JURIST_MODEL setting); while a test runs, `test_model` gives the test's
    `jurist_model` fixture (asked for only when the test judges), so that a conftest that
    overrides it chooses the model of every judgment in its tests."""

    model: ModelChoice = None
    calls: list[JudgedCall] = field(default_factory=list)
    test: str | None = None
    test_model: Callable[[], ModelChoice] | None = None

    def record(self, judge: str, judgment: Judgment, seconds: float) -> JudgedCall:
        call = JudgedCall(self.test, judge, judgment, seconds)
        self.calls.append(call)
        return call

    def current_model(self) -> ModelChoice:
        return self.model if self.test_model is None else self.test_model()

    def of_test(self, test: str) -> list[JudgedCall]:
        return [call for call in self.calls if call.test == test]

    def by_test(self) -> dict[str, list[JudgedCall]]:
        """The judgments of each test that judged, in the order the tests ran."""
        tests: dict[str, list[JudgedCall]] = {}
        for call in self.calls:
            if call.test is not None:
                tests.setdefault(call.test, []).append(call)
        return tests

    @contextmanager
    def running(self, test: str) -> Iterator[None]:
        self.test, self.test_model = test, None
        try:
            yield
        finally:
            self.test, self.test_model = None, None


# The logs of the pytest sessions under way, innermost last: pytest's own `pytester` runs a
# session inside a session, and each keeps its own judgments.
_active: list[JudgmentLog] = []


def active_log() -> JudgmentLog | None:
    """The judgment log of the innermost pytest session under way, if any."""
    return _active[-1] if _active else None


def open_log(log: JudgmentLog) -> None:
    _active.append(log)


def close_log(log: JudgmentLog) -> None:
    if log in _active:
        _active.remove(log)
