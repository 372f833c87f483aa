"""Fluency and coherence from per-sentence yes/no checks: P(yes) read at the answer token,
aggregated per dimension, asked with the output as the shared prompt prefix, and every path
that is not a decision (no output, a failed call, an unreadable answer)."""

import json
from collections.abc import Callable, Mapping

import pytest

from jurist.core import Cause, Context, NumericScore, Status
from jurist.judges import ClaimsReport, SentencesReport
from jurist.judges._sentences import Question, SentenceChecksJudge
from jurist.llm import Capabilities, ErrorKind, ModelError, Request, Response
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

FIRST = "The council approved the new bridge on Monday."
SECOND = "Work on it starts in May."
THIRD = "Bananas bananas are the the yellow."
OUTPUT = f"{FIRST} {SECOND} {THIRD}"
FLUENT = "grammatical, well-formed English"
OPENING = "as the opening"
FOLLOWS = "follows sensibly"
SENTENCE_FENCE = "```sentence\n"


def yes_no(p_yes: float) -> Response:
    """A schema-shaped answer whose "answer" token carries P(yes)."""
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs('{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '"}')


def asked_sentence(request: Request) -> str:
    prompt = request.messages[-1].content
    return prompt.rsplit(SENTENCE_FENCE, 1)[1].split("\n```", 1)[0]


def question(request: Request) -> str:
    prompt = request.messages[-1].content
    return next(q for q in (FLUENT, OPENING, FOLLOWS) if q in prompt)


Table = Mapping[tuple[str, str], Response | Exception]


def routed(table: Table, calls: int = 50, capabilities: Capabilities = LOGPROB_CAPABILITIES):
    """A model answering each check from `table`, keyed by (question, sentence)."""

    def step(request: Request) -> Response:
        outcome = table[(question(request), asked_sentence(request))]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    steps: list[Callable[[Request], Response]] = [step] * calls
    return ScriptedModel("test:judge", steps, capabilities=capabilities)


def full_table(**changes: Response | Exception) -> dict[tuple[str, str], Response | Exception]:
    table: dict[tuple[str, str], Response | Exception] = {
        (FLUENT, FIRST): yes_no(0.9),
        (FLUENT, SECOND): yes_no(0.6),
        (FLUENT, THIRD): yes_no(0.3),
        (OPENING, FIRST): yes_no(0.8),
        (FOLLOWS, SECOND): yes_no(0.7),
        (FOLLOWS, THIRD): yes_no(0.2),
    }
    keys = {"fluent_third": (FLUENT, THIRD), "follows_second": (FOLLOWS, SECOND)}
    for name, outcome in changes.items():
        table[keys[name]] = outcome
    return table


async def test_each_dimension_is_one_plus_four_times_its_mean_p_yes():
    model = routed(full_table())
    result = await SentenceChecksJudge(model).judge(Context("Summarise.", output=OUTPUT))

    fluency, coherence = result.metadata["fluency"], result.metadata["coherence"]
    assert fluency["p_mean"] == pytest.approx((0.9 + 0.6 + 0.3) / 3)
    assert fluency["p_min"] == pytest.approx(0.3)
    assert fluency["checks"] == 3
    assert fluency["score"] == pytest.approx(1 + 4 * 0.6)
    assert fluency["weakest_sentence"] == 3
    assert coherence["p_mean"] == pytest.approx((0.8 + 0.7 + 0.2) / 3)
    assert coherence["p_min"] == pytest.approx(0.2)
    assert coherence["checks"] == 3
    assert coherence["method"] == "logprobs"
    # The judgment's score is the weaker dimension's, so PASS means it reached the threshold.
    assert isinstance(result.score, NumericScore)
    assert (result.score.min, result.score.max) == (1.0, 5.0)
    assert result.score.value == pytest.approx(1 + 4 * 1.7 / 3)
    assert result.status is Status.PASS
    assert [(c.name, c.passed) for c in result.checks] == [("fluency", True), ("coherence", True)]
    assert result.usage is not None
    assert result.usage.calls == 6
    assert result.metadata["sentences"] == 3


async def test_every_check_keeps_its_p_yes_question_and_sentence():
    model = routed(full_table())
    result = await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    rows = [
        (c["dimension"], c["question"], c["sentence"], c["p_yes"])
        for c in result.metadata["checks"]
    ]
    assert rows == [
        ("fluency", "fluent", 1, pytest.approx(0.9)),
        ("fluency", "fluent", 2, pytest.approx(0.6)),
        ("fluency", "fluent", 3, pytest.approx(0.3)),
        ("coherence", "opening", 1, pytest.approx(0.8)),
        ("coherence", "follows", 2, pytest.approx(0.7)),
        ("coherence", "follows", 3, pytest.approx(0.2)),
    ]
    third = result.metadata["checks"][2]
    assert third["text"] == THIRD
    assert third["answer"] == "no"
    assert third["method"] == "logprobs"


async def test_a_dimension_under_the_threshold_fails_the_judgment():
    model = routed(full_table())
    result = await SentenceChecksJudge(model, threshold=3.3).judge(Context("", output=OUTPUT))
    assert result.status is Status.FAIL
    assert [(c.name, c.passed) for c in result.checks] == [("fluency", True), ("coherence", False)]
    assert "sentence 3" in result.checks[1].message


async def test_checks_share_the_output_as_prefix_and_end_with_the_sentence():
    model = routed(full_table())
    await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    prompts = [r.messages[-1].content for r in model.requests]
    assert [question(r) for r in model.requests] == [FLUENT] * 3 + [OPENING] + [FOLLOWS] * 2

    # Every check of one output, of either dimension, starts with the same output block.
    shared = prompts[0].split("Decide whether", 1)[0]
    assert OUTPUT in shared
    assert all(p.startswith(shared) for p in prompts)
    # Within one question only the last lines differ: everything before the sentence is one.
    fluency_heads = {p.rsplit(SENTENCE_FENCE, 1)[0] for p in prompts[:3]}
    assert len(fluency_heads) == 1
    follows_heads = {p.rsplit("Sentence before it:", 1)[0] for p in prompts[4:]}
    assert len(follows_heads) == 1
    assert [asked_sentence(r) for r in model.requests[:3]] == [FIRST, SECOND, THIRD]
    assert all(p.rstrip().endswith("```") for p in prompts)
    assert len({r.messages[0].content for r in model.requests}) == 1  # one system prompt


async def test_a_follows_check_shows_the_sentence_before_it():
    model = routed(full_table())
    await SentenceChecksJudge(model, dimensions=("coherence",)).judge(Context("", output=OUTPUT))
    last = model.requests[-1].messages[-1].content
    assert last.split("Sentence before it:", 1)[1].split("Sentence:", 1)[0].count(SECOND) == 1
    assert asked_sentence(model.requests[-1]) == THIRD


async def test_the_answer_is_a_short_schema_constrained_yes_or_no_with_probabilities():
    model = routed(full_table())
    await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    request = model.requests[0]
    assert request.json_schema is not None
    assert request.json_schema["properties"] == {
        "answer": {"type": "string", "enum": ["yes", "no"]}
    }
    assert request.json_schema["additionalProperties"] is False
    assert request.max_tokens is not None
    assert request.max_tokens <= 16
    assert request.logprobs


async def test_one_dimension_only_asks_only_its_checks():
    model = routed(full_table())
    result = await SentenceChecksJudge(model, dimensions=("fluency",)).judge(
        Context("", output=OUTPUT)
    )
    assert model.calls == 3
    assert {question(r) for r in model.requests} == {FLUENT}
    assert "coherence" not in result.metadata
    assert list(result.metadata["dimensions"]) == ["fluency"]
    assert isinstance(result.score, NumericScore)
    assert (result.score.min, result.score.max) == (1.0, 5.0)
    assert result.score.value == pytest.approx(1 + 4 * 0.6)


async def test_a_one_sentence_output_has_only_the_opening_check_for_coherence():
    model = routed({(OPENING, FIRST): yes_no(0.25)})
    result = await SentenceChecksJudge(model, dimensions=("coherence",)).judge(
        Context("", output=FIRST)
    )
    assert model.calls == 1
    assert result.metadata["coherence"]["checks"] == 1
    assert result.metadata["coherence"]["p_mean"] == pytest.approx(0.25)
    assert result.status is Status.FAIL  # 1 + 4 x 0.25 = 2 < 3


@pytest.mark.parametrize("output", ["", "   \n  "])
async def test_no_output_abstains_without_a_call(output):
    model = routed({})
    result = await SentenceChecksJudge(model).judge(Context("Summarise.", output=output))
    assert result.status is Status.ABSTAIN
    assert model.calls == 0
    assert list(result.metadata["dimensions"]) == ["fluency", "coherence"]


async def test_a_failed_call_is_an_error_with_its_cause_not_a_low_score():
    down = ModelError(ErrorKind.UNAVAILABLE, "down")
    model = routed(full_table(follows_second=down))
    result = await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "unavailable"
    assert "1 of 6" in result.reasoning
    failed = [c for c in result.metadata["checks"] if "cause" in c]
    assert [(c["question"], c["sentence"], c["p_yes"]) for c in failed] == [("follows", 2, None)]
    assert "coherence" not in result.metadata  # no aggregate from an incomplete set


@pytest.mark.parametrize(
    "unreadable",
    [answer("not json at all"), answer(json.dumps({"answer": "maybe"})), answer("{}")],
)
async def test_an_unreadable_answer_is_an_error_unparseable(unreadable):
    model = routed(full_table(fluent_third=unreadable))
    result = await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "unparseable"
    (failed,) = [c for c in result.metadata["checks"] if "cause" in c]
    assert (failed["dimension"], failed["sentence"]) == ("fluency", 3)


async def test_two_kinds_of_failure_are_a_mixed_cause():
    model = routed(
        full_table(
            fluent_third=answer("nope"),
            follows_second=ModelError(ErrorKind.TIMEOUT, "slow"),
        )
    )
    result = await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "mixed"
    assert "timeout" in result.reasoning
    assert "unparseable" in result.reasoning


async def test_without_probabilities_the_stated_answer_counts_and_says_so():
    plain = Capabilities(json_schema=True)
    table = {
        (FLUENT, FIRST): answer(json.dumps({"answer": "yes"})),
        (FLUENT, SECOND): answer(json.dumps({"answer": "no"})),
    }
    model = routed(table, capabilities=plain)
    result = await SentenceChecksJudge(model, dimensions=("fluency",)).judge(
        Context("", output=f"{FIRST} {SECOND}")
    )
    assert not model.requests[0].logprobs
    assert result.metadata["fluency"]["p_mean"] == pytest.approx(0.5)
    assert result.metadata["fluency"]["method"] == "stated"
    assert [c["method"] for c in result.metadata["checks"]] == ["stated", "stated"]


async def test_a_long_output_is_judged_on_its_first_sentences_and_says_so():
    table = {(FLUENT, FIRST): yes_no(0.9), (FLUENT, SECOND): yes_no(0.7)}
    model = routed(table)
    result = await SentenceChecksJudge(model, dimensions=("fluency",), max_sentences=2).judge(
        Context("", output=OUTPUT)
    )
    assert model.calls == 2
    assert result.metadata["sentences"] == 3
    assert result.metadata["checked_sentences"] == 2
    assert "first 2 of 3 sentences" in result.reasoning


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dimensions": ()}, "dimensions is empty"),
        ({"dimensions": ("fluency", "grammar")}, "'grammar' is not one of"),
        ({"dimensions": "fluency"}, "not the string"),
        ({"dimensions": ("fluency", "fluency")}, "twice"),
        ({"threshold": 0.5}, "threshold must lie on the 1-5 scale"),
        ({"max_sentences": 0}, "max_sentences"),
    ],
)
def test_bad_options_are_refused_naming_the_field(options, message):
    with pytest.raises(ValueError, match=message):
        SentenceChecksJudge("test:unused", **options)


