"""Focus and the off-topic check of relevance: each statement of an output asked against the
source's key facts (P(on topic)), the key facts extracted once per source and shared with
coverage, the harmonic mean with coverage, and every path that is not a decision."""

import asyncio
import json
from collections.abc import Mapping

import pytest

from jurist.core import Cause, Context, Status
from jurist.judges import (
    CoverageJudge,
    CoverageReport,
    Extraction,
    FocusJudge,
    FocusReport,
    KeyFacts,
    ModelRef,
    relevance_f1,
)
from jurist.llm import Capabilities, ErrorKind, ModelError, Request, Response
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

SOURCE = (
    "The council closed the Pont Morand bridge to cars on Monday. Repairs will take 14 weeks. "
    "Buses are diverted to Oak Street. The bridge was built in 1889 by a local engineer."
)
FACTS = ["The bridge is closed to cars.", "Repairs take 14 weeks.", "Buses use Oak Street."]
ON = "The bridge is closed to cars for 14 weeks of repairs."
MINOR = "The bridge was built in 1889."
ELSEWHERE = "Lyon has a fine museum."
# The output the statements are drawn from (a statement the output does not say is dropped).
SUMMARY = f"{ON} {MINOR} {ELSEWHERE}"
STATEMENT_FENCE = "```statement\n"
KEY_FACTS_ASKED = "most important facts"


def p_yes(p: float) -> Response:
    said = "yes" if p >= 0.5 else "no"
    return with_logprobs('{"answer": "', (said, {"yes": p, "no": 1 - p}), '", "reason": "why"}')


def covered(p: float) -> Response:
    rest = (1.0 - p) / 2
    said = "supported" if p >= 0.5 else "not_mentioned"
    return with_logprobs(
        '{"verdict": "',
        (said, {"supported": p, "contradicted": rest, "not_mentioned": rest}),
        '", "quote": ""}',
    )


class Router:
    """Answers by what the prompt asks: the source's key facts, the output's claims, a key
    fact's coverage (by fact) or a statement's focus (by statement)."""

    def __init__(
        self,
        on_topic: Mapping[str, float | Exception],
        *,
        claims: list[str] | None = None,
        coverage: Mapping[str, float] | None = None,
        facts: list[str] | None = None,
    ) -> None:
        self.on_topic = on_topic
        self.claims = claims or []
        self.coverage = coverage or {}
        self.facts = FACTS if facts is None else facts

    def __call__(self, request: Request) -> Response:
        prompt = request.messages[-1].content
        properties = (request.json_schema or {}).get("properties", {})
        if "claims" in properties:
            found = self.facts if KEY_FACTS_ASKED in prompt else self.claims
            return answer(json.dumps({"claims": found}))
        if "verdict" in properties:
            return covered(self.coverage[prompt.rstrip().rsplit("Claim: ", 1)[-1]])
        statement = prompt.rsplit(STATEMENT_FENCE, 1)[1].split("\n```", 1)[0]
        outcome = self.on_topic[statement]
        if isinstance(outcome, Exception):
            raise outcome
        return p_yes(outcome)


def model_for(router: Router, capabilities: Capabilities = LOGPROB_CAPABILITIES) -> ScriptedModel:
    return ScriptedModel("test:judge", [router] * 50, capabilities=capabilities)


def ctx(output: str) -> Context:
    return Context("Summarise the article.", output=output, context=(SOURCE,))


async def test_focus_is_the_mean_p_on_topic_and_each_statement_under_threshold_is_an_issue():
    router = Router({ON: 0.9, MINOR: 0.2, ELSEWHERE: 0.1}, claims=[ON, MINOR, ELSEWHERE])
    judgment = await FocusJudge(model_for(router), min_score=0.3).judge(ctx(SUMMARY))

    assert judgment.status is Status.PASS
    assert judgment.score is not None
    assert judgment.score.normalized() == pytest.approx((0.9 + 0.2 + 0.1) / 3)
    meta = judgment.metadata
    assert meta["statements_from"] == "model"
    assert [s["p_on_topic"] for s in meta["statements"]] == pytest.approx([0.9, 0.2, 0.1])
    assert meta["off_topic_statements"] == 2
    assert [i["statement"] for i in meta["issues"]] == [MINOR, ELSEWHERE]
    assert {i["type"] for i in meta["issues"]} == {"off_topic"}
    assert [check.passed for check in judgment.checks] == [True, False, False]
    assert "off-topic" in judgment.reasoning
    assert MINOR[:20] in judgment.reasoning


