"""Spans of judgments, juries, validation layers and model calls, read back from
OpenTelemetry's in-memory exporter."""

import asyncio

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from span_trees import ancestors, children, only

from jurist.core import Context, Status, judge, judge_sync, run_judge, trace_span
from jurist.judges import CriterionJudge
from jurist.jury import Cascade, Jury, Majority, Tier, TierPolicy
from jurist.llm import ErrorKind, ModelError, Request, estimate_input_tokens
from jurist.testing import FakeModel
from jurist.validation import Validator, validate

CTX = Context("How long do refunds take?", output="Refunds take 30 days.")
YES = {"answer": "yes", "reason": "It says 30 days."}
NO = {"answer": "no", "reason": "It never says."}


def test_a_model_backed_judgment_is_a_span_with_its_model_call_as_child(
    exporter: InMemorySpanExporter,
) -> None:
    model = FakeModel(YES, name="fake:judge-model")
    judgment = judge_sync(CriterionJudge("States the refund window", model, name="window"), CTX)
    assert judgment.status is Status.PASS

    spans = exporter.get_finished_spans()
    judged = only(spans, "judge window")
    assert judged.parent is None
    assert judged.attributes is not None
    assert judged.attributes["jurist.judge.name"] == "window"
    assert judged.attributes["jurist.judge.kind"] == "model"
    assert judged.attributes["jurist.judgment.status"] == "pass"
    assert judged.attributes["jurist.judgment.score"] == 1.0
    assert "jurist.judgment.cause" not in judged.attributes

    (call,) = children(spans, judged)
    assert call.name == "chat judge-model"
    request: Request = model.requests[0]
    assert call.attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "fake",
        "gen_ai.system": "fake",
        "gen_ai.request.model": "judge-model",
        "gen_ai.request.temperature": 0.0,
        "gen_ai.request.max_tokens": request.max_tokens,
        "gen_ai.request.seed": 0,
        "gen_ai.output.type": "json",
        "gen_ai.response.model": "judge-model",
        "gen_ai.usage.input_tokens": estimate_input_tokens(request),
        "gen_ai.usage.output_tokens": judgment.usage.output_tokens if judgment.usage else -1,
        "gen_ai.response.finish_reasons": ("stop",),
        "jurist.cache.hit": False,
    }
    assert call.status.status_code is StatusCode.UNSET
    times = (judged.start_time, call.start_time, call.end_time, judged.end_time)
    assert None not in times
    assert list(times) == sorted(times)  # type: ignore[type-var]


async def test_a_jury_is_a_tree_of_jury_judges_and_model_calls(
    exporter: InMemorySpanExporter,
) -> None:
    jury = Jury(
        [
            CriterionJudge("States the window", FakeModel(YES, name="fake:a"), name="window"),
            CriterionJudge("Cites the policy", FakeModel(NO, name="fake:b"), name="policy"),
            CriterionJudge("Is polite", FakeModel(YES, name="fake:c"), name="polite"),
        ],
        Majority(),
        name="panel",
        parallel=True,
    )
    verdict = await jury.vote(CTX)
    assert verdict.status is Status.PASS

    spans = exporter.get_finished_spans()
    root = only(spans, "jury panel")
    assert root.parent is None
    assert root.attributes is not None
    assert root.attributes["jurist.jury.strategy"] == "majority"
    assert root.attributes["jurist.jury.verdict"] == "pass"
    assert root.attributes["jurist.jury.judges"] == ("window", "policy", "polite")
    judges = children(spans, root)
    assert [span.name for span in judges] == ["judge policy", "judge polite", "judge window"]
    statuses = [span.attributes["jurist.judgment.status"] for span in judges if span.attributes]
    assert statuses == ["fail", "pass", "pass"]
    calls = [children(spans, span) for span in judges]
    names = [[call.name for call in found] for found in calls]
    assert names == [["chat b"], ["chat c"], ["chat a"]]
    for (call,) in calls:
        assert call.attributes is not None
        assert call.attributes["gen_ai.usage.input_tokens"] > 0
        assert call.attributes["gen_ai.usage.output_tokens"] > 0
    # One trace: every span carries the jury's trace id.
    assert {span.context.trace_id for span in spans if span.context} == {root.context.trace_id}


