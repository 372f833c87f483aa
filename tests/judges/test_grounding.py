"""Hallucination and faithfulness: claims checked against the context, with quotes checked,
P(supported) against the threshold, one call or one per claim, and every failure path."""

import json

import pytest
from grounding_script import (
    claim_of,
    claims_answer,
    routed_model,
    router,
    verdict_answer,
    verdicts_answer,
)

from jurist.core import Cause, Context, NumericScore, Status
from jurist.judges import (
    ClaimsReport,
    ClaimVerifier,
    Extraction,
    FactsReport,
    FaithfulnessJudge,
    HallucinationJudge,
    QuoteMatch,
    Support,
    SupportOptions,
)
from jurist.llm import ErrorKind, ModelError
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

SOURCE = (
    "The Eiffel Tower was completed in 1889 for the World's Fair. It is 330 metres tall. "
    "About seven million people visit it each year."
)
TRUE_CLAIM = "The Eiffel Tower was completed in 1889."
# Nothing in it a program can compare (no number, month or name): the model decides.
FALSE_CLAIM = "The Eiffel Tower was designed as a lighthouse."
OUTPUT = "The Eiffel Tower was completed in 1889 and designed as a lighthouse."
CTX = Context("Describe the Eiffel Tower.", output=OUTPUT, context=(SOURCE,))
GOOD_QUOTE = "The Eiffel Tower was completed in 1889 for the World's Fair."


def two_claims(false_verdict=None):
    return router(
        claims_answer(TRUE_CLAIM, FALSE_CLAIM),
        {
            TRUE_CLAIM: verdict_answer(0.9, GOOD_QUOTE),
            FALSE_CLAIM: false_verdict or verdict_answer(0.1, "", "contradicted"),
        },
    )


async def test_an_unsupported_claim_is_an_issue_with_the_nearest_evidence():
    model = routed_model(two_claims())
    result = await HallucinationJudge(model).judge(CTX)
    assert result.status is Status.FAIL
    assert result.metadata["hallucination_count"] == 1
    assert result.metadata["total_claims"] == 2
    assert result.confidence == pytest.approx(0.5)
    assert result.score == NumericScore(0.5)
    (issue,) = result.metadata["issues"]
    assert issue["severity"] == "warning"
    assert issue["type"] == "unsupported_claim"
    assert issue["claim"] == FALSE_CLAIM
    assert "contradicts" in issue["message"]
    # No quote was given, so the evidence is the source sentence nearest the claim.
    assert issue["evidence"] == "The Eiffel Tower was completed in 1889 for the World's Fair."
    assert [c.passed for c in result.checks] == [True, False]
    assert result.usage is not None
    assert result.usage.calls == 3
    assert result.metadata["extraction"] == "model"
    assert result.metadata["mode"] == "per_claim"


async def test_claims_share_the_source_as_prompt_prefix_and_the_claim_comes_last():
    model = routed_model(two_claims())
    await HallucinationJudge(model).judge(CTX)
    verifications = [r for r in model.requests if "Claim: " in r.messages[-1].content]
    assert len(verifications) == 2
    first, second = (r.messages[-1].content for r in verifications)
    prefix = first.rsplit("Claim: ", 1)[0]
    assert second.startswith(prefix)
    assert SOURCE in prefix
    assert {claim_of(r) for r in verifications} == {TRUE_CLAIM, FALSE_CLAIM}
    assert all(r.logprobs for r in verifications)


async def test_an_invented_quote_withholds_support_and_is_reported():
    invented = verdict_answer(0.95, "The tower was designed by Le Corbusier in 1920.")
    model = routed_model(two_claims(false_verdict=invented))
    result = await HallucinationJudge(model).judge(CTX)
    assert result.status is Status.FAIL
    assert result.metadata["invented_quotes"] == 1
    (issue,) = result.metadata["issues"]
    assert issue["quote_found"] is False
    assert "not in the source" in issue["message"]
    row = next(c for c in result.metadata["claims"] if c["claim"] == FALSE_CLAIM)
    assert row["p_supported"] == pytest.approx(0.95)
    assert row["supported"] is False


