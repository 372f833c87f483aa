"""RubricJudge scores each criterion by the method its rubric names: claims checked against
the source, the source's key facts checked against the output, per-sentence checks, or the
plain G-Eval question; the readings are the ones calibration measures; `methods="plain"`
asks every criterion plainly; a method that cannot score an output falls back to the plain
question and says why; a method's failure is the judgment's ERROR."""

import json

import pytest
from grounding_script import verdict_answer

from jurist.calibration import ClaimConsistency, Coverage, SentenceChecks
from jurist.core import Cause, Context, Status
from jurist.judges import ClaimsReport, RubricJudge, RubricResult
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.rubrics import CriterionMethod, Rubric, get_rubric
from jurist.specs import judge_from_spec
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

ANCHORS = {1: "awful", 2: "poor", 3: "fair", 4: "good", 5: "excellent"}
SOURCE = (
    "The council closed the Pont Morand bridge to cars on Monday. Repairs will take 14 weeks. "
    "Buses are diverted to Oak Street. The bridge was built in 1889 by a local engineer."
)
FIRST = "The council closed the Pont Morand bridge to cars on Monday."
SECOND = "Repairs will take 14 weeks."
SUMMARY = f"{FIRST} {SECOND}"
FACTS = ["The bridge is closed to cars.", "Repairs take 14 weeks.", "Buses use Oak Street."]
# P(supported) of each claim of the summary, and P(covered) of each key fact.
VERDICTS = {FIRST: (0.9, FIRST), SECOND: (0.6, SECOND)}
COVERED = {FACTS[0]: (0.8, FIRST), FACTS[1]: (0.7, SECOND), FACTS[2]: (0.3, "")}
# P(yes) per (question, sentence) of the sentence checks.
FLUENT, OPENING, FOLLOWS = "grammatical, well-formed English", "as the opening", "follows sensibly"
YES = {(FLUENT, FIRST): 0.9, (FLUENT, SECOND): 0.5, (OPENING, FIRST): 0.8, (FOLLOWS, SECOND): 0.4}
PLAIN_SCORE = {"2": 0.5, "3": 0.5}  # the plain question's score distribution: expected 2.5


def criterion(name: str, method: str = "plain", **more: object) -> dict[str, object]:
    return {"name": name, "description": f"{name}.", "anchors": ANCHORS, "method": method, **more}


RUBRIC = Rubric.model_validate(
    {
        "id": "summary",
        "name": "summary",
        "criteria": [
            criterion("consistency", "claims", essential=True),
            criterion("fluency", "sentences"),
            criterion("coherence", "sentences"),
            criterion("relevance", "coverage"),
            criterion("detail"),
        ],
    }
)


def yes_no(p: float) -> Response:
    said = "yes" if p >= 0.5 else "no"
    return with_logprobs('{"answer": "', (said, {"yes": p, "no": 1 - p}), '"}')


def plain(distribution: dict[str, float], reasoning: str = "Read it.") -> Response:
    stated = max(distribution, key=distribution.__getitem__)
    return with_logprobs(
        json.dumps({"reasoning": reasoning})[:-1] + ', "score": ',
        (stated, distribution),
        "}",
        json={"reasoning": reasoning, "score": int(stated)},
    )


class Router:
    """Answers each call by what it asks: key facts or claims, a verdict (a claim's or a key
    fact's), a sentence check, or a plain criterion."""

    def __init__(self, claims_error: Exception | None = None) -> None:
        self.claims_error = claims_error
        self.asked: list[str] = []

    def __call__(self, request: Request) -> Response:
        prompt = request.messages[-1].content
        properties = (request.json_schema or {}).get("properties", {})
        if "claims" in properties:
            key_facts = "most important facts" in prompt
            self.asked.append("key facts" if key_facts else "claims")
            return answer(json.dumps({"claims": FACTS if key_facts else [FIRST, SECOND]}))
        if "verdict" in properties:
            claim = prompt.rstrip().rsplit("Claim: ", 1)[1]
            if claim in COVERED:
                self.asked.append("coverage")
                return verdict_answer(*COVERED[claim])
            self.asked.append("claim")
            if self.claims_error is not None:
                raise self.claims_error
            p, quote = VERDICTS[claim]
            return verdict_answer(p, quote)
        if "answer" in properties:
            self.asked.append("sentence")
            sentence = prompt.rsplit("```sentence\n", 1)[1].split("\n```", 1)[0]
            question = next(q for q in (FLUENT, OPENING, FOLLOWS) if q in prompt)
            return yes_no(YES[(question, sentence)])
        self.asked.append("plain")
        return plain(PLAIN_SCORE)


def model(router: Router, calls: int = 40) -> ScriptedModel:
    return ScriptedModel("test:judge", [router] * calls, capabilities=LOGPROB_CAPABILITIES)


CTX = Context(goal="Summarise the article.", output=SUMMARY, context=SOURCE)


def results(judgment) -> dict[str, object]:
    return {r.criterion_name: r for r in RubricResult.from_judgment(judgment).criteria_results}


