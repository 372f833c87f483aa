"""PairwiseJudge's pointwise method against a scripted model: each output held to the
instruction's requirements, a miscalculation counted against its output, the direct answer
as one more signal, and the same verdict whichever output is shown first."""

import json
import re

import pytest
from pydantic import ValidationError

from jurist.core import Status
from jurist.judges import PairwiseJudge, PairwiseReport, PairwiseWeights, pairwise_context
from jurist.judges._pairwise_pointwise import CORRECTNESS
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.specs import judge_from_spec
from scripted import ScriptedModel, answer

INSTRUCTION = "Explain the refund policy"
DETAILED = (
    "Refunds are accepted within 30 days of purchase, and the money reaches your card in 10 days."
)
VAGUE = "We do refunds."
REQUIREMENTS = [
    "The response explains when a refund is accepted.",
    "The response says how it is paid.",
]


def prompt_of(request: Request) -> str:
    return request.messages[-1].content


def responder(meets: dict[str, float], *, direct: str = "1", requirements=None):
    """Answers the requirements prompt with `requirements`, a criteria prompt with the
    stated confidence `meets[output]` for every criterion of the output it shows, and the
    direct prompt with the label `direct`."""
    listed = REQUIREMENTS if requirements is None else requirements

    def step(request: Request) -> Response:
        prompt = prompt_of(request)
        if "List what a response must do" in prompt:
            return answer(json.dumps({"requirements": listed}))
        if "Requirements:" in prompt:
            count = len(re.findall(r"^\d+\. ", prompt, re.MULTILINE))
            shown = next(text for text in meets if text in prompt)
            p = meets[shown]
            verdicts = [
                {
                    "criterion": i + 1,
                    "answer": "yes" if p >= 0.5 else "no",
                    "reason": "checked",
                    "confidence": p if p >= 0.5 else 1 - p,
                }
                for i in range(count)
            ]
            return answer(json.dumps({"verdicts": verdicts}))
        return answer(json.dumps({"reason": "because", "better": direct}))

    return step


def model_for(meets: dict[str, float], calls: int = 5, **kwargs) -> ScriptedModel:
    return ScriptedModel(script=[responder(meets, **kwargs)] * calls)


async def test_pointwise_is_the_default_and_prefers_the_output_that_meets_the_requirements():
    model = model_for({DETAILED: 0.9, VAGUE: 0.2})
    judgment = await PairwiseJudge(model).compare(INSTRUCTION, DETAILED, VAGUE)
    assert judgment.status is Status.PASS, judgment.reasoning
    report = PairwiseReport.of(judgment)
    assert report is not None
    assert report.comparison == "pointwise"
    assert [r.requirement for r in report.requirements] == [*REQUIREMENTS, CORRECTNESS]
    assert all(r.p_yes_a == pytest.approx(0.9) for r in report.requirements)
    assert all(r.p_yes_b == pytest.approx(0.2) for r in report.requirements)
    assert report.signals is not None
    assert report.signals.requirements == pytest.approx(0.7)
    assert report.p_a is not None
    assert report.p_a > 0.6
    # one decomposition, one call per output, the direct answer in both orders
    assert model.calls == 5


async def test_the_verdict_follows_the_outputs_not_their_positions():
    # The direct answer always says "1": the shown-first output. It cancels out.
    forward = await PairwiseJudge(model_for({DETAILED: 0.9, VAGUE: 0.2})).compare(
        INSTRUCTION, DETAILED, VAGUE
    )
    backward = await PairwiseJudge(model_for({DETAILED: 0.9, VAGUE: 0.2})).compare(
        INSTRUCTION, VAGUE, DETAILED
    )
    assert forward.score is not None
    assert backward.score is not None
    assert (forward.score.value, backward.score.value) == ("A", "B")
    assert forward.metadata["p_a"] == pytest.approx(1 - backward.metadata["p_a"])


