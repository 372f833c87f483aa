"""How many calls a faithfulness verdict costs, and how a one-call answer is read.

On a hosted provider a verdict is one extraction and one verification call whatever the
number of claims; on the model that runs in this process (the embedded one) each claim is
its own call; `together=True`/`False` forces either. A one-call answer whose numbering is
broken (a verdict missing, out of range, given twice, or unreadable) never makes a claim
supported: that claim is asked again alone."""

import json

import pytest
from grounding_script import claim_of, claims_answer, verdict_answer, verdicts_answer

from jurist.core import Context, Status
from jurist.judges import ClaimsReport, ClaimVerifier, FaithfulnessJudge, SupportOptions
from jurist.llm import Capabilities, ErrorKind, ModelError, Request, Response, Structured
from jurist.runner import dataset_from_rows, evaluate
from jurist.settings import Settings
from jurist.specs import judge_from_spec
from jurist.validation import Validator
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer

# A provider's model: token probabilities, a JSON schema, not run in this process.
HOSTED = Capabilities(logprobs=True, max_top_logprobs=20, json_schema=True, seed=True)
EMBEDDED = LOGPROB_CAPABILITIES  # the same, run in this process
assert EMBEDDED.local
assert not HOSTED.local

# Twelve claims with nothing an exact check compares (no number, month or name), so the
# model decides every one; the output says each, and the source holds each word for word.
CLAIMS = [
    "The garden has red roses.",
    "A stone wall surrounds the orchard.",
    "The kitchen faces the river.",
    "Old oak beams hold up the barn roof.",
    "The library keeps rare maps.",
    "A narrow bridge crosses the stream.",
    "The chapel bell rings at dawn.",
    "Sheep graze on the northern hill.",
    "The cellar stores apple cider.",
    "A windmill stands beside the pond.",
    "The stable houses three grey horses.",
    "Ivy covers the western tower.",
]
OUTPUT = " ".join(CLAIMS)
CTX = Context("Describe the estate.", output=OUTPUT, context=(OUTPUT,))


def estate(request: Request) -> Response:
    """Answers every call about the estate: the claims, one claim's verdict, or every
    claim's verdict numbered in order; every claim supported with its own sentence quoted."""
    properties = (request.json_schema or {}).get("properties", {})
    if "claims" in properties:
        return claims_answer(*CLAIMS)
    if "verdicts" in properties:
        count = properties["verdicts"]["maxItems"]
        return verdicts_answer(*[(n, 0.9, CLAIMS[n - 1]) for n in range(1, count + 1)])
    return verdict_answer(0.9, claim_of(request))


def model_of(capabilities: Capabilities, calls: int = 40) -> ScriptedModel:
    return ScriptedModel("test:judge", [estate] * calls, capabilities=capabilities)


def modes_asked(model: ScriptedModel) -> list[str]:
    return [
        "together" if "verdicts" in (r.json_schema or {}).get("properties", {}) else "one"
        for r in model.requests
        if "claims" not in (r.json_schema or {}).get("properties", {})
    ]


async def test_a_hosted_model_gives_a_verdict_on_twelve_claims_in_two_calls():
    model = model_of(HOSTED)
    result = await FaithfulnessJudge(model).judge(CTX)
    assert result.status is Status.PASS
    assert result.metadata["total_claims"] == 12
    assert result.metadata["supported_claims"] == 12
    assert result.metadata["mode"] == "together"
    assert model.calls == 2
    assert result.usage is not None
    assert result.usage.calls == 2


async def test_the_embedded_model_checks_each_claim_in_its_own_call_by_default():
    model = model_of(EMBEDDED)
    result = await FaithfulnessJudge(model).judge(CTX)
    assert result.metadata["mode"] == "per_claim"
    assert result.metadata["total_claims"] == 12
    assert modes_asked(model) == ["one"] * 12
    assert result.usage is not None
    assert result.usage.calls == 13


@pytest.mark.parametrize(
    ("capabilities", "together", "calls", "mode"),
    [(EMBEDDED, True, 2, "together"), (HOSTED, False, 13, "per_claim")],
)
async def test_an_explicit_together_wins_over_the_model(capabilities, together, calls, mode):
    model = model_of(capabilities)
    result = await FaithfulnessJudge(model, together=together).judge(CTX)
    assert result.metadata["mode"] == mode
    assert model.calls == calls


async def test_specs_and_the_hallucination_judge_choose_the_same_way():
    for spec in ({"type": "faithfulness"}, {"type": "hallucination"}):
        hosted, embedded = model_of(HOSTED), model_of(EMBEDDED)
        await judge_from_spec(spec, model=hosted).judge(CTX)
        await judge_from_spec(spec, model=embedded).judge(CTX)
        assert (hosted.calls, embedded.calls) == (2, 13), spec
    forced = model_of(HOSTED)
    await judge_from_spec({"type": "faithfulness", "together": False}, model=forced).judge(CTX)
    assert forced.calls == 13


async def test_the_validation_hallucination_layer_asks_a_hosted_model_twice():
    model = model_of(HOSTED)
    result = await Validator(model, settings=Settings(JURIST_CACHE="0")).validate(
        {
            "output": OUTPUT,
            "validation_types": ["hallucination"],
            "context": {"document": OUTPUT},
        }
    )
    assert result.valid
    assert model.calls == 2
    assert modes_asked(model) == ["together"]


