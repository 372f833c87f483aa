"""The sampled method (self-consistency): N rubric judgments at temperature 0.7 with fixed,
distinct seeds, averaged, against a fake model whose score depends on the seed."""

import json
import statistics

import pytest

from jurist import Context, Status
from jurist.calibration import PlainRubric, Sampled, SampledRubricReport, calibrate
from jurist.data import load_labelled
from jurist.judges import CriteriaReport, RubricJudge, RubricReport, RubricResult
from jurist.llm import Capabilities, ErrorKind, ModelError, Request, Response
from jurist.rubrics import get_rubric
from scripted import LOGPROB_CAPABILITIES, answer, with_logprobs

RUBRIC = get_rubric("summarization")
CTX = Context(
    "Summarise the article.", output="The council passed it.", context="The council passed it."
)


class BySeed:
    """States the score its table gives the request's seed; raises for `failing` seeds."""

    name = "test:by-seed"
    capabilities = Capabilities(json_schema=True)

    def __init__(self, scores: dict[int, int], failing: frozenset[int] = frozenset()) -> None:
        self.scores = scores
        self.failing = failing
        self.requests: list[Request] = []

    async def complete(self, request: Request) -> Response:
        self.requests.append(request)
        assert request.seed is not None
        if request.seed in self.failing:
            raise ModelError(ErrorKind.SERVER_ERROR, "the server fell over", retryable=False)
        payload = {"reasoning": "Read it.", "score": self.scores[request.seed], "confidence": 0.5}
        return answer(json.dumps(payload), input_tokens=100, output_tokens=20)


async def test_n_samples_go_out_with_distinct_seeds_above_temperature_zero():
    model = BySeed({0: 2, 1: 3, 2: 5})
    judge = Sampled(3).judge(RUBRIC, ["coherence", "fluency"], model)
    judgment = await judge.judge(CTX)
    assert judgment.status is not Status.ERROR
    assert len(model.requests) == 3 * 2
    assert sorted(r.seed for r in model.requests) == [0, 0, 1, 1, 2, 2]
    assert {r.temperature for r in model.requests} == {0.7}
    assert list(judgment.metadata["parameters"]["seeds"]) == [0, 1, 2]
    assert judgment.metadata["parameters"]["temperature"] == 0.7
    assert "seed" not in judgment.metadata["parameters"]  # each sample's "seed 0" is not true


async def test_the_scores_are_the_samples_mean_with_their_spread_and_summed_cost():
    model = BySeed({0: 2, 1: 3, 2: 5})
    method = Sampled(3)
    judgment = await method.judge(RUBRIC, ["coherence"], model).judge(CTX)

    reading = method.read(judgment)
    assert reading is not None
    assert reading.scores == {"coherence": pytest.approx(10 / 3)}
    assert reading.signals["coherence.std"] == pytest.approx(statistics.pstdev([2, 3, 5]))
    assert reading.signals["coherence.expected"] == pytest.approx(10 / 3)
    assert reading.signals["coherence.confidence"] == pytest.approx(0.5)
    # The plain reading of the same judgment agrees: the judgment is a rubric judgment.
    plain = PlainRubric().read(judgment)
    assert plain is not None
    assert plain.scores == reading.scores

    result = RubricResult.from_judgment(judgment)
    assert result.criteria_results[0].score == 3
    assert result.temperature == 0.7
    assert judgment.usage is not None
    assert judgment.usage.calls == 3
    assert (judgment.usage.input_tokens, judgment.usage.output_tokens) == (300, 60)
    assert result.tokens_used.input == 300
    assert [s["expected"]["coherence"] for s in judgment.metadata["samples"]] == [2, 3, 5]