async def test_each_criterion_is_scored_by_its_method():
    router = Router()
    judgment = await RubricJudge(RUBRIC, model(router)).judge(CTX)

    assert judgment.status is not Status.ERROR, judgment.reasoning
    scored = results(judgment)
    consistency = scored["consistency"]
    assert consistency.criterion_method is CriterionMethod.CLAIMS
    assert consistency.expected_score == pytest.approx(1 + 4 * 0.6)  # the least P(supported)
    assert consistency.score == 3
    assert consistency.signals["p_min"] == pytest.approx(0.6)
    assert "2 of 2 claims supported" in consistency.reasoning
    assert consistency.prompt_sha256 is None
    assert scored["fluency"].expected_score == pytest.approx(1 + 4 * (0.9 + 0.5) / 2)
    assert scored["coherence"].expected_score == pytest.approx(1 + 4 * (0.8 + 0.4) / 2)
    assert scored["coherence"].criterion_method is CriterionMethod.SENTENCES
    assert scored["relevance"].expected_score == pytest.approx(1 + 4 * (0.8 + 0.7 + 0.3) / 3)
    assert "2 of 3 key facts" in scored["relevance"].reasoning
    assert scored["detail"].criterion_method is CriterionMethod.PLAIN
    assert scored["detail"].expected_score == pytest.approx(2.5)
    # One claim extraction, one key-fact extraction, one check per claim and key fact, one
    # per sentence question (fluency and coherence share one sentence judge), one plain.
    assert sorted(router.asked) == sorted(
        ["claims", "claim", "claim", "key facts", *["coverage"] * 3, *["sentence"] * 4, "plain"]
    )
    assert judgment.usage is not None
    assert judgment.usage.calls == len(router.asked)
    assert [c.name for c in judgment.checks] == [c.name for c in RUBRIC.criteria]
    assert "by claims" in judgment.checks[0].message


async def test_the_scores_are_the_ones_calibration_reads_from_the_same_judgments():
    router = Router()
    judgment = await RubricJudge(RUBRIC, model(router)).judge(CTX)
    scored = results(judgment)
    for method, name in ((ClaimConsistency(), "claims"), (ClaimConsistency("mean"), "claims")):
        inner = await method.judge(RUBRIC, ["consistency"], model(Router())).judge(CTX)
        read = method.read(inner)
        assert read is not None
        if method.aggregate == "min":
            assert read.scores["consistency"] == pytest.approx(
                scored["consistency"].expected_score
            ), name
    coverage = Coverage().read(await Coverage().judge(RUBRIC, [], model(Router())).judge(CTX))
    assert coverage is not None
    assert coverage.scores["relevance"] == pytest.approx(scored["relevance"].expected_score)
    sentences = SentenceChecks()
    both = sentences.read(
        await sentences.judge(RUBRIC, ["fluency", "coherence"], model(Router())).judge(CTX)
    )
    assert both is not None
    assert both.scores["fluency"] == pytest.approx(scored["fluency"].expected_score)
    assert both.scores["coherence"] == pytest.approx(scored["coherence"].expected_score)


async def test_a_claims_option_picks_the_aggregate():
    rubric = RUBRIC.model_copy(
        update={"criteria": (RUBRIC.criteria[0].model_copy(update={"option": "mean"}),)}
    )
    judgment = await RubricJudge(rubric, model(Router())).judge(CTX)
    (consistency,) = RubricResult.from_judgment(judgment).criteria_results
    assert consistency.expected_score == pytest.approx(1 + 4 * (0.9 + 0.6) / 2)
    assert consistency.method_option == "mean"


async def test_plain_asks_every_criterion_plainly():
    router = Router()
    judgment = await RubricJudge(RUBRIC, model(router), methods="plain").judge(CTX)
    assert router.asked == ["plain"] * 5
    for result in results(judgment).values():
        assert result.criterion_method is CriterionMethod.PLAIN
        assert result.expected_score == pytest.approx(2.5)


async def test_a_method_that_cannot_score_falls_back_to_the_plain_question():
    router = Router()
    no_source = Context(goal="Summarise the article.", output=SUMMARY)
    judgment = await RubricJudge(RUBRIC.only("consistency", "fluency"), model(router)).judge(
        no_source
    )
    scored = results(judgment)
    assert scored["consistency"].criterion_method is CriterionMethod.PLAIN
    assert scored["consistency"].expected_score == pytest.approx(2.5)
    assert "claims could not score it" in (scored["consistency"].fallback or "")
    assert scored["fluency"].criterion_method is CriterionMethod.SENTENCES
    assert "claim" not in router.asked


async def test_a_method_that_fails_makes_the_judgment_an_error():
    router = Router(claims_error=ModelError(ErrorKind.TIMEOUT, "slow"))
    judgment = await RubricJudge(RUBRIC.only("consistency", "detail"), model(router)).judge(CTX)
    assert judgment.status is Status.ERROR
    assert judgment.metadata["causes"] == {"consistency": Cause.TIMEOUT}
    assert [r["criterion_name"] for r in judgment.metadata["scored"]] == ["detail"]
    assert ClaimsReport.of(judgment) is None


def test_the_library_summarization_rubric_names_a_method_per_criterion():
    rubric = get_rubric("summarization")
    assert {c.name: c.method_name for c in rubric.criteria} == {
        "coherence": "sentences",
        "consistency": "claims:mean",
        "fluency": "sentences",
        "relevance": "coverage",
    }


def test_a_spec_and_the_validation_layers_build_the_rubric_judge_with_its_methods():
    # The validation service's quality layer is this spec with its quality rubric.
    judge = judge_from_spec({"type": "rubric", "rubric": "summarization", "name": "quality"})
    assert isinstance(judge, RubricJudge)
    assert {c.name for c in judge.decomposed.criteria} == {
        "coherence",
        "consistency",
        "fluency",
        "relevance",
    }
    plain_judge = judge_from_spec({"type": "rubric", "rubric": "summarization", "methods": "plain"})
    assert isinstance(plain_judge, RubricJudge)
    assert plain_judge.decomposed.criteria == ()
    with pytest.raises(ValueError, match="methods"):
        RubricJudge("summarization", methods="fancy")  # type: ignore[arg-type]