@pytest.mark.parametrize("together", [False, True])
async def test_the_batch_runner_takes_the_judge_as_a_benchmark_builds_it(together):
    # FaithfulnessJudge(model, together=...) run by runner.evaluate over rows, the way an
    # outside benchmark drives it: the explicit mode holds, one verdict per row.
    model = model_of(HOSTED, calls=100)
    rows = [{"id": str(k), "question": "Describe the estate.", "answer": OUTPUT,
             "context": [OUTPUT]} for k in range(3)]  # fmt: skip
    result = await evaluate(dataset_from_rows(rows), FaithfulnessJudge(model, together=together))
    judgments = list(result.judgments.values())
    assert [j.status for j in judgments] == [Status.PASS] * 3
    per_verdict = 2 if together else 13
    assert [j.usage.calls for j in judgments if j.usage] == [per_verdict] * 3
    assert model.calls == 3 * per_verdict


# A one-call answer about three claims, with its numbering broken.
THREE = CLAIMS[:3]
SOURCE = " ".join(THREE)


def verifier_for(*script, structured: bool = False):
    model = ScriptedModel("test:judge", list(script), capabilities=HOSTED)
    asked = Structured(model) if structured else model
    return model, ClaimVerifier(asked, SupportOptions(together=None))


async def test_a_claim_numbered_twice_is_taken_from_neither_verdict_but_asked_again():
    # Both verdicts "1" say supported; which was meant for claim 1 or 2 is unknown, so both
    # claims are asked alone, and their own answers (not supported) decide.
    model, verifier = verifier_for(
        verdicts_answer((1, 0.9, THREE[0]), (1, 0.9, THREE[1]), (3, 0.3, THREE[2])),
        lambda request: verdict_answer(0.1, "", "contradicted"),
        lambda request: verdict_answer(0.1, "", "contradicted"),
    )
    report = await verifier.verify(THREE, SOURCE)
    assert model.calls == 3
    assert sorted(claim_of(r) for r in model.requests[1:]) == sorted(THREE[:2])
    assert [c.supported for c in report.checks] == [False, False, False]
    assert [c.verdict.value for c in report.checks[:2]] == ["contradicted"] * 2
    # The third verdict is read at its own token, though the first two were dropped.
    assert report.checks[2].p_supported == pytest.approx(0.3)
    assert report.mode == "together"
    assert report.reasked == ("verdict 2: claim 1 has a second verdict",)
    assert report.usage is not None
    assert report.usage.calls == 3


@pytest.mark.parametrize(
    ("verdicts", "problem"),
    [
        ([(1, 0.9, THREE[0]), (2, 0.9, THREE[1])], "the answer holds 2 verdicts for 3 claims"),
        (
            [(1, 0.9, THREE[0]), (2, 0.9, THREE[1]), (7, 0.9, THREE[2])],
            'verdict 3: "claim" is 7, not a number 1..3',
        ),
        (
            [(1, 0.9, THREE[0]), (2, 0.9, THREE[1]), (0, 0.9, THREE[2])],
            'verdict 3: "claim" is 0, not a number 1..3',
        ),
    ],
)
async def test_a_claim_without_its_verdict_is_asked_again_alone(verdicts, problem):
    model, verifier = verifier_for(
        verdicts_answer(*verdicts), lambda request: verdict_answer(0.2, "", "not_mentioned")
    )
    report = await verifier.verify(THREE, SOURCE)
    assert model.calls == 2
    assert claim_of(model.requests[1]) == THREE[2]
    assert [c.supported for c in report.checks] == [True, True, False]
    assert report.checks[2].verdict is not None
    assert report.checks[2].verdict.value == "not_mentioned"
    assert report.reasked == (problem,)


async def test_an_unreadable_verdict_is_asked_again_alone():
    items = [
        {"claim": 1, "verdict": "supported", "quote": THREE[0]},
        {"claim": 2, "verdict": "probably", "quote": THREE[1]},
        {"claim": 3, "verdict": "supported", "quote": THREE[2]},
    ]
    model, verifier = verifier_for(
        answer(json.dumps({"verdicts": items})),
        lambda request: verdict_answer(0.1, "", "contradicted"),
    )
    report = await verifier.verify(THREE, SOURCE)
    assert claim_of(model.requests[1]) == THREE[1]
    assert [c.supported for c in report.checks] == [True, False, True]
    assert "not one of" in report.reasked[0]


async def test_a_claim_whose_second_asking_fails_is_an_error_never_supported():
    model = ScriptedModel(
        "test:judge",
        [
            claims_answer(*THREE),
            verdicts_answer((1, 0.9, THREE[0]), (1, 0.9, THREE[1]), (3, 0.9, THREE[2])),
            ModelError(ErrorKind.TIMEOUT, "slow", retryable=False),
            ModelError(ErrorKind.TIMEOUT, "slow", retryable=False),
        ],
        capabilities=HOSTED,
    )
    ctx = Context("Describe the estate.", output=SOURCE, context=(SOURCE,))
    result = await FaithfulnessJudge(model).judge(ctx)
    assert result.status is Status.ERROR
    report = ClaimsReport.of(result)
    assert report is not None
    assert report.errored_claims == 2
    assert report.supported_claims == 1
    assert [row.supported for row in report.claims] == [False, False, True]


async def test_a_number_given_twice_passes_the_schema_check_and_is_still_asked_again():
    # Structured output checks the answer against the schema (a count, numbers 1..3) but a
    # schema cannot say "each number once": the reader catches it.
    model, verifier = verifier_for(
        verdicts_answer((1, 0.9, THREE[0]), (2, 0.9, THREE[1]), (2, 0.9, THREE[2])),
        lambda request: verdict_answer(0.9, claim_of(request)),
        lambda request: verdict_answer(0.9, claim_of(request)),
        structured=True,
    )
    report = await verifier.verify(THREE, SOURCE)
    assert model.calls == 3
    assert sorted(claim_of(r) for r in model.requests[1:]) == sorted(THREE[1:])
    assert [c.supported for c in report.checks] == [True, True, True]
