"""Spans sent over OTLP/HTTP arrive at a real receiver as a tree with token counts."""

from otlp_receiver import attributes, receiver

from jurist.core import Context, otlp_tracing, stop_tracing, tracing_enabled
from jurist.judges import CriterionJudge
from jurist.jury import Jury, Majority
from jurist.testing import FakeModel


async def test_a_judged_jury_arrives_as_a_span_tree_with_token_counts() -> None:
    jury = Jury(
        [
            CriterionJudge("States the window", FakeModel({"answer": "yes"}), name="window"),
            CriterionJudge("Cites the policy", FakeModel({"answer": "no"}), name="policy"),
        ],
        Majority(),
        name="panel",
    )
    with receiver() as received:
        otlp_tracing(f"{received.url}/v1/traces", service_name="jurist-test")
        try:
            await jury.vote(Context("Refunds?", output="Within 30 days."))
        finally:
            stop_tracing()  # sends what the batch holds
        assert not tracing_enabled()

    assert received.services == {"jurist-test"}
    spans = {span.name: span for span in received.spans}
    assert sorted(spans) == ["chat model", "judge policy", "judge window", "jury panel"]
    root = spans["jury panel"]
    assert root.parent_span_id == b""
    assert attributes(root)["jurist.jury.strategy"] == "majority"
    judges = [span for span in received.spans if span.parent_span_id == root.span_id]
    assert sorted(span.name for span in judges) == ["judge policy", "judge window"]
    calls = [span for span in received.spans if span.name == "chat model"]
    assert sorted(call.parent_span_id for call in calls) == sorted(j.span_id for j in judges)
    for call in calls:
        found = attributes(call)
        assert found["gen_ai.operation.name"] == "chat"
        assert isinstance(found["gen_ai.usage.input_tokens"], int)
        assert found["gen_ai.usage.input_tokens"] > 0
        assert found["gen_ai.usage.output_tokens"] > 0
        assert found["gen_ai.response.finish_reasons"] == ("stop",)
    assert {span.trace_id for span in received.spans} == {root.trace_id}