async def test_without_the_quote_requirement_probability_alone_decides():
    invented = verdict_answer(0.95, "The tower was designed by Le Corbusier in 1920.")
    model = routed_model(two_claims(false_verdict=invented))
    result = await HallucinationJudge(model, require_quote=False).judge(CTX)
    assert result.status is Status.PASS
    assert result.metadata["hallucination_count"] == 0


async def test_the_threshold_decides_on_p_supported():
    borderline = verdict_answer(0.6, "It is 330 metres tall.")
    model = routed_model(two_claims(false_verdict=borderline))
    strict = await HallucinationJudge(model, threshold=0.7).judge(CTX)
    assert strict.metadata["hallucination_count"] == 1
    lenient = await HallucinationJudge(routed_model(two_claims(borderline))).judge(CTX)
    assert lenient.metadata["hallucination_count"] == 0


async def test_no_context_abstains_without_calling_the_model():
    model = ScriptedModel(script=[])
    result = await HallucinationJudge(model).judge(Context("q", output=OUTPUT))
    assert result.status is Status.ABSTAIN
    assert "no context" in result.reasoning
    assert model.calls == 0


async def test_no_claims_passes_hallucination_and_abstains_faithfulness():
    step = router(claims_answer(), {})
    hallucination = await HallucinationJudge(routed_model(step)).judge(CTX)
    assert hallucination.status is Status.PASS
    assert hallucination.metadata["total_claims"] == 0
    assert hallucination.confidence == 1.0
    faithfulness = await FaithfulnessJudge(routed_model(step)).judge(CTX)
    assert faithfulness.status is Status.ABSTAIN


async def test_a_verification_failure_is_an_error_with_its_cause_not_a_pass():
    step = router(
        claims_answer(TRUE_CLAIM),
        {TRUE_CLAIM: ModelError(ErrorKind.UNAVAILABLE, "down")},
    )
    result = await HallucinationJudge(routed_model(step)).judge(CTX)
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "unavailable"
    assert result.metadata["errored_claims"] == 1


async def test_a_found_hallucination_stands_even_when_another_claim_errored():
    step = router(
        claims_answer(TRUE_CLAIM, FALSE_CLAIM),
        {TRUE_CLAIM: answer("not json"), FALSE_CLAIM: verdict_answer(0.1, "", "contradicted")},
    )
    result = await HallucinationJudge(routed_model(step)).judge(CTX)
    assert result.status is Status.FAIL
    assert result.metadata["errored_claims"] == 1
    row = next(c for c in result.metadata["claims"] if c["claim"] == TRUE_CLAIM)
    assert row["cause"] == "unparseable"


async def test_extraction_failure_falls_back_to_sentences_and_the_judgment_says_so():
    sentences = {
        "Paris is in France.": verdict_answer(0.9, "Paris is in France."),
        "It has a tower.": verdict_answer(0.9, "It has a tower."),
    }
    step = router(ModelError(ErrorKind.TIMEOUT, "slow"), sentences)
    ctx = Context(
        "q",
        output="Paris is in France. It has a tower.",
        context="Paris is in France. It has a tower.",
    )
    result = await FaithfulnessJudge(routed_model(step)).judge(ctx)
    assert result.status is Status.PASS
    assert result.metadata["extraction"] == "sentences"
    assert result.metadata["extraction_fallback"] == "timeout"
    assert result.metadata["total_claims"] == 2


async def test_faithfulness_scores_the_share_supported_against_min_score():
    result = await FaithfulnessJudge(routed_model(two_claims()), min_score=0.5).judge(CTX)
    assert result.status is Status.PASS
    assert result.score == NumericScore(0.5)
    assert result.metadata["p_supported_mean"] == pytest.approx(0.5)
    assert result.metadata["p_supported_min"] == pytest.approx(0.1)
    stricter = await FaithfulnessJudge(routed_model(two_claims())).judge(CTX)
    assert stricter.status is Status.FAIL


async def test_rag_metadata_supplies_the_context_and_answer():
    ctx = Context(
        "ignored goal",
        output="ignored output",
        metadata={"rag.context": ["First passage.", SOURCE], "rag.answer": OUTPUT},
    )
    model = routed_model(two_claims())
    result = await HallucinationJudge(model).judge(ctx)
    assert result.metadata["total_claims"] == 2
    extraction = model.requests[0].messages[-1].content
    assert OUTPUT in extraction
    assert "ignored output" not in extraction
    assert "First passage.\n" + SOURCE in model.requests[1].messages[-1].content


