"""A judgment that ends in ERROR still counts what its calls cost: an answer that is not the
JSON asked for, re-asked and still not, was two billed calls."""

import jurist
from jurist.core import Status, Usage
from jurist.judges import CriterionJudge
from jurist.llm import Response, Structured
from jurist.testing import FakeModel

BILLED = Usage(input_tokens=100, output_tokens=10, calls=1)


def test_an_unreadable_answer_re_asked_counts_both_calls():
    provider = FakeModel(lambda prompt: Response(text="not json at all", usage=BILLED))
    judge = CriterionJudge("The answer states the refund period", Structured(provider))
    judgment = jurist.judge_sync(judge, jurist.Context(goal="q", output="Refunds in 30 days."))
    assert judgment.status is Status.ERROR
    assert provider.calls == 2
    assert judgment.usage is not None
    assert (judgment.usage.calls, judgment.usage.input_tokens) == (2, 200)
    assert judgment.usage.output_tokens == 20