async def test_a_focus_under_min_score_fails():
    router = Router({ON: 0.9, MINOR: 0.2}, claims=[ON, MINOR])
    judgment = await FocusJudge(model_for(router), min_score=0.6).judge(ctx(SUMMARY))
    assert judgment.status is Status.FAIL
    assert judgment.score is not None
    assert judgment.score.normalized() == pytest.approx(0.55)


async def test_the_key_facts_come_first_and_the_statement_last_in_every_focus_prompt():
    router = Router({ON: 0.9, MINOR: 0.3}, claims=[ON, MINOR])
    model = model_for(router)
    await FocusJudge(model).judge(ctx(SUMMARY))

    asked = [
        r.messages[-1].content for r in model.requests if STATEMENT_FENCE in r.messages[-1].content
    ]
    assert len(asked) == 2
    listed = "\n".join(f"{n}. {fact}" for n, fact in enumerate(FACTS, 1))
    for prompt in asked:
        assert listed in prompt
        assert prompt.index(listed) < prompt.index(STATEMENT_FENCE)
    # Everything before the statement is the same for both: the runtime's cache serves it.
    heads = {prompt.split(STATEMENT_FENCE, 1)[0] for prompt in asked}
    assert len(heads) == 1


async def test_sentences_as_statements_need_no_extraction_call():
    router = Router({ON: 0.8, MINOR: 0.4})
    model = model_for(router)
    judgment = await FocusJudge(model, statements="sentences").judge(ctx(f"{ON} {MINOR}"))

    assert judgment.metadata["statements_from"] == "sentences"
    assert [s["statement"] for s in judgment.metadata["statements"]] == [ON, MINOR]
    extractions = [
        r for r in model.requests if "claims" in (r.json_schema or {}).get("properties", {})
    ]
    assert len(extractions) == 1  # the key facts only


async def test_coverage_with_off_topic_is_the_harmonic_mean_of_coverage_and_focus():
    router = Router(
        {ON: 0.9, MINOR: 0.1},
        claims=[ON, MINOR],
        coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1},
    )
    model = model_for(router)
    judge = CoverageJudge(model, off_topic=True, min_score=0.55)
    judgment = await judge.judge(ctx(SUMMARY))

    meta = judgment.metadata
    assert meta["p_covered_mean"] == pytest.approx(0.6, abs=0.01)
    assert meta["p_on_topic_mean"] == pytest.approx(0.5)
    expected = relevance_f1(meta["p_covered_mean"], 0.5)
    assert meta["relevance"] == pytest.approx(expected)
    assert judgment.score is not None
    assert judgment.score.normalized() == pytest.approx(expected)
    assert judgment.status is Status.FAIL  # coverage alone (0.6) would have passed
    assert [i["statement"] for i in meta["issues"]] == [MINOR]
    key_fact_calls = [r for r in model.requests if KEY_FACTS_ASKED in r.messages[-1].content]
    assert len(key_fact_calls) == 1  # coverage and focus share one extraction


async def test_coverage_without_off_topic_asks_nothing_about_the_statements():
    router = Router({}, coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1})
    model = model_for(router)
    judgment = await CoverageJudge(model).judge(ctx(SUMMARY))
    assert "p_on_topic_mean" not in judgment.metadata
    assert "relevance" not in judgment.metadata
    assert judgment.score is not None
    assert judgment.score.normalized() == pytest.approx(0.6, abs=0.01)
    assert model.calls == 4  # the key facts, then one check per fact
    checks = [
        r for r in model.requests if r.json_schema and "verdict" in r.json_schema["properties"]
    ]
    # Verdicts alone: no quote is asked for, so none is decoded.
    assert checks
    assert all(list(r.json_schema["properties"]) == ["verdict"] for r in checks)


@pytest.mark.parametrize(
    ("coverage", "focus", "expected"),
    [(1.0, 1.0, 1.0), (0.5, 0.5, 0.5), (0.6, 0.3, 0.4), (0.0, 0.9, 0.0), (0.9, 0.0, 0.0)],
)
def test_relevance_f1(coverage, focus, expected):
    assert relevance_f1(coverage, focus) == pytest.approx(expected)


