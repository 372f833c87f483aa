"""The rag helper, context relevance and answer relevance."""

import dataclasses
import re

import pytest

from jurist.core import Cause, Context, NumericScore, Status, Usage
from jurist.judges import (
    AnswerRelevanceJudge,
    ContextRelevanceJudge,
    ContextRelevanceReport,
    CriterionReport,
    PassageFailure,
    PassageVerdict,
    rag,
)
from jurist.llm import ErrorKind, ModelError, Request, Response
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, with_logprobs

QUESTION = "When was the Eiffel Tower completed?"
RELEVANT = "The Eiffel Tower was completed in 1889."
OFF_TOPIC = "Pasta should be cooked in salted water."


def yes_no(p_yes: float, reason: str = "because") -> Response:
    said = "yes" if p_yes >= 0.5 else "no"
    response = with_logprobs(
        '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), f'", "reason": "{reason}"}}'
    )
    return dataclasses.replace(response, usage=Usage(input_tokens=10, output_tokens=5, calls=1))


def by_passage(answers: dict[str, Response | Exception]):
    def step(request: Request) -> Response:
        prompt = request.messages[-1].content
        outcome = next(a for passage, a in answers.items() if passage in prompt)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    return step


def model(*script) -> ScriptedModel:
    return ScriptedModel("test:judge", script, capabilities=LOGPROB_CAPABILITIES)


# The rag helper


def test_rag_reads_the_context_fields_when_no_metadata_is_given():
    ctx = Context(QUESTION, output="In 1889.", context=(RELEVANT, "  ", OFF_TOPIC))
    assert rag.question(ctx) == QUESTION
    assert rag.answer(ctx) == "In 1889."
    assert rag.passages(ctx) == [RELEVANT, OFF_TOPIC]
    assert rag.context(ctx) == f"{RELEVANT}\n{OFF_TOPIC}"


def test_rag_metadata_keys_win_and_a_list_joins_with_newlines():
    ctx = Context(
        "goal",
        output="output",
        context=("ignored",),
        metadata={
            rag.QUESTION_KEY: QUESTION,
            rag.CONTEXT_KEY: [RELEVANT, OFF_TOPIC],
            rag.ANSWER_KEY: "In 1889.",
        },
    )
    assert (rag.question(ctx), rag.answer(ctx)) == (QUESTION, "In 1889.")
    assert rag.context(ctx) == f"{RELEVANT}\n{OFF_TOPIC}"
    assert rag.context(Context("g", metadata={rag.CONTEXT_KEY: RELEVANT})) == RELEVANT


@pytest.mark.parametrize(
    ("read", "metadata", "key"),
    [
        (rag.passages, {"rag.context": 3}, "'rag.context'"),
        (rag.context, {"rag.context": ["ok", 4]}, "'rag.context[1]'"),
        (rag.question, {"rag.question": ["q"]}, "'rag.question'"),
        (rag.answer, {"rag.answer": 42}, "'rag.answer'"),
    ],
)
def test_rag_metadata_of_the_wrong_type_is_an_error_naming_the_key(read, metadata, key):
    with pytest.raises(ValueError, match=re.escape(key)):
        read(Context("g", metadata=metadata))


# Context relevance


async def test_each_passage_is_judged_and_the_score_is_the_share_relevant():
    judge_model = model(*[by_passage({RELEVANT: yes_no(0.9), OFF_TOPIC: yes_no(0.1)})] * 2)
    ctx = Context(QUESTION, context=(RELEVANT, OFF_TOPIC))
    result = await ContextRelevanceJudge(judge_model).judge(ctx)
    assert result.status is Status.PASS
    assert result.score == NumericScore(0.5)
    assert [c.passed for c in result.checks] == [True, False]
    assert [row["relevant"] for row in result.metadata["passages"]] == [True, False]
    assert result.usage is not None
    assert result.usage.calls == 2
    prompts = [r.messages[-1].content for r in judge_model.requests]
    # The question opens every prompt; the passage comes after it.
    assert all(p.startswith(f"Question: {QUESTION}") for p in prompts)


