"""The `sentences` method: which dimensions it scores, how a judgment becomes a reading, and
a calibration run end to end with a scripted model."""

import json

import pytest

from jurist import Context, Judgment, Usage
from jurist.calibration import SentenceChecks, calibrate
from jurist.data import load_labelled
from jurist.judges import SentencesReport
from jurist.judges._sentences import SentenceChecksJudge
from jurist.llm import Request, Response
from jurist.rubrics import get_rubric
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, with_logprobs

RATED = ["coherence", "consistency", "fluency", "relevance"]


def yes_no(p_yes: float) -> Response:
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs('{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '"}')


def by_question(fluent: float, opening: float, follows: float, calls: int = 200) -> ScriptedModel:
    """A model giving one P(yes) per kind of question, whatever the sentence."""

    def step(request: Request) -> Response:
        prompt = request.messages[-1].content
        if "well-formed English" in prompt:
            return yes_no(fluent)
        if "as the opening" in prompt:
            return yes_no(opening)
        return yes_no(follows)

    return ScriptedModel("test:judge", [step] * calls, capabilities=LOGPROB_CAPABILITIES)


def test_it_scores_the_rated_ones_of_coherence_and_fluency():
    rubric = get_rubric("summarization")
    method = SentenceChecks()
    assert method.dimensions(rubric, RATED, []) == ["coherence", "fluency"]
    assert method.dimensions(rubric, ["fluency", "relevance"], []) == ["fluency"]
    assert method.dimensions(rubric, RATED, ["fluency"]) == ["fluency"]


@pytest.mark.parametrize(
    ("rated", "asked", "message"),
    [
        (RATED, ["relevance"], "scores only \\['coherence', 'fluency'\\]"),
        (["fluency"], ["coherence"], "--dimension 'coherence': the dataset rates only"),
        (["consistency", "relevance"], [], "none of which the dataset rates"),
    ],
)
def test_a_dimension_it_cannot_score_is_a_value_error_naming_it(rated, asked, message):
    with pytest.raises(ValueError, match=message):
        SentenceChecks().dimensions(get_rubric("summarization"), rated, asked)


def test_its_judge_asks_only_the_chosen_dimensions():
    judge = SentenceChecks().judge(get_rubric("summarization"), ["fluency"], "test:unused")
    assert isinstance(judge, SentenceChecksJudge)
    assert judge.dimensions == ("fluency",)


async def test_a_judgment_reads_as_scores_seconds_and_signals():
    model = by_question(fluent=0.75, opening=0.5, follows=0.25)
    judgment = await SentenceChecksJudge(model).judge(
        Context("", output="The mayor opened the bridge. It cost ten million.")
    )
    judgment = judgment.evolve(usage=Usage(calls=4, latency_ms=3500.0))
    reading = SentenceChecks().read(judgment)
    assert reading is not None
    assert reading.scores == {
        "fluency": pytest.approx(1 + 4 * 0.75),
        "coherence": pytest.approx(1 + 4 * 0.375),
    }
    assert reading.seconds == pytest.approx(3.5)
    assert reading.signals == {
        "fluency.p_mean": pytest.approx(0.75),
        "fluency.p_min": pytest.approx(0.75),
        "fluency.checks": 2.0,
        "coherence.p_mean": pytest.approx(0.375),
        "coherence.p_min": pytest.approx(0.25),
        "coherence.checks": 2.0,
    }


def test_an_error_has_no_reading_and_an_abstention_no_scores():
    method = SentenceChecks()
    assert method.read(Judgment.error("model down", metadata={"cause": "unavailable"})) is None
    no_text = SentencesReport(dimensions=("coherence", "fluency"))
    abstained = Judgment.abstain("no text", metadata=no_text.to_metadata())
    reading = method.read(abstained)
    assert reading is not None
    assert reading.scores == {"coherence": None, "fluency": None}
    assert reading.signals == {}


async def test_a_sentences_calibration_reports_coherence_and_fluency(tmp_path):
    rows = [
        {
            "id": f"s{i}",
            "doc_id": f"d{i % 2}",
            "source": "The bridge closes on Monday. Repairs take 14 weeks.",
            "output": f"The bridge closes on Monday. Repairs take {10 + i} weeks.",
            "human_scores": {"coherence": 1 + (i % 5), "fluency": 5 - (i % 5), "relevance": 3},
            "scale": [1, 5],
        }
        for i in range(6)
    ]
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows))
    model = by_question(fluent=0.9, opening=0.8, follows=0.6)

    done = await calibrate(
        load_labelled(path), "summarization", model=model, method=SentenceChecks(), n_boot=100
    )

    report = done.report
    assert list(report.dimensions) == ["coherence", "fluency"]
    assert report.judge == "sentences (coherence, fluency)"
    # Two sentences: two fluency checks, an opening and one follows check, per item.
    assert report.cost is not None
    assert report.cost.calls == pytest.approx(4.0)
    reading = SentenceChecks().read(next(iter(done.run.judgments.values())))
    assert reading is not None
    assert reading.scores["coherence"] == pytest.approx(1 + 4 * 0.7)
    assert reading.scores["fluency"] == pytest.approx(1 + 4 * 0.9)