async def test_a_statement_that_could_not_be_checked_is_an_error_with_its_cause():
    failure = ModelError(ErrorKind.TIMEOUT, TimeoutError("slow"))
    router = Router({ON: 0.9, MINOR: failure}, claims=[ON, MINOR])
    judgment = await FocusJudge(model_for(router)).judge(ctx(SUMMARY))
    assert judgment.status is Status.ERROR
    assert judgment.metadata["cause"] == "timeout"
    assert "1 of 2 statements could not be checked" in judgment.reasoning
    assert judgment.score is None


async def test_coverage_with_off_topic_errs_when_a_statement_fails():
    failure = ModelError(ErrorKind.TIMEOUT, TimeoutError("slow"))
    router = Router(
        {ON: failure}, claims=[ON], coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1}
    )
    judgment = await CoverageJudge(model_for(router), off_topic=True).judge(ctx(SUMMARY))
    assert judgment.status is Status.ERROR
    assert judgment.metadata["cause"] == "timeout"
    assert judgment.score is None


async def test_a_model_without_probabilities_counts_its_stated_confidence():
    def stated(request: Request) -> Response:
        prompt = request.messages[-1].content
        if "claims" in (request.json_schema or {}).get("properties", {}):
            return answer(
                json.dumps({"claims": FACTS if KEY_FACTS_ASKED in prompt else [ON, MINOR]})
            )
        on_topic = prompt.rsplit(STATEMENT_FENCE, 1)[1].startswith(ON)
        said, confidence = ("yes", 0.8) if on_topic else ("no", 0.7)
        return answer(json.dumps({"answer": said, "reason": "why", "confidence": confidence}))

    model = ScriptedModel("test:judge", [stated] * 10, capabilities=Capabilities())
    judgment = await FocusJudge(model).judge(ctx(SUMMARY))
    assert [s["p_on_topic"] for s in judgment.metadata["statements"]] == pytest.approx([0.8, 0.3])
    assert {s["method"] for s in judgment.metadata["statements"]} == {"stated"}


@pytest.mark.parametrize(
    ("context", "why"),
    [
        (Context("Summarise.", output="text"), "no context to judge against"),
        (Context("Summarise.", output="", context=(SOURCE,)), "no output to judge"),
    ],
)
async def test_without_a_source_or_an_output_focus_abstains(context, why):
    model = ScriptedModel("test:judge", [], capabilities=LOGPROB_CAPABILITIES)
    judgment = await FocusJudge(model).judge(context)
    assert judgment.status is Status.ABSTAIN
    assert why in judgment.reasoning
    assert model.calls == 0


async def test_a_source_without_key_facts_abstains():
    router = Router({}, facts=[])
    model = model_for(router)
    judgment = await FocusJudge(model).judge(ctx(SUMMARY))
    assert judgment.status is Status.ABSTAIN
    assert "no key fact" in judgment.reasoning


async def test_two_judgments_of_one_source_at_once_extract_its_key_facts_once():
    router = Router({ON: 0.9, MINOR: 0.2}, claims=[ON, MINOR])
    model = model_for(router)
    judge = FocusJudge(model)
    first, second = await asyncio.gather(
        judge.judge(ctx(SUMMARY)), judge.judge(ctx(f"{ON} {MINOR}"))
    )
    assert first.status is second.status is Status.PASS
    key_fact_calls = [r for r in model.requests if KEY_FACTS_ASKED in r.messages[-1].content]
    assert len(key_fact_calls) == 1
    # The extraction's cost is counted once, by the judgment that paid for it.
    assert first.usage is not None
    assert second.usage is not None
    assert first.usage.calls + second.usage.calls == model.calls


