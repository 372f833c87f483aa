"""The `jurist` fixture's object: the model, and judging that the session remembers."""

from typing import TYPE_CHECKING, Any

from jurist.core import Context, Judgment
from jurist.pytest_plugin._judging import (
    AbstainPolicy,
    JudgeLike,
    check_abstain,
    context_of,
    judge_in_test,
    verdict,
)
from jurist.pytest_plugin._log import JudgedCall, JudgmentLog, ModelChoice

if TYPE_CHECKING:
    from jurist.llm import Model


class Jurist:
    """What the `jurist` fixture gives a test: `model` (the `jurist_model` fixture's:
    `--jurist-model`, else the JURIST_MODEL setting, with the response cache on unless
    JURIST_CACHE=0), `judge` to judge and look at the judgment, `assert_judgment` to judge
    and fail the test unless it passes, and the judgments made so far."""

    def __init__(self, model: ModelChoice, log: JudgmentLog | None, test: str) -> None:
        self._model = model
        self._log = log
        self._test = test

    @property
    def model(self) -> "Model":
        """The model judges built from a spec ask (built on first use)."""
        if self._model is None or isinstance(self._model, str):
            # Imported when a test first asks: pytest loads the plugin in every session.
            from jurist.llm import get_model

            self._model = get_model(self._model)
        return self._model

    def judge(
        self, judge_or_spec: JudgeLike, ctx: Context | None = None, /, **fields: Any
    ) -> Judgment:
        """The judgment of `judge_or_spec` (a Judge, jury, spec dict or spec string) on `ctx`
        or on the keyword fields (goal=, output=, context=, reference=, metadata=), whatever
        its status. The session counts it under this test."""
        return judge_in_test(judge_or_spec, ctx, self._model, fields)[1]

    def assert_judgment(
        self,
        judge_or_spec: JudgeLike,
        ctx: Context | None = None,
        /,
        *,
        abstain: AbstainPolicy = "skip",
        **fields: Any,
    ) -> Judgment:
        """As `jurist.pytest_plugin.assert_judgment`, asking this fixture's model."""
        check_abstain(abstain)
        context = context_of(ctx, fields)
        name, judgment = judge_in_test(judge_or_spec, context, self._model, {})
        return verdict(name, judgment, context, abstain)

    @property
    def judgments(self) -> list[Judgment]:
        """This test's judgments, in order."""
        return [call.judgment for call in self.calls]

    @property
    def calls(self) -> list[JudgedCall]:
        """This test's judgments with their judge and time taken."""
        return [] if self._log is None else self._log.of_test(self._test)

    @property
    def session_calls(self) -> list[JudgedCall]:
        """Every judgment of the session so far, in every test."""
        return [] if self._log is None else list(self._log.calls)