async def test_even_evidence_is_a_tie():
    model = model_for({DETAILED: 0.8, VAGUE: 0.8})
    judgment = await PairwiseJudge(model).compare(INSTRUCTION, DETAILED, VAGUE)
    assert judgment.status is Status.ABSTAIN
    assert judgment.score is not None
    assert judgment.score.value == "tie"


async def test_a_miscalculation_counts_against_its_output():
    wrong, right = "5 x 5 x 5 = 625", "125"
    model = model_for({wrong: 0.9, right: 0.9})
    judgment = await PairwiseJudge(model).compare("What is 5 x 5 x 5?", wrong, right)
    assert judgment.status is Status.FAIL, judgment.reasoning
    report = PairwiseReport.of(judgment)
    assert report is not None
    assert report.signals is not None
    assert len(report.errors_a) == 1
    assert "125" in report.errors_a[0]
    assert report.errors_b == ()
    assert report.signals.errors == -1.0


async def test_the_requirements_are_drawn_from_the_instruction_alone():
    model = model_for({DETAILED: 0.9, VAGUE: 0.2})
    await PairwiseJudge(model).compare(INSTRUCTION, DETAILED, VAGUE)
    prompts = [prompt_of(r) for r in model.requests]
    listing = next(p for p in prompts if "List what a response must do" in p)
    assert INSTRUCTION in listing
    assert DETAILED not in listing
    assert VAGUE not in listing
    # each output is scored alone, without the other beside it
    for prompt in [p for p in prompts if "Requirements:" in p]:
        assert (DETAILED in prompt) != (VAGUE in prompt)


async def test_a_rubric_gives_the_requirements_without_a_decomposition_call():
    model = model_for({DETAILED: 0.9, VAGUE: 0.2}, calls=4)
    judgment = await PairwiseJudge(model, rubric="summarization").compare(
        INSTRUCTION, DETAILED, VAGUE
    )
    assert model.calls == 4
    report = PairwiseReport.of(judgment)
    assert report is not None
    assert report.rubric == "summarization"
    assert report.requirements[0].requirement.startswith(
        report.requirements[0].requirement.split(":")[0]
    )
    assert all("List what a response must do" not in prompt_of(r) for r in model.requests)


async def test_the_direct_method_is_one_switch_away():
    model = model_for({DETAILED: 0.9, VAGUE: 0.2}, calls=2)
    judgment = await PairwiseJudge(model, method="direct").compare(INSTRUCTION, DETAILED, VAGUE)
    # "1" in both orders: the orders disagree, a tie, as before
    assert judgment.status is Status.ABSTAIN
    report = PairwiseReport.of(judgment)
    assert report is not None
    assert report.comparison == "direct"
    assert report.requirements == ()
    assert model.calls == 2


async def test_a_failed_decomposition_is_an_error():
    model = ScriptedModel(
        script=[
            responder({DETAILED: 0.9, VAGUE: 0.2}),
            responder({DETAILED: 0.9, VAGUE: 0.2}),
            ModelError(ErrorKind.UNAVAILABLE, "down"),
        ]
    )
    judgment = await PairwiseJudge(model).compare(INSTRUCTION, DETAILED, VAGUE)
    assert judgment.status is Status.ERROR


def test_length_may_be_discounted_but_never_rewarded():
    with pytest.raises(ValidationError):
        PairwiseWeights(length=0.5)
    assert PairwiseWeights(length=-0.3).length == -0.3


def test_the_spec_takes_the_method_and_the_weights():
    judge = judge_from_spec({"type": "pairwise", "method": "direct", "weights": {"direct": 2}})
    assert isinstance(judge, PairwiseJudge)
    assert judge.method == "direct"
    assert judge.weights.direct == 2.0
    assert judge_from_spec({"type": "pairwise"}).method == "pointwise"


def test_the_context_holds_both_outputs():
    ctx = pairwise_context(INSTRUCTION, DETAILED, VAGUE)
    assert ctx.output == DETAILED
