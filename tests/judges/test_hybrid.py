"""HybridJudge settles clear cases without the model; SourceCountJudge counts citations."""

import json
import re

import pytest

from jurist.core import (
    BaseJudge,
    CategoricalScore,
    Context,
    JudgeKind,
    Judgment,
    NumericScore,
    Status,
    judge,
)
from jurist.judges import (
    ContainsJudge,
    HybridJudge,
    LengthJudge,
    ResearchVerdictJudge,
    SourceCountJudge,
)
from jurist.llm import ModelError
from scripted import ScriptedModel, answer

QUERY = "How did Norway get most new cars to be electric?"
GOOD = (
    "Norway exempted electric cars from purchase tax and VAT and waived road tolls "
    "(https://example.org/ev-policy, [1]); by 2024 over 80% of new cars were electric [2]."
)
VERDICT_PASS = json.dumps(
    {
        "reasoning": "on topic",
        "coverage": "yes",
        "relevance": "yes",
        "constraint_compliance": "yes",
        "confidence_acceptable": "yes",
        "verdict": "PASS",
        "refinement_hint": "",
    }
)


def ctx(output: str) -> Context:
    return Context(QUERY, output=output)


def heuristics():
    return [
        LengthJudge(min_words=12, name="length"),
        ContainsJudge(["electric", "tax"], name="keywords"),
        SourceCountJudge(2, name="sources"),
    ]


def hybrid(*script, **options):
    model = ScriptedModel(script=script)
    return HybridJudge(heuristics(), ResearchVerdictJudge(model), **options), model


async def test_an_obvious_pass_never_calls_the_model():
    judge_, model = hybrid()  # an empty script fails the test if the model is called
    result = await judge_.judge(ctx(GOOD))
    assert result.status is Status.PASS
    assert model.calls == 0
    assert result.metadata["decided_by"] == "heuristics"
    assert result.metadata["heuristic_score"] == pytest.approx(1.0)
    assert result.metadata["model_calls_saved"] == 1
    assert result.score == NumericScore(1.0)
    assert [c.name for c in result.checks] == ["length", "keywords", "sources"]
    assert "above 0.7" in result.reasoning


async def test_an_obvious_fail_never_calls_the_model():
    judge_, model = hybrid()
    result = await judge_.judge(ctx("No idea."))
    assert result.status is Status.FAIL
    assert model.calls == 0
    assert result.metadata["decided_by"] == "heuristics"
    assert result.metadata["heuristic_score"] == pytest.approx(0.0)
    assert result.metadata["model_calls_saved"] == 1
    assert not any(c.passed for c in result.checks)


async def test_a_borderline_case_goes_to_the_model_once():
    # Long enough and on keywords, but one source of two: (1 + 1 + 0.5) / 3 = 0.83 > 0.7.
    # With a wider band the same case is borderline.
    one_source = GOOD.replace(", [1]", "").replace(" [2]", "")
    judge_, model = hybrid(answer(VERDICT_PASS), borderline=(0.4, 0.9))
    result = await judge_.judge(ctx(one_source))
    assert model.calls == 1
    assert result.status is Status.PASS
    assert result.metadata["decided_by"] == "model"
    assert result.metadata["model_calls_saved"] == 0
    assert result.metadata["heuristic_score"] == pytest.approx(5 / 6)
    assert "within 0.4..0.9" in result.metadata["escalated"]
    assert result.metadata["verdict"] == "PASS"  # the model judge's metadata is kept
    assert result.metadata["model_judge"] == "research_verdict"
    names = [c.name for c in result.checks]
    assert names[:3] == ["length", "keywords", "sources"]
    assert "coverage" in names
    assert result.usage.calls == 1


async def test_the_band_bounds_belong_to_the_model():
    half = judge(lambda c: Judgment.ok(score=NumericScore(0.4)), name="half")
    model = ScriptedModel(script=[answer(VERDICT_PASS)])
    result = await HybridJudge(half, ResearchVerdictJudge(model)).judge(ctx(GOOD))
    assert result.metadata["decided_by"] == "model"
    assert model.calls == 1


async def test_a_broken_heuristic_sends_the_case_to_the_model():
    class Broken(BaseJudge):
        async def judge(self, ctx: Context) -> Judgment:
            raise RuntimeError("regex engine on fire")

    model = ScriptedModel(script=[answer(VERDICT_PASS)])
    hybrid_ = HybridJudge([*heuristics(), Broken()], ResearchVerdictJudge(model))
    result = await hybrid_.judge(ctx(GOOD))  # the other heuristics would say PASS
    assert model.calls == 1
    assert result.metadata["decided_by"] == "model"
    assert result.metadata["escalated"] == "heuristics broke: broken"
    assert result.metadata["heuristics"]["broken"] == "error"