async def test_bad_rag_metadata_is_an_error_naming_the_key():
    ctx = Context("q", output=OUTPUT, metadata={"rag.context": 42})
    result = await HallucinationJudge(ScriptedModel(script=[])).judge(ctx)
    assert result.status is Status.ERROR
    assert "rag.context" in result.reasoning


async def test_together_mode_checks_every_claim_in_one_call():
    model = ScriptedModel(
        "test:judge",
        [
            claims_answer(TRUE_CLAIM, FALSE_CLAIM),
            # Verdicts may come in any order; each names its claim.
            verdicts_answer((2, 0.2, ""), (1, 0.8, GOOD_QUOTE)),
        ],
        capabilities=LOGPROB_CAPABILITIES,
    )
    result = await HallucinationJudge(model, together=True).judge(CTX)
    assert model.calls == 2
    assert result.metadata["mode"] == "together"
    rows = {row["claim"]: row for row in result.metadata["claims"]}
    assert rows[TRUE_CLAIM]["p_supported"] == pytest.approx(0.8)
    assert rows[TRUE_CLAIM]["supported"] is True
    assert rows[FALSE_CLAIM]["p_supported"] == pytest.approx(0.2)
    assert result.metadata["hallucination_count"] == 1


async def test_together_mode_asks_a_claim_with_a_missing_verdict_again_alone():
    model = ScriptedModel(
        "test:judge",
        [
            claims_answer(TRUE_CLAIM, FALSE_CLAIM),
            verdicts_answer((1, 0.8, GOOD_QUOTE)),
            verdict_answer(0.1, "", "contradicted"),
        ],
        capabilities=LOGPROB_CAPABILITIES,
    )
    result = await HallucinationJudge(model, together=True).judge(CTX)
    assert claim_of(model.requests[2]) == FALSE_CLAIM
    assert result.status is Status.FAIL
    assert result.metadata["errored_claims"] == 0
    assert list(result.metadata["reasked_claims"]) == ["the answer holds 1 verdicts for 2 claims"]


async def test_without_logprobs_the_stated_verdict_decides():
    model = ScriptedModel(
        "test:plain",
        [
            answer('{"verdict": "supported", "quote": "It is 330 metres tall."}'),
        ],
    )
    report = await ClaimVerifier(model).verify(["The tower is 330 metres tall."], SOURCE)
    (check,) = report.checks
    assert check.method == "stated"
    assert check.p_supported is None
    assert check.supported is True
    assert model.requests[0].logprobs is False


def test_options_reject_a_threshold_outside_zero_one():
    with pytest.raises(ValueError, match="threshold"):
        SupportOptions(threshold=1.0)
    with pytest.raises(ValueError, match="min_score"):
        FaithfulnessJudge(min_score=2)
    with pytest.raises(ValueError, match="max_unsupported"):
        HallucinationJudge(max_unsupported=-1)


async def test_a_close_quote_counts_as_evidence_and_says_so():
    close = verdict_answer(
        0.9, "The Eiffel Tower were completed in 1889 for the World's Fair. It is 330 metres tall."
    )
    step = router(claims_answer(TRUE_CLAIM), {TRUE_CLAIM: close})
    result = await HallucinationJudge(routed_model(step)).judge(CTX)
    assert result.status is Status.PASS
    (row,) = result.metadata["claims"]
    assert row["quote_match"] == "close"
    assert row["quote_found"] is True
    assert "a word or two changed" in result.checks[0].message


# The claims report


async def test_hallucination_reports_its_claims_and_issues_typed():
    result = await HallucinationJudge(routed_model(two_claims())).judge(CTX)
    report = ClaimsReport.of(result)
    assert report is not None
    assert (report.total_claims, report.supported_claims, report.unsupported_claims) == (2, 1, 1)
    assert report.extraction is Extraction.MODEL
    assert report.extraction_fallback is None
    assert report.mode == "per_claim"
    assert report.hallucination_count == 1
    assert report.min_score is None
    assert report.p_supported_min == pytest.approx(0.1)
    first, second = report.claims
    assert (first.claim, first.verdict, first.quote_match) == (
        TRUE_CLAIM,
        Support.SUPPORTED,
        QuoteMatch.EXACT,
    )
    assert second.verdict is Support.CONTRADICTED
    assert first.cause is None
    assert "cause" not in result.metadata["claims"][0]  # a check that did not fail has none
    (issue,) = report.issues or ()
    assert (issue.severity, issue.type, issue.claim) == (
        "warning",
        "unsupported_claim",
        FALSE_CLAIM,
    )
    assert issue.location is None
    assert "min_score" not in result.metadata
    assert result.metadata["report"] == "claims"
    assert FactsReport.of(result) is None