async def test_a_shared_key_facts_serves_a_coverage_and_a_focus_judge():
    router = Router({ON: 0.9}, claims=[ON], coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1})
    model = model_for(router)
    shared = KeyFacts(ModelRef(model))
    await CoverageJudge(model, key_facts=shared).judge(ctx(SUMMARY))
    await FocusJudge(model, key_facts=shared).judge(ctx(SUMMARY))
    key_fact_calls = [r for r in model.requests if KEY_FACTS_ASKED in r.messages[-1].content]
    assert len(key_fact_calls) == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"statements": "paragraphs"}, "statements must be one of ['claims', 'sentences']"),
        ({"threshold": 1.0}, "threshold must lie strictly between 0 and 1"),
        ({"min_score": 1.5}, "min_score must lie between 0 and 1"),
    ],
)
def test_bad_options_are_refused_by_name(options, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        FocusJudge("test:unused", **options)


# The reports


async def test_a_focus_judgment_holds_a_focus_report():
    router = Router({ON: 0.9, MINOR: 0.2}, claims=[ON, MINOR])
    judgment = await FocusJudge(model_for(router), min_score=0.3).judge(ctx(SUMMARY))
    report = FocusReport.of(judgment)
    assert report is not None
    assert (report.key_facts, report.extraction) == (3, Extraction.MODEL)
    assert report.statements_from == "model"
    assert [s.statement for s in report.statements] == [ON, MINOR]
    assert [s.p_on_topic for s in report.statements] == pytest.approx([0.9, 0.2])
    assert {s.method for s in report.statements} == {"logprobs"}
    assert all(s.cause is None and s.error is None for s in report.statements)
    assert report.off_topic_statements == 1
    assert report.p_on_topic_mean == pytest.approx(0.55)
    assert report.on_topic_threshold == 0.5
    assert [(i.type, i.severity, i.statement) for i in report.issues] == [
        ("off_topic", "warning", MINOR)
    ]
    assert report.cause is None
    assert CoverageReport.of(judgment) is None


async def test_a_focus_report_of_an_error_names_the_failed_statement_s_cause():
    failure = ModelError(ErrorKind.TIMEOUT, TimeoutError("slow"))
    router = Router({ON: 0.9, MINOR: failure}, claims=[ON, MINOR])
    judgment = await FocusJudge(model_for(router)).judge(ctx(SUMMARY))
    report = FocusReport.of(judgment)
    assert report is not None
    assert report.cause is Cause.TIMEOUT
    assert report.p_on_topic_mean is None
    failed = report.statements[1]
    assert (failed.p_on_topic, failed.method, failed.cause) == (None, "none", Cause.TIMEOUT)
    assert failed.error


async def test_a_coverage_judgment_holds_a_coverage_report_with_a_row_per_key_fact():
    router = Router({}, coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1})
    judgment = await CoverageJudge(model_for(router)).judge(ctx(SUMMARY))
    report = CoverageReport.of(judgment)
    assert report is not None
    assert (report.key_facts, report.extraction) == (3, Extraction.MODEL)
    assert [row.claim for row in report.facts] == FACTS
    assert [row.p_supported for row in report.facts] == pytest.approx([0.9, 0.8, 0.1])
    assert report.covered_facts == sum(row.supported for row in report.facts)
    assert report.p_covered_mean == pytest.approx(0.6, abs=0.01)
    assert report.statements is None
    assert report.p_on_topic_mean is None
    assert report.relevance is None
    assert FocusReport.of(judgment) is None


async def test_a_coverage_report_with_the_off_topic_check_holds_the_focus_too():
    router = Router(
        {ON: 0.9, MINOR: 0.1},
        claims=[ON, MINOR],
        coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1},
    )
    judgment = await CoverageJudge(model_for(router), off_topic=True).judge(ctx(SUMMARY))
    report = CoverageReport.of(judgment)
    assert report is not None
    assert report.statements is not None
    assert [s.statement for s in report.statements] == [ON, MINOR]
    assert report.off_topic_statements == 1
    assert report.p_on_topic_mean == pytest.approx(0.5)
    assert report.issues is not None
    assert [i.statement for i in report.issues] == [MINOR]
    assert report.relevance == pytest.approx(relevance_f1(report.p_covered_mean or 0.0, 0.5))


async def test_a_coverage_report_writes_the_mean_focus_when_checked_even_without_statements():
    router = Router({}, claims=[], coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1})
    judgment = await CoverageJudge(model_for(router), off_topic=True).judge(ctx(SUMMARY))
    report = CoverageReport.of(judgment)
    assert report is not None
    assert report.statements == ()
    assert judgment.metadata["p_on_topic_mean"] is None
    assert report.relevance == report.p_covered_mean


async def test_a_coverage_report_of_an_error_names_the_cause():
    failure = ModelError(ErrorKind.TIMEOUT, TimeoutError("slow"))
    router = Router(
        {ON: failure}, claims=[ON], coverage={FACTS[0]: 0.9, FACTS[1]: 0.8, FACTS[2]: 0.1}
    )
    judgment = await CoverageJudge(model_for(router), off_topic=True).judge(ctx(SUMMARY))
    report = CoverageReport.of(judgment)
    assert report is not None
    assert report.cause is Cause.TIMEOUT
    assert report.relevance is None