async def test_a_jury_run_as_a_judge_sits_under_its_judgment_span(
    exporter: InMemorySpanExporter,
) -> None:
    jury = Jury(
        [CriterionJudge("States the window", FakeModel(YES), name="window")],
        Majority(),
        name="panel",
    )
    await run_judge(jury, CTX)
    spans = exporter.get_finished_spans()
    judged = only(spans, "judge panel")
    assert [span.name for span in children(spans, judged)] == ["jury panel"]
    assert [span.name for span in children(spans, only(spans, "jury panel"))] == ["judge window"]


async def test_an_error_judgment_carries_its_cause(exporter: InMemorySpanExporter) -> None:
    model = FakeModel(ModelError(ErrorKind.TIMEOUT, "no answer in 5 s", model="fake:slow"))
    judgment = await run_judge(CriterionJudge("States the window", model, name="slow"), CTX)
    assert judgment.status is Status.ERROR

    spans = exporter.get_finished_spans()
    judged = only(spans, "judge slow")
    assert judged.attributes is not None
    assert judged.attributes["jurist.judgment.status"] == "error"
    assert judged.attributes["jurist.judgment.cause"] == "timeout"
    assert judged.attributes["error.type"] == "timeout"
    assert "jurist.judgment.score" not in judged.attributes
    assert judged.status.status_code is StatusCode.ERROR
    assert judged.status.description is not None
    assert "no answer in 5 s" in judged.status.description

    (call,) = children(spans, judged)
    assert call.attributes is not None
    assert call.attributes["error.type"] == "timeout"
    assert call.status.status_code is StatusCode.ERROR


async def test_a_judge_that_raises_is_an_error_span(exporter: InMemorySpanExporter) -> None:
    @judge(name="broken")
    def broken(ctx: Context) -> bool:
        raise RuntimeError("the judge broke")

    judgment = await run_judge(broken, CTX)
    assert judgment.status is Status.ERROR
    judged = only(exporter.get_finished_spans(), "judge broken")
    assert judged.status.status_code is StatusCode.ERROR
    assert judged.attributes is not None
    assert judged.attributes["jurist.judgment.status"] == "error"
    assert "RuntimeError" in (judged.status.description or "")


async def test_an_abstention_carries_its_cause(exporter: InMemorySpanExporter) -> None:
    @judge(name="unsure")
    async def unsure(ctx: Context) -> object:
        from jurist.core import Cause, Judgment

        return Judgment.abstain("nothing to judge", metadata={"cause": Cause.BAD_INPUT})

    await run_judge(unsure, CTX)
    judged = only(exporter.get_finished_spans(), "judge unsure")
    assert judged.attributes is not None
    assert judged.attributes["jurist.judgment.status"] == "abstain"
    assert judged.attributes["jurist.judgment.cause"] == "bad_input"
    assert judged.status.status_code is StatusCode.UNSET


async def test_a_validation_is_a_span_per_request_and_per_layer(
    exporter: InMemorySpanExporter,
) -> None:
    result = await validate(
        {
            "output": {"code": "def f(): pass"},
            "validation_types": ["schema"],
            "expected_schema": {"type": "object", "required": ["code", "tests"]},
        }
    )
    assert not result.valid
    spans = exporter.get_finished_spans()
    request = only(spans, "validate")
    assert request.parent is None
    assert request.attributes is not None
    assert request.attributes["jurist.validation.layers"] == ("schema",)
    assert request.attributes["jurist.validation.valid"] is False
    assert request.attributes["jurist.validation.verdicts"] == ("schema=fail",)
    (layer,) = children(spans, request)
    assert layer.name == "validation layer schema"
    assert layer.attributes is not None
    assert layer.attributes["jurist.validation.verdict"] == "fail"
    assert layer.attributes["jurist.validation.issues"] == 1
    # The layer runs its judge itself: the layer's span records the judgment.
    assert layer.attributes["jurist.judge.name"] == "schema"
    assert layer.attributes["jurist.judgment.status"] == "fail"
    assert children(spans, layer) == []