async def test_context_relevance_fails_below_min_score():
    judge_model = model(*[by_passage({RELEVANT: yes_no(0.9), OFF_TOPIC: yes_no(0.1)})] * 2)
    ctx = Context(QUESTION, context=(RELEVANT, OFF_TOPIC))
    result = await ContextRelevanceJudge(judge_model, min_score=0.75).judge(ctx)
    assert result.status is Status.FAIL


@pytest.mark.parametrize(
    "ctx",
    [Context("", context=(RELEVANT,)), Context(QUESTION), Context(QUESTION, context=("  ",))],
)
async def test_context_relevance_abstains_without_question_or_passages(ctx):
    judge_model = model()
    result = await ContextRelevanceJudge(judge_model).judge(ctx)
    assert result.status is Status.ABSTAIN
    assert judge_model.calls == 0


async def test_a_passage_that_could_not_be_judged_makes_an_error_with_its_cause():
    step = by_passage({RELEVANT: yes_no(0.9), OFF_TOPIC: ModelError(ErrorKind.TIMEOUT, "slow")})
    result = await ContextRelevanceJudge(model(step, step)).judge(
        Context(QUESTION, context=(RELEVANT, OFF_TOPIC))
    )
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "timeout"


# Answer relevance


async def test_answer_relevance_is_p_yes_against_the_threshold():
    ctx = Context(QUESTION, output="It was completed in 1889.")
    result = await AnswerRelevanceJudge(model(yes_no(0.7, "Gives the year."))).judge(ctx)
    assert result.status is Status.PASS
    assert result.score == NumericScore(0.7)
    assert result.reasoning == "Gives the year."
    strict = await AnswerRelevanceJudge(model(yes_no(0.7)), threshold=0.8).judge(ctx)
    assert strict.status is Status.FAIL
    assert strict.confidence == pytest.approx(0.3)


async def test_answer_relevance_abstains_without_an_answer_and_errors_on_garbage():
    assert (await AnswerRelevanceJudge(model()).judge(Context(QUESTION))).status is Status.ABSTAIN
    broken = with_logprobs('{"answer": "maybe", "reason": "x"}')
    result = await AnswerRelevanceJudge(model(broken)).judge(Context(QUESTION, output="1889"))
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "unparseable"


# The reports


async def test_context_relevance_holds_a_report_with_a_row_per_passage():
    judge_model = model(*[by_passage({RELEVANT: yes_no(0.9, "on it"), OFF_TOPIC: yes_no(0.1)})] * 2)
    result = await ContextRelevanceJudge(judge_model, min_score=0.4).judge(
        Context(QUESTION, context=(RELEVANT, OFF_TOPIC))
    )
    report = ContextRelevanceReport.of(result)
    assert report is not None
    assert all(isinstance(row, PassageVerdict) for row in report.passages)
    assert [row.model_dump() for row in report.passages] == [
        {"passage": 1, "relevant": True, "p_yes": pytest.approx(0.9), "reason": "on it"},
        {"passage": 2, "relevant": False, "p_yes": pytest.approx(0.1), "reason": "because"},
    ]
    assert (report.threshold, report.min_score, report.cause) == (0.5, 0.4, None)
    assert "cause" not in result.metadata
    assert CriterionReport.of(result) is None


async def test_a_passage_that_could_not_be_judged_is_a_failure_row_with_its_cause():
    step = by_passage({RELEVANT: yes_no(0.9), OFF_TOPIC: ModelError(ErrorKind.TIMEOUT, "slow")})
    result = await ContextRelevanceJudge(model(step, step)).judge(
        Context(QUESTION, context=(RELEVANT, OFF_TOPIC))
    )
    report = ContextRelevanceReport.of(result)
    assert report is not None
    assert report.cause is Cause.TIMEOUT
    relevant, failed = report.passages
    assert isinstance(relevant, PassageVerdict)
    assert isinstance(failed, PassageFailure)
    assert (failed.passage, failed.cause) == (2, Cause.TIMEOUT)
    assert "slow" in failed.error


async def test_answer_relevance_holds_the_criterion_report_of_its_question():
    ctx = Context(QUESTION, output="It was completed in 1889.")
    result = await AnswerRelevanceJudge(model(yes_no(0.7))).judge(ctx)
    report = CriterionReport.of(result)
    assert report is not None
    assert (report.answer, report.p_yes) == ("yes", pytest.approx(0.7))
    assert ContextRelevanceReport.of(result) is None