async def test_faithfulness_reports_its_min_score_and_no_issues():
    result = await FaithfulnessJudge(routed_model(two_claims()), min_score=0.5).judge(CTX)
    report = ClaimsReport.of(result)
    assert report is not None
    assert report.min_score == 0.5
    assert report.issues is None
    assert report.hallucination_count is None
    assert "issues" not in result.metadata


async def test_a_failed_check_and_a_fallback_extraction_read_as_causes():
    step = router(
        ModelError(ErrorKind.TIMEOUT, "slow"),
        {"Paris is in France.": ModelError(ErrorKind.UNAVAILABLE, "down")},
    )
    ctx = Context("q", output="Paris is in France.", context="Paris is in France.")
    result = await HallucinationJudge(routed_model(step)).judge(ctx)
    assert result.status is Status.ERROR
    report = ClaimsReport.of(result)
    assert report is not None
    assert report.extraction is Extraction.SENTENCES
    assert report.extraction_fallback is Cause.TIMEOUT
    assert report.extraction_error
    (row,) = report.claims
    assert (row.cause, row.method) == (Cause.MODEL_UNAVAILABLE, "none")
    assert "down" in (row.error or "")
    assert result.cause is Cause.MODEL_UNAVAILABLE


async def test_two_causes_of_failed_claims_are_mixed():
    step = router(
        claims_answer(TRUE_CLAIM, FALSE_CLAIM),
        {TRUE_CLAIM: answer("not json"), FALSE_CLAIM: ModelError(ErrorKind.TIMEOUT, "slow")},
    )
    result = await FaithfulnessJudge(routed_model(step)).judge(CTX)
    assert result.status is Status.ERROR
    assert result.cause is Cause.MIXED
    report = ClaimsReport.of(result)
    assert report is not None
    assert {row.cause for row in report.claims} == {Cause.UNPARSEABLE, Cause.TIMEOUT}


async def test_verdict_only_checks_ask_for_no_quote_and_need_none():
    # The model answers with the verdict alone: a P(supported) of 0.9 is support though no
    # quote was asked for or given, and the request's schema and prompt ask for no quote.
    no_quote = with_logprobs(
        '{"verdict": "',
        ("supported", {"supported": 0.9, "contradicted": 0.05, "not_mentioned": 0.05}),
        '"}',
    )
    model = ScriptedModel(script=[no_quote], capabilities=LOGPROB_CAPABILITIES)
    verifier = ClaimVerifier(model, SupportOptions(quote=False, exact=False))
    report = await verifier.verify([FALSE_CLAIM], SOURCE)
    (check,) = report.checks
    assert check.supported is True
    assert check.p_supported == pytest.approx(0.9)
    (request,) = model.requests
    assert request.json_schema is not None
    assert list(request.json_schema["properties"]) == ["verdict"]
    assert "quote" not in request.messages[-1].content.split("Claim:")[0].lower()


async def test_verdict_only_checks_in_one_call_ask_for_no_quote():
    verdicts = [{"claim": 1, "verdict": "supported"}, {"claim": 2, "verdict": "supported"}]
    model = ScriptedModel(
        script=[answer(json.dumps({"verdicts": verdicts}))], capabilities=LOGPROB_CAPABILITIES
    )
    verifier = ClaimVerifier(model, SupportOptions(quote=False, together=True, exact=False))
    await verifier.verify([TRUE_CLAIM, FALSE_CLAIM], SOURCE)
    (request,) = model.requests
    assert request.json_schema is not None
    item = request.json_schema["properties"]["verdicts"]["items"]
    assert list(item["properties"]) == ["claim", "verdict"]
    assert '"quote"' not in request.messages[-1].content