async def test_a_model_layer_holds_its_model_calls(exporter: InMemorySpanExporter) -> None:
    model = FakeModel(YES, name="fake:validator")
    validator = Validator(model)
    await validator.run(
        {
            "output": "def sort_list(xs): return sorted(xs)",
            "validation_types": ["schema", "criteria"],
            "acceptance_criteria": ["It sorts the list", "It has a docstring"],
            "expected_schema": {"type": "string"},
        }
    )
    spans = exporter.get_finished_spans()
    request = only(spans, "validate")
    layers = children(spans, request)
    assert [span.name for span in layers] == [
        "validation layer criteria",
        "validation layer schema",
    ]
    calls = [span for span in spans if span.name == "chat validator"]
    assert len(calls) == model.calls == 2
    for call in calls:
        # Each call sits under the criteria layer, through the criteria's own judgment spans.
        assert layers[0] in ancestors(spans, call)


async def test_a_refused_validation_request_fails_its_span(
    exporter: InMemorySpanExporter,
) -> None:
    with pytest.raises(ValueError, match="validation_types"):
        await validate({"output": {"a": 1}, "validation_types": ["nonsense"]})
    request = only(exporter.get_finished_spans(), "validate")
    assert request.status.status_code is StatusCode.ERROR
    assert request.attributes is not None
    assert request.attributes["error.type"] == "pydantic_core._pydantic_core.ValidationError"


async def test_a_cancelled_judgment_ends_its_span_as_failed(
    exporter: InMemorySpanExporter,
) -> None:
    started = asyncio.Event()

    @judge(name="stuck")
    async def stuck(ctx: Context) -> bool:
        started.set()
        await asyncio.Event().wait()  # never set: only cancellation ends it
        return True

    with trace_span("outer") as outer:
        assert outer is not None
        task = asyncio.create_task(run_judge(stuck, CTX))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The judgment's span no longer current here: a span started now is the outer's child.
        with trace_span("after"):
            pass
    spans = exporter.get_finished_spans()
    stuck_span = only(spans, "judge stuck")
    assert stuck_span.status.status_code is StatusCode.ERROR
    assert stuck_span.attributes is not None
    assert stuck_span.attributes["error.type"] == "asyncio.exceptions.CancelledError"
    assert [span.name for span in children(spans, only(spans, "outer"))] == [
        "after",
        "judge stuck",
    ]


async def test_a_cascade_is_the_parent_of_the_tiers_it_ran(
    exporter: InMemorySpanExporter,
) -> None:
    @judge(name="short")
    def short(ctx: Context) -> bool:
        return len(ctx.output) < 10  # fails here: the next tier decides

    cascade = Cascade(
        [
            Tier("cheap", short, TierPolicy.ACCEPT_ON_ALL_PASS),
            Tier("model", CriterionJudge("States the window", FakeModel(YES)), TierPolicy.FINAL),
        ],
        name="triage",
    )
    verdict = await cascade.vote(CTX)
    assert verdict.status is Status.PASS
    spans = exporter.get_finished_spans()
    root = only(spans, "cascade triage")
    assert root.attributes is not None
    assert root.attributes["jurist.cascade.tiers"] == ("cheap", "model")
    assert root.attributes["jurist.cascade.settled_by"] == "model"
    assert root.attributes["jurist.cascade.tiers_run"] == 2
    assert root.attributes["jurist.cascade.verdict"] == "pass"
    tiers = children(spans, root)
    assert [span.name for span in tiers] == ["judge criterion", "judge short"]
    assert [span.name for span in children(spans, tiers[0])] == ["chat model"]