async def test_token_probabilities_are_averaged_as_distributions():
    def probable(distribution: dict[str, float]) -> Response:
        stated = max(distribution, key=distribution.__getitem__)
        return with_logprobs(
            '{"reasoning": "Read it.", "score": ',
            (stated, distribution),
            "}",
            json={"reasoning": "Read it.", "score": int(stated)},
        )

    answers = {0: probable({"4": 0.5, "5": 0.5}), 1: probable({"2": 1.0})}

    class Probable:
        name = "test:probable"
        capabilities = LOGPROB_CAPABILITIES

        async def complete(self, request: Request) -> Response:
            assert request.seed is not None
            return answers[request.seed]

    judgment = await Sampled(2).judge(RUBRIC, ["fluency"], Probable()).judge(CTX)
    fluency = RubricResult.from_judgment(judgment).criteria_results[0]
    assert fluency.expected_score == pytest.approx((4.5 + 2.0) / 2)
    assert fluency.distribution is not None
    assert fluency.distribution["2"] == pytest.approx(0.5)
    assert fluency.distribution["4"] == pytest.approx(0.25)


async def test_one_failed_sample_makes_the_item_an_error_never_a_smaller_mean():
    model = BySeed({0: 2, 1: 3, 2: 5}, failing=frozenset({1}))
    method = Sampled(3)
    judgment = await method.judge(RUBRIC, ["coherence"], model).judge(CTX)
    assert judgment.status is Status.ERROR
    assert judgment.metadata["cause"] == "server_error"
    assert list(judgment.metadata["failed_seeds"]) == [1]
    assert "seed 1" in judgment.reasoning
    # The samples that did answer still cost.
    assert judgment.usage is not None
    assert judgment.usage.input_tokens == 200
    assert method.read(judgment) is None


def test_options_that_make_no_sense_are_refused():
    with pytest.raises(ValueError, match="samples"):
        Sampled(0)
    with pytest.raises(ValueError, match="temperature"):
        Sampled(3, temperature=0.0)


async def test_calibrate_with_samples_shows_the_n_fold_cost(tmp_path):
    rows = [
        {
            "id": f"s{i}",
            "doc_id": f"d{i // 2}",
            "source": f"Article {i // 2}.",
            "output": f"Summary {i}.",
            "human_scores": {"coherence": 1 + i % 5},
            "scale": [1, 5],
        }
        for i in range(8)
    ]
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    done = await calibrate(
        load_labelled(path),
        "summarization",
        model=BySeed({0: 2, 1: 3, 2: 5, 3: 4}),
        method=Sampled(4),
        n_boot=50,
    )
    assert done.report.judge.startswith("sampled (coherence)")
    assert done.report.cost is not None
    assert done.report.cost.calls == pytest.approx(4.0)
    points = done.report.dimensions["coherence"].points
    assert all(p.judge == pytest.approx(3.5) for p in points)


async def test_the_mean_holds_a_sampled_rubric_report_read_as_a_rubric_report_too():
    model = BySeed({0: 2, 1: 3, 2: 5})
    judgment = await Sampled(3).judge(RUBRIC, ["coherence"], model).judge(CTX)
    report = SampledRubricReport.of(judgment)
    assert report is not None
    assert judgment.metadata["report"] == "sampled_rubric"
    assert report.rubric == "summarization"
    assert report.methods == ("stated",)
    assert report.spread == {"coherence": pytest.approx(statistics.pstdev([2, 3, 5]))}
    assert [(s.seed, s.expected) for s in report.samples] == [
        (0, {"coherence": 2.0}),
        (1, {"coherence": 3.0}),
        (2, {"coherence": 5.0}),
    ]
    assert RubricReport.of(judgment) == report
    assert report.rubric_result == RubricResult.from_judgment(judgment)
    assert CriteriaReport.of(judgment) is None


async def test_one_sample_of_the_mean_is_a_plain_rubric_report():
    sample = await RubricJudge(RUBRIC.only("coherence"), BySeed({0: 4}), methods="plain").judge(CTX)
    assert RubricReport.of(sample) is not None
    assert SampledRubricReport.of(sample) is None