class Unobtainable:
    """A model reference that cannot give a model (no key, no weights)."""

    def get(self):
        raise ModelError(ErrorKind.UNAVAILABLE, "OPENAI_API_KEY is not set")


async def test_a_model_that_cannot_be_had_is_an_error_for_every_check():
    judge = SentenceChecksJudge("test:unused")
    judge.model = Unobtainable()
    result = await judge.judge(Context("", output=OUTPUT))
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "unavailable"
    assert "6 of 6" in result.reasoning
    assert "OPENAI_API_KEY" in result.reasoning


# The sentences report


async def test_the_sentences_report_reads_typed():
    model = routed(full_table())
    result = await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    report = SentencesReport.of(result)
    assert report is not None
    assert report.dimensions == ("fluency", "coherence")
    assert (report.sentences, report.checked_sentences, report.threshold) == (3, 3, 3.0)
    fluency = report.dimension("fluency")
    assert fluency is not None
    assert fluency.p_min == pytest.approx(0.3)
    assert fluency.weakest_sentence == 3
    assert report.dimension("coherence") == report.coherence
    assert report.dimension("relevance") is None
    checks = report.checks or ()
    assert [(c.question, c.sentence) for c in checks][:4] == [
        (Question.FLUENT, 1),
        (Question.FLUENT, 2),
        (Question.FLUENT, 3),
        (Question.OPENING, 1),
    ]
    assert checks[2].answer == "no"
    assert checks[2].cause is None
    assert "cause" not in result.metadata["checks"][2]  # a check that did not fail has none
    assert ClaimsReport.of(result) is None


async def test_a_failed_check_reads_with_its_cause_and_no_aggregate():
    model = routed(full_table(follows_second=ModelError(ErrorKind.UNAVAILABLE, "down")))
    result = await SentenceChecksJudge(model).judge(Context("", output=OUTPUT))
    report = SentencesReport.of(result)
    assert report is not None
    assert result.cause is Cause.MODEL_UNAVAILABLE
    (failed,) = [c for c in report.checks or () if c.cause is not None]
    assert (failed.cause, failed.method, failed.p_yes) == (Cause.MODEL_UNAVAILABLE, "none", None)
    assert "down" in (failed.error or "")
    assert report.dimension("coherence") is None
    assert report.threshold is None


async def test_an_output_with_no_text_reports_only_the_dimensions():
    result = await SentenceChecksJudge(routed({}), dimensions=["fluency"]).judge(Context(""))
    report = SentencesReport.of(result)
    assert report == SentencesReport(dimensions=("fluency",))
    assert "sentences" not in result.metadata
