"""jurist.testing.FakeModel used the way a user's own test suite uses it: a judge built with
it gives the scripted verdict, and the model records what the judge asked."""

import asyncio
import re
import textwrap

import pytest

from jurist.core import Context, Status, judge_sync
from jurist.judges import CriterionJudge, RubricJudge
from jurist.llm import ErrorKind, Model, ModelError, Response
from jurist.rubrics import get_rubric
from jurist.runner import evaluate
from jurist.specs import judge_from_spec
from jurist.testing import FakeModel

REFUND = "The answer states the refund window"
CTX = Context("What is the refund window?", output="You can return items within 30 days.")


def test_the_docstring_example_runs_as_written():
    [example] = re.findall(r"\n\n( {8}from jurist.*?)\n\n", FakeModel.__doc__, flags=re.DOTALL)
    exec(compile(textwrap.dedent(example), "FakeModel.__doc__", "exec"), {})


def test_it_is_a_model():
    assert isinstance(FakeModel(), Model)


def test_a_judge_built_with_it_gives_the_scripted_verdict():
    model = FakeModel({"answer": "no", "reason": "It never says how long."})
    judgment = judge_sync(CriterionJudge(REFUND, model), CTX)
    assert judgment.status is Status.FAIL
    assert judgment.reasoning == "It never says how long."
    assert judgment.usage is not None
    assert judgment.usage.model == "fake:model"
    assert model.calls == 1
    assert "You can return items within 30 days." in model.prompts[0]
    assert model.requests[0].json_schema is not None  # the judge asked for its answer's shape


def test_a_spec_takes_it_where_a_model_goes():
    model = FakeModel({"answer": "yes", "reason": "30 days."}, name="fake:judge")
    judge = judge_from_spec({"type": "criterion", "criterion": REFUND}, model=model)
    judgment = judge_sync(judge, CTX)
    assert judgment.status is Status.PASS
    assert judgment.metadata["model"] == "fake:judge"


def test_a_script_answers_call_by_call_and_running_out_is_an_error_saying_so():
    model = FakeModel(['{"answer": "yes", "reason": "a"}', {"answer": "no", "reason": "b"}])
    judge = CriterionJudge(REFUND, model)
    statuses = [judge_sync(judge, CTX).status for _ in range(2)]
    assert statuses == [Status.PASS, Status.FAIL]
    third = judge_sync(judge, CTX)
    assert third.status is Status.ERROR
    assert "called 3 times, but its script has 2 replies" in third.reasoning


def test_a_function_of_the_prompt_answers_each_prompt():
    def reply(prompt: str) -> dict[str, str]:
        said = "yes" if "30 days" in prompt else "no"
        return {"answer": said, "reason": f"said {said}"}

    model = FakeModel(reply)
    judge = CriterionJudge(REFUND, model)
    assert judge_sync(judge, CTX).status is Status.PASS
    vague = Context("What is the refund window?", output="Ask the shop.")
    assert judge_sync(judge, vague).status is Status.FAIL
    assert model.calls == 2


async def test_an_async_function_and_a_whole_response_are_answers_too():
    async def reply(prompt: str) -> Response:
        await asyncio.sleep(0)
        return Response('{"answer": "yes", "reason": "async"}')

    result = await CriterionJudge(REFUND, FakeModel(reply)).judge(CTX)
    assert (result.status, result.reasoning) == (Status.PASS, "async")


def test_an_exception_reply_tests_a_failing_model():
    model = FakeModel(ModelError(ErrorKind.RATE_LIMITED, "slow down"))
    judgment = judge_sync(CriterionJudge(REFUND, model), CTX)
    assert judgment.status is Status.ERROR
    assert judgment.metadata["cause"] == "rate_limited"


async def test_a_batch_of_rows_judged_with_it():
    rows = [
        {"question": "Refund window?", "answer": "30 days."},
        {"question": "Refund window?", "answer": "Ask the shop."},
    ]
    model = FakeModel(
        lambda prompt: {"answer": "yes" if "30 days" in prompt else "no", "reason": "scripted"}
    )
    result = await evaluate(rows, CriterionJudge(REFUND, model))
    assert [j.status for j in result.judgments.values()] == [Status.PASS, Status.FAIL]
    assert result.summary.pass_rate == 0.5


@pytest.mark.parametrize("replies", [42, None])
def test_replies_it_cannot_use_are_refused_saying_what_it_takes(replies):
    with pytest.raises(TypeError, match="a list of replies, or a function of the prompt"):
        FakeModel(replies)


def test_a_rubric_judge_reads_the_shape_the_docstring_gives():
    model = FakeModel({"reasoning": "Clear and correct.", "score": 4, "confidence": 0.9})
    rubric = get_rubric("answer-quality")
    judgment = judge_sync(RubricJudge(rubric, model), CTX)
    assert judgment.status in (Status.PASS, Status.FAIL)
    assert judgment.score is not None
    assert judgment.score.value == pytest.approx(4)
    assert model.calls == len(rubric.criteria)  # one call per criterion