async def test_abstaining_heuristics_are_left_out_and_none_left_means_the_model():
    abstainer = judge(lambda c: Judgment.abstain("n/a"), name="abstainer")
    model = ScriptedModel()
    settled = await HybridJudge([abstainer, *heuristics()], ResearchVerdictJudge(model)).judge(
        ctx(GOOD)
    )
    assert settled.metadata["heuristic_score"] == pytest.approx(1.0)
    assert settled.metadata["decided_by"] == "heuristics"

    model = ScriptedModel(script=[answer(VERDICT_PASS)])
    open_ = await HybridJudge(abstainer, ResearchVerdictJudge(model)).judge(ctx(GOOD))
    assert open_.metadata["decided_by"] == "model"
    assert open_.metadata["heuristic_score"] is None
    assert open_.metadata["escalated"] == "no heuristic gave a value"


async def test_a_heuristic_without_a_normalisable_score_counts_by_its_status():
    labelled = judge(
        lambda c: Judgment.fail(score=CategoricalScore("bad", ("good", "bad"))), name="labelled"
    )
    bare = judge(lambda c: True, name="bare")
    result = await HybridJudge(
        [labelled, bare], ResearchVerdictJudge(ScriptedModel()), borderline=(0.6, 0.9)
    ).judge(ctx(GOOD))
    assert result.metadata["heuristic_score"] == pytest.approx(0.5)
    assert result.status is Status.FAIL
    assert result.metadata["decided_by"] == "heuristics"


async def test_a_model_error_in_the_band_is_an_error_not_a_verdict():
    judge_, _ = hybrid(ModelError("server_error", "502"), borderline=(0.0, 1.0))
    result = await judge_.judge(ctx(GOOD))
    assert result.status is Status.ERROR
    assert result.metadata["decided_by"] == "model"
    assert result.metadata["cause"] == "server_error"


async def test_model_calls_saved_counts_the_model_judges_expected_calls():
    model = ScriptedModel()
    costly = ResearchVerdictJudge(model)
    costly.expected_calls = 3  # type: ignore[attr-defined]
    result = await HybridJudge(heuristics(), costly).judge(ctx(GOOD))
    assert result.metadata["model_calls_saved"] == 3


def test_hybrid_kind_and_a_single_heuristic():
    one = HybridJudge(LengthJudge(min_words=1), ResearchVerdictJudge(ScriptedModel()))
    assert one.kind is JudgeKind.HYBRID
    assert len(one.heuristics) == 1


@pytest.mark.parametrize(
    "borderline", [(0.8, 0.2), (-0.1, 0.5), (0.2, 1.5), (0.1,), "ab", (0.1, float("nan"))]
)
def test_an_invalid_borderline_is_refused_naming_it(borderline):
    with pytest.raises(ValueError, match="borderline"):
        HybridJudge(heuristics(), ResearchVerdictJudge(ScriptedModel()), borderline=borderline)


def test_no_heuristics_or_a_non_judge_is_refused():
    with pytest.raises(ValueError, match="heuristics"):
        HybridJudge([], ResearchVerdictJudge(ScriptedModel()))
    with pytest.raises(TypeError, match="model_judge"):
        HybridJudge(heuristics(), "gpt")  # type: ignore[arg-type]


# SourceCountJudge


async def test_source_count_counts_distinct_urls_and_citations():
    text = (
        "See https://a.example/x. Also https://a.example/x, and https://b.example/y;"
        " as [1] and [2] say, and [1] again."
    )
    result = await SourceCountJudge(4).judge(ctx(text))
    assert result.status is Status.PASS
    assert result.metadata["count"] == 4
    assert result.metadata["sources"] == (
        "https://a.example/x",
        "https://b.example/y",
        "[1]",
        "[2]",
    )


async def test_source_count_scores_a_near_miss_above_none():
    near = await SourceCountJudge(3).judge(ctx("as [1] and [2] show"))
    none = await SourceCountJudge(3).judge(ctx("trust me"))
    assert near.status is none.status is Status.FAIL
    assert near.score == NumericScore(2 / 3)
    assert none.score == NumericScore(0.0)
    assert "0 distinct sources, at least 3" in none.reasoning


async def test_source_count_takes_a_custom_pattern():
    dois = SourceCountJudge(2, re.compile(r"doi:\S+"))
    result = await dois.judge(ctx("doi:10.1/a and doi:10.1/b; see https://x.example"))
    assert result.passed
    assert result.metadata["count"] == 2


def test_source_count_refuses_bad_arguments():
    with pytest.raises(ValueError, match="min_sources"):
        SourceCountJudge(0)
    with pytest.raises(TypeError, match="min_sources"):
        SourceCountJudge(2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a valid regex"):
        SourceCountJudge(1, "(")
