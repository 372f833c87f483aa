"""Judge specs: judges, juries and cascades described as data, built and run; every error
names its path inside the spec."""

import inspect
import json
import re
from typing import Any

import pytest
import yaml
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel

import jurist.specs as spec_module
from jurist.core import Context, Status, judge_name
from jurist.judges import (
    AnswerRelevanceJudge,
    ContainsJudge,
    ContextRelevanceJudge,
    CoverageJudge,
    CriteriaJudge,
    CriterionJudge,
    FaithfulnessJudge,
    FocusJudge,
    HallucinationJudge,
    LengthJudge,
    PairwiseJudge,
    RegexJudge,
    RubricJudge,
    SchemaJudge,
    SentenceChecksJudge,
)
from jurist.jury import Cascade, Jury
from jurist.llm import Capabilities, Request
from jurist.specs import (
    JudgeSpec,
    JudgeSpecError,
    judge_from_spec,
    judge_spec_schema,
    load_judge_spec,
    parse_judge_spec,
    registry,
)
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

CriteriaSpec = registry["criteria"].spec

REFUND = Context("Explain the refund policy", output='{"answer": "Refunds within 30 days."}')
NOT_JSON = Context("Explain the refund policy", output="Refunds within 30 days, no questions.")
STATED = Capabilities(json_schema=True)
ANCHORS = {1: "awful", 2: "poor", 3: "fair", 4: "good", 5: "excellent"}


async def run(spec: dict[str, Any], ctx: Context, **options: Any) -> Status:
    return (await judge_from_spec(spec, **options).judge(ctx)).status


def spec_error(spec: Any, **options: Any) -> JudgeSpecError:
    with pytest.raises(JudgeSpecError) as info:
        judge_from_spec(spec, **options)
    return info.value


# --- deterministic leaves and composition ---------------------------------------------


@pytest.mark.parametrize(
    ("spec", "ctx", "expected"),
    [
        ({"type": "schema", "schema": {"type": "object", "required": ["answer"]}}, REFUND, "pass"),
        ({"type": "schema", "schema": {"type": "object", "required": ["price"]}}, REFUND, "fail"),
        ({"type": "schema", "schema": False}, REFUND, "fail"),
        ({"type": "json"}, REFUND, "pass"),
        ({"type": "json"}, NOT_JSON, "fail"),
        ({"type": "contains", "keywords": "refunds"}, REFUND, "pass"),
        ({"type": "contains", "keywords": ["refunds", "shipping"]}, REFUND, "fail"),
        ({"type": "contains", "keywords": ["refunds", "shipping"], "mode": "any"}, REFUND, "pass"),
        ({"type": "contains", "keywords": ["refunds"], "case_sensitive": True}, REFUND, "fail"),
        ({"type": "regex", "pattern": r"\d+ days"}, REFUND, "pass"),
        ({"type": "regex", "pattern": r"\d+ days", "must_match": False}, REFUND, "fail"),
        ({"type": "regex", "pattern": "^refunds"}, NOT_JSON, "fail"),
        ({"type": "regex", "pattern": "^refunds", "flags": ["ignorecase"]}, NOT_JSON, "pass"),
        ({"type": "length", "max_words": 3}, NOT_JSON, "fail"),
        ({"type": "length", "min_words": 3, "max_chars": 100}, NOT_JSON, "pass"),
        ({"type": "not", "judge": {"type": "json"}}, NOT_JSON, "pass"),
        (
            {"type": "all_of", "judges": [{"type": "json"}, {"type": "length", "max_words": 3}]},
            REFUND,
            "fail",
        ),
        (
            {"type": "any_of", "judges": [{"type": "json"}, {"type": "length", "max_words": 3}]},
            REFUND,
            "pass",
        ),
    ],
)
async def test_deterministic_leaves_and_composition_judge_real_contexts(spec, ctx, expected):
    assert await run(spec, ctx) is Status(expected)


def test_a_leaf_keeps_its_name_description_and_options():
    built = judge_from_spec(
        {
            "type": "contains",
            "name": "mentions-refund",
            "description": "says refund",
            "keywords": ["Refund", "days"],
            "mode": "any",
            "case_sensitive": True,
        }
    )
    assert isinstance(built, ContainsJudge)
    assert (built.name, built.description) == ("mentions-refund", "says refund")
    assert (built.keywords, built.mode, built.case_sensitive) == (("Refund", "days"), "any", True)
    regex = judge_from_spec({"type": "regex", "pattern": "a.b", "flags": ["dotall", "multiline"]})
    assert isinstance(regex, RegexJudge)
    assert regex.pattern.flags & re.DOTALL
    assert regex.pattern.flags & re.MULTILINE


def test_specs_can_be_written_in_python_without_the_type():
    built = judge_from_spec(CriteriaSpec(criteria=("Polite",)), model="test:unused")
    assert isinstance(built, CriteriaJudge)
    assert built.criteria == ("Polite",)


# --- juries and cascades --------------------------------------------------------------

# json passes on REFUND, the length bound fails: one vote each way.
SPLIT = [{"type": "json"}, {"type": "length", "name": "short", "max_words": 3}]


@pytest.mark.parametrize(
    ("tie", "expected"), [("pass", Status.PASS), ("fail", Status.FAIL), ("abstain", Status.ABSTAIN)]
)
async def test_a_majority_jury_settles_a_tie_by_its_policy(tie, expected):
    spec = {"type": "jury", "judges": SPLIT, "strategy": {"type": "majority", "tie": tie}}
    jury = judge_from_spec(spec)
    assert isinstance(jury, Jury)
    verdict = await jury.vote(REFUND)
    assert verdict.status is expected
    assert {n: j.status for n, j in verdict.by_name.items()} == {
        "json": Status.PASS,
        "short": Status.FAIL,
    }


async def test_weights_and_averaging_strategies():
    weighted = {
        "type": "jury",
        "judges": SPLIT,
        "strategy": {"type": "majority", "tie": "fail"},
        "weights": {"json": 2.0},
    }
    assert await run(weighted, REFUND) is Status.PASS
    for kind, threshold, expected in (("average", 0.5, "pass"), ("median", 0.6, "fail")):
        spec = {
            "type": "jury",
            "judges": SPLIT,
            "strategy": {"type": kind, "threshold": threshold, "errors": "ignore"},
        }
        assert await run(spec, REFUND) is Status(expected)


CASCADE: dict[str, Any] = {
    "type": "cascade",
    "name": "gate",
    "tiers": [
        {"name": "shape", "policy": "reject_on_any_fail", "judge": {"type": "json"}},
        {
            "name": "panel",
            "policy": "final",
            "judges": [
                {"type": "contains", "keywords": ["refunds"]},
                {"type": "length", "max_words": 50},
            ],
            "strategy": {"type": "consensus"},
        },
    ],
}


async def test_a_cascade_stops_at_the_tier_that_settles():
    cascade = judge_from_spec(CASCADE)
    assert isinstance(cascade, Cascade)
    assert cascade.name == "gate"
    rejected = await cascade.vote(NOT_JSON)
    assert rejected.status is Status.FAIL
    assert rejected.aggregated.metadata["tiers_run"] == ("shape",)
    accepted = await cascade.vote(REFUND)
    assert accepted.status is Status.PASS
    assert accepted.aggregated.metadata["tiers_run"] == ("shape", "panel")
    assert set(accepted.by_name) == {"shape/json", "panel/contains", "panel/length"}


# --- model-backed leaves: the caller's model, never the spec's ------------------------


def yes_or_no(request: Request):
    prompt = request.messages[-1].content
    said = "yes" if prompt.rstrip().endswith("refund window") else "no"
    return answer(json.dumps({"answer": said, "reason": f"It says {said}.", "confidence": 0.9}))


async def test_a_criteria_leaf_asks_the_model_it_was_given():
    model = ScriptedModel(script=[yes_or_no, yes_or_no])
    spec = {
        "type": "criteria",
        "criteria": ["The answer states the refund window", "The answer mentions shipping"],
    }
    judgment = await judge_from_spec(spec, model=model).judge(REFUND)
    assert model.calls == 2
    assert judgment.status is Status.FAIL
    assert judgment.metadata["model"] == "test:scripted"
    assert judgment.metadata["passed_criteria"] == ("The answer states the refund window",)


async def test_model_backed_members_of_a_jury_get_the_model_too():
    model = ScriptedModel(script=[yes_or_no])
    spec = {
        "type": "jury",
        "strategy": {"type": "consensus"},
        "judges": [
            {"type": "json"},
            {"type": "criterion", "criterion": "The answer states the refund window"},
        ],
    }
    assert await run(spec, REFUND, model=model) is Status.PASS
    assert model.calls == 1


def test_every_model_backed_leaf_is_built_with_the_model_and_its_options():
    model = ScriptedModel()
    leaves: dict[str, tuple[type, dict[str, Any]]] = {
        "criterion": (CriterionJudge, {"criterion": "Polite", "reason_first": True}),
        "answer_relevance": (AnswerRelevanceJudge, {"threshold": 0.7}),
        "context_relevance": (ContextRelevanceJudge, {"threshold": 0.6, "min_score": 0.25}),
        "hallucination": (HallucinationJudge, {"max_unsupported": 2, "max_claims": 5}),
        "faithfulness": (FaithfulnessJudge, {"min_score": 0.9, "together": True}),
        "pairwise": (PairwiseJudge, {"tie_margin": 0.2, "both_orders": False}),
    }
    # Where a judge keeps an option when not on itself.
    holders = {"max_claims": "extractor", "together": "options"}
    for kind, (cls, options) in leaves.items():
        built = judge_from_spec({"type": kind, **options}, model=model)
        assert isinstance(built, cls), kind
        assert built.model.get() is model, kind  # type: ignore[attr-defined]
        for option, value in options.items():
            holder = getattr(built, holders[option]) if option in holders else built
            assert getattr(holder, option) == value, (kind, option)


def test_a_spec_cannot_choose_its_model():
    error = spec_error({"type": "criterion", "criterion": "Polite", "model": "openai:gpt-4o"})
    assert error.problems[0].path == "model"
    assert "unknown field" in error.problems[0].message


# --- rubrics ------------------------------------------------------------------------

INLINE_RUBRIC = {
    "id": "clarity-check",
    "name": "Clarity",
    "pass_score": 3.0,
    "criteria": [{"name": "clarity", "description": "Easy to follow.", "anchors": ANCHORS}],
}


def stated_score(score: int) -> object:
    return answer(json.dumps({"reasoning": "Read it.", "score": score, "confidence": 0.8}))


async def test_an_inline_rubric_is_scored_with_the_given_model_and_pass_score():
    spec = {"type": "rubric", "rubric": INLINE_RUBRIC}
    model = ScriptedModel(script=[stated_score(4)], capabilities=STATED)
    judge = judge_from_spec(spec, model=model)
    assert isinstance(judge, RubricJudge)
    assert judge.name == "rubric:clarity-check"
    assert (await judge.judge(REFUND)).status is Status.PASS
    strict = ScriptedModel(script=[stated_score(4)], capabilities=STATED)
    judgment = await judge_from_spec({**spec, "pass_score": 4.5}, model=strict).judge(REFUND)
    assert judgment.status is Status.FAIL
    assert model.calls == strict.calls == 1


def test_a_library_rubric_by_id_with_some_of_its_criteria(rubrics_path):
    judge = judge_from_spec({"type": "rubric", "rubric": "tone", "criteria": ["audience"]})
    assert isinstance(judge, RubricJudge)
    assert judge.name == "rubric:tone"
    assert [c.name for c in judge.rubric.criteria] == ["audience"]


def test_a_rubric_id_is_never_read_as_a_file(rubrics_path, tmp_path):
    # A valid rubric file: get_rubric() would load it; a spec must not reach the disk.
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump({**INLINE_RUBRIC, "id": "mine"}), "utf-8")
    error = spec_error({"type": "rubric", "rubric": str(path)})
    assert error.problems[0].path == "rubric"
    assert error.problems[0].message.startswith(f"no rubric with id {str(path)!r}")


# --- errors name the path inside the spec ---------------------------------------------

JURY_OF = {"type": "jury", "strategy": {"type": "majority"}}


@pytest.mark.parametrize(
    ("spec", "path", "message"),
    [
        ({"type": "verdict"}, "type", "unknown type 'verdict'; expected one of: 'schema'"),
        ({"judges": []}, "type", "required field is missing"),
        ([{"type": "json"}], "", "Input should be an object"),
        (
            {**JURY_OF, "judges": [{"type": "json"}, {"type": "jsn"}]},
            "judges[1].type",
            "unknown type 'jsn'",
        ),
        (
            {**JURY_OF, "judges": [{"type": "json", "colour": "red"}]},
            "judges[0].colour",
            "unknown field; type 'json' takes: description, name",
        ),
        (
            {"type": "jury", "judges": [{"type": "json"}], "strategy": {"type": "mojority"}},
            "strategy.type",
            "unknown type 'mojority'; expected one of: 'majority', 'consensus'",
        ),
        (
            {
                **CASCADE,
                "tiers": [{**CASCADE["tiers"][1], "strategy": {"type": "majority", "tie": "coin"}}],
            },
            "tiers[0].strategy.tie",
            "Input should be 'pass', 'fail' or 'abstain'",
        ),
        (
            {
                "type": "jury",
                "judges": [{"type": "json"}],
                "strategy": {"type": "average", "threshold": 2.0},
            },
            "strategy.threshold",
            "Input should be less than or equal to 1",
        ),
        ({"type": "criteria", "criteria": []}, "criteria", "List should have at least 1 item"),
        (
            {"type": "criteria", "criteria": ["Polite", ""]},
            "criteria[1]",
            "String should have at least 1 character",
        ),
        (
            {"type": "criterion", "criterion": "Polite", "threshold": 1.0},
            "threshold",
            "Input should be less than 1",
        ),
        (
            {"type": "contains", "keywords": ["refund", 30]},
            "keywords[1]",
            "Input should be a valid string",
        ),
        ({"type": "length", "max_words": True}, "max_words", "Input should be a valid integer"),
        (
            {"type": "schema", "schema": 3},
            "schema",
            "Input should be an object, or Input should be a valid boolean",
        ),
        (
            {"type": "rubric", "rubric": 3},
            "rubric",
            "must be a rubric id (a string) or an inline rubric",
        ),
        (
            {
                "type": "rubric",
                "rubric": {
                    **INLINE_RUBRIC,
                    "criteria": [{**INLINE_RUBRIC["criteria"][0], "anchors": {1: "bad"}}],
                },
            },
            "rubric.criteria[0].anchors",
            "needs an anchor for each score 1..5; missing [2, 3, 4, 5]",
        ),
        (
            {"type": "cascade", "tiers": [{"name": "only", "policy": "final"}]},
            "tiers[0]",
            "a tier takes either `judge` or `judges`",
        ),
        (
            {"type": "not", "judge": {"type": "all_of", "judges": [{"type": "regex"}]}},
            "judge.judges[0].pattern",
            "required field is missing",
        ),
    ],
)
def test_a_malformed_spec_names_the_path_and_the_problem(spec, path, message):
    error = spec_error(spec)
    first = error.problems[0]
    assert (first.path, first.message[: len(message)]) == (path, message)
    assert str(error).startswith(f"{path}: {message}" if path else message)


@pytest.mark.parametrize(
    ("spec", "path", "message"),
    [
        (
            {**JURY_OF, "judges": [{"type": "json"}, {"type": "rubric", "rubric": "nope"}]},
            "judges[1].rubric",
            "no rubric with id 'nope'; known ids: answer-quality, code, ",
        ),
        (
            {"type": "rubric", "rubric": "tone", "criteria": ["audience", "wit"]},
            "criteria[1]",
            "rubric 'tone' has no criterion 'wit'; it has ['professionalism', 'audience']",
        ),
        (
            {"type": "criteria", "criteria": ["Polite", "Polite"]},
            "criteria[1]",
            "criteria[1] repeats criteria[0]",
        ),
        (
            {"type": "length", "min_words": 9, "max_words": 3},
            "min_words",
            "min_words (9) must not exceed",
        ),
        ({"type": "length"}, "", "LengthJudge needs at least one of"),
        (
            {"type": "regex", "pattern": "(unclosed"},
            "pattern",
            "pattern '(unclosed' is not a valid regex",
        ),
        (
            {"type": "schema", "schema": {"type": "thing"}},
            "schema",
            "schema is not a valid JSON Schema",
        ),
        (
            {"type": "criterion", "criterion": "Polite", "template": "nope"},
            "template",
            "no prompt template named 'nope'",
        ),
        (
            {**JURY_OF, "judges": [{"type": "json"}, {"type": "json"}]},
            "judges[1].name",
            "'json' is already the name of judges[0]",
        ),
        (
            {**JURY_OF, "judges": [{"type": "json"}], "weights": {"jsn": 2.0}},
            "weights",
            "weights name judges not on the jury",
        ),
        (
            {**CASCADE, "tiers": [{**tier, "policy": "final"} for tier in CASCADE["tiers"]]},
            "tiers",
            "tier 'shape' is FINAL but not last",
        ),
        (
            {
                "type": "not",
                "judge": {
                    **CASCADE,
                    "tiers": [
                        CASCADE["tiers"][0],
                        {**CASCADE["tiers"][1], "judges": [{"type": "json"}, {"type": "json"}]},
                    ],
                },
            },
            "judge.tiers[1].judges[1].name",
            "'json' is already the name of judge.tiers[1].judges[0]",
        ),
    ],
)
def test_a_spec_that_cannot_be_built_names_the_path_and_the_problem(
    rubrics_path, spec, path, message
):
    parse_judge_spec(spec)  # well-formed: only building finds these
    error = spec_error(spec)
    assert len(error.problems) == 1
    assert (error.problems[0].path, error.problems[0].message[: len(message)]) == (path, message)
    assert str(error).startswith(f"{path}: {message}" if path else message)


def test_a_list_with_a_bad_item_is_not_also_reported_too_short():
    error = spec_error(
        {
            "type": "cascade",
            "tiers": [{"name": "only", "policy": "sometimes", "judge": {"type": "json"}}],
        }
    )
    assert [p.path for p in error.problems] == ["tiers[0].policy"]


def test_the_message_shows_the_first_problems_and_counts_the_rest():
    judges = [{"type": "json", "extra": n} for n in range(5)]
    error = spec_error({**JURY_OF, "judges": judges})
    assert len(error.problems) == 5
    assert str(error).endswith("; and 2 more")


# --- coverage and per-sentence checks -------------------------------------------------

ARTICLE = "The bridge closes on Monday. Repairs take 14 weeks. Buses use Oak Street."
SUMMARY = "The bridge closes on Monday. Repairs take 14 weeks."


def covered_or_not(request: Request):
    """The key facts when asked for them; then a verdict whose token carries P(supported):
    the summary covers the closure, not the buses."""
    if "claims" in (request.json_schema or {}).get("properties", {}):
        return answer(json.dumps({"claims": ["The bridge closes on Monday.", "Buses use Oak."]}))
    covered = request.messages[-1].content.rstrip().endswith("closes on Monday.")
    p, quote = (0.9, "The bridge closes on Monday.") if covered else (0.2, "")
    said = "supported" if covered else "not_mentioned"
    rest = (1.0 - p) / 2
    return with_logprobs(
        '{"verdict": "',
        (said, {"supported": p, "contradicted": rest, "not_mentioned": rest}),
        f'", "quote": {json.dumps(quote)}}}',
    )


def test_a_coverage_leaf_keeps_its_options_and_the_model():
    model = ScriptedModel()
    built = judge_from_spec(
        yaml.safe_load(
            "type: coverage\nname: keeps-facts\ndescription: key facts kept\n"
            "facts: 4\nmin_score: 0.6\n"
        ),
        model=model,
    )
    assert isinstance(built, CoverageJudge)
    assert (built.name, built.description) == ("keeps-facts", "key facts kept")
    assert (built.key_facts.extractor.max_claims, built.min_score) == (4, 0.6)
    assert built.key_facts.extractor.model.get() is model
    assert built.verifier.model.get() is model
    assert built.focus is None
    assert judge_from_spec({"type": "coverage"}, model=model).name == "coverage"
    off_topic = judge_from_spec(
        {"type": "coverage", "off_topic": True, "statements": "sentences"}, model=model
    )
    assert isinstance(off_topic, CoverageJudge)
    assert off_topic.focus is not None
    assert off_topic.focus.statements == "sentences"
    assert off_topic.focus.model.get() is model


def test_a_focus_leaf_keeps_its_options_and_the_model():
    model = ScriptedModel()
    built = judge_from_spec(
        yaml.safe_load(
            "type: focus\nname: on-point\nfacts: 5\nstatements: sentences\n"
            "threshold: 0.4\nmin_score: 0.7\n"
        ),
        model=model,
    )
    assert isinstance(built, FocusJudge)
    assert built.name == "on-point"
    assert built.key_facts.extractor.max_claims == 5
    assert (built.focus.statements, built.focus.threshold, built.min_score) == (
        "sentences",
        0.4,
        0.7,
    )
    assert built.focus.model.get() is model
    assert judge_from_spec({"type": "focus"}, model=model).name == "focus"


@pytest.mark.parametrize(("min_score", "expected"), [(0.5, Status.PASS), (0.6, Status.FAIL)])
async def test_a_coverage_leaf_scores_the_key_facts_the_output_keeps(min_score, expected):
    model = ScriptedModel(script=[covered_or_not] * 3, capabilities=LOGPROB_CAPABILITIES)
    judge = judge_from_spec({"type": "coverage", "facts": 2, "min_score": min_score}, model=model)
    judgment = await judge.judge(Context("Summarise.", output=SUMMARY, context=(ARTICLE,)))
    assert model.calls == 3  # the key facts, then one check each
    assert (judgment.metadata["key_facts"], judgment.metadata["covered_facts"]) == (2, 1)
    assert judgment.metadata["p_covered_mean"] == pytest.approx((0.9 + 0.2) / 2)
    assert judgment.status is expected


def test_a_sentences_leaf_keeps_its_options_and_the_model():
    model = ScriptedModel()
    built = judge_from_spec(
        yaml.safe_load(
            "type: sentences\nname: reads-well\ndescription: fluent\n"
            "dimensions: [coherence]\nthreshold: 4\nmax_sentences: 6\n"
        ),
        model=model,
    )
    assert isinstance(built, SentenceChecksJudge)
    assert (built.name, built.description) == ("reads-well", "fluent")
    assert (built.dimensions, built.threshold, built.max_sentences) == (("coherence",), 4.0, 6)
    assert built.model.get() is model
    default = judge_from_spec({"type": "sentences"}, model=model)
    assert isinstance(default, SentenceChecksJudge)
    assert (default.name, default.dimensions) == ("sentences", ("fluency", "coherence"))


def yes_at(p_yes: float):
    return with_logprobs('{"answer": "', ("yes", {"yes": p_yes, "no": 1 - p_yes}), '"}')


@pytest.mark.parametrize(("threshold", "expected"), [(4.0, Status.PASS), (4.5, Status.FAIL)])
async def test_a_sentences_leaf_asks_only_its_dimensions_of_the_first_sentences(
    threshold, expected
):
    model = ScriptedModel(script=[yes_at(0.8)] * 2, capabilities=LOGPROB_CAPABILITIES)
    spec = {
        "type": "sentences",
        "dimensions": ["coherence"],
        "threshold": threshold,
        "max_sentences": 2,
    }
    judgment = await judge_from_spec(spec, model=model).judge(Context("", output=ARTICLE))
    # Coherence of the first two of three sentences: an opening check and a follows check.
    assert model.calls == 2
    assert "fluency" not in judgment.metadata
    assert judgment.metadata["coherence"]["score"] == pytest.approx(1 + 4 * 0.8)
    assert judgment.status is expected


@pytest.mark.parametrize(
    ("spec", "path", "message"),
    [
        (
            {"type": "coverage", "passages": 3},
            "passages",
            "unknown field; type 'coverage' takes: description, facts, min_score, name, off_topic, "
            "quotes, statements",
        ),
        ({"type": "coverage", "facts": 0}, "facts", "Input should be greater than or equal to 1"),
        ({"type": "coverage", "facts": 2.5}, "facts", "Input should be a valid integer"),
        (
            {"type": "coverage", "min_score": 1.5},
            "min_score",
            "Input should be less than or equal to 1",
        ),
        (
            {"type": "sentences", "dimension": ["fluency"]},
            "dimension",
            "unknown field; type 'sentences' takes: description, dimensions, max_sentences, "
            "name, threshold",
        ),
        (
            {"type": "sentences", "dimensions": ["fluency", "grammar"]},
            "dimensions[1]",
            "Input should be 'fluency' or 'coherence'",
        ),
        (
            {"type": "sentences", "dimensions": []},
            "dimensions",
            "name at least one dimension: fluency, coherence",
        ),
        (
            {"type": "sentences", "dimensions": ["coherence", "fluency", "coherence"]},
            "dimensions",
            "dimensions[2] repeats dimensions[0] ('coherence')",
        ),
        ({"type": "sentences", "dimensions": "fluency"}, "dimensions", "Input should be a list"),
        (
            {"type": "sentences", "threshold": 0.5},
            "threshold",
            "Input should be greater than or equal to 1",
        ),
        (
            {"type": "coverage", "off_topic": "yes"},
            "off_topic",
            "Input should be a valid boolean",
        ),
        (
            {"type": "focus", "statements": "paragraphs"},
            "statements",
            "Input should be 'claims' or 'sentences'",
        ),
        (
            {"type": "focus", "threshold": 1},
            "threshold",
            "Input should be less than 1",
        ),
        (
            {"type": "sentences", "threshold": 5.5},
            "threshold",
            "Input should be less than or equal to 5",
        ),
        (
            {"type": "sentences", "max_sentences": 0},
            "max_sentences",
            "Input should be greater than or equal to 1",
        ),
        (
            {**JURY_OF, "judges": [{"type": "json"}, {"type": "sentences", "threshold": 9}]},
            "judges[1].threshold",
            "Input should be less than or equal to 5",
        ),
    ],
)
def test_a_malformed_coverage_or_sentences_leaf_names_the_path(spec, path, message):
    error = spec_error(spec, model="test:unused")
    assert [(p.path, p.message) for p in error.problems] == [(path, message)]


def test_the_schema_describes_the_sentence_dimensions():
    dimensions = judge_spec_schema()["$defs"]["SentencesSpec"]["properties"]["dimensions"]
    assert dimensions["items"]["enum"] == ["fluency", "coherence"]
    assert (dimensions["minItems"], dimensions["uniqueItems"]) == (1, True)


# --- files, schema, request bodies ----------------------------------------------------


async def test_a_yaml_file_round_trip(tmp_path):
    path = tmp_path / "gate.yaml"
    path.write_text(yaml.safe_dump(CASCADE, sort_keys=False), "utf-8")
    spec = load_judge_spec(path)
    assert (await judge_from_spec(spec).judge(REFUND)).status is Status.PASS
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump(spec.model_dump(mode="json")), "utf-8")
    assert load_judge_spec(again) == spec
    as_json = tmp_path / "gate.json"
    as_json.write_text(json.dumps(spec.model_dump(mode="json")), "utf-8")
    assert load_judge_spec(as_json) == spec


def test_a_schema_leaf_keeps_its_wire_name_in_a_round_trip():
    spec = parse_judge_spec({"type": "schema", "schema": {"type": "object"}})
    assert spec.model_dump()["schema"] == {"type": "object"}
    assert parse_judge_spec(spec.model_dump()) == spec


def test_file_problems_name_the_file(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("type: json\nname: [unclosed\n", "utf-8")
    with pytest.raises(JudgeSpecError, match=r"broken.yaml: not valid YAML at line \d+ column \d+"):
        load_judge_spec(broken)
    invalid = tmp_path / "invalid.yaml"
    invalid.write_text("type: jury\njudges: [{type: json}]\nstrategy: {type: vote}\n", "utf-8")
    with pytest.raises(JudgeSpecError, match=r"invalid.yaml: strategy.type: unknown type 'vote'"):
        load_judge_spec(invalid)
    empty = tmp_path / "empty.yaml"
    empty.write_text("", "utf-8")
    with pytest.raises(JudgeSpecError, match=r"empty\.yaml: the file holds no spec"):
        load_judge_spec(empty)
    with pytest.raises(JudgeSpecError, match=r"missing\.yaml: cannot be read"):
        load_judge_spec(tmp_path / "missing.yaml")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"type": "json",}', "utf-8")
    with pytest.raises(JudgeSpecError, match=r"bad.json: not valid JSON at line 1 column \d+"):
        load_judge_spec(bad_json)


def test_the_module_docstring_example_builds(rubrics_path):
    example = spec_module.__doc__.split("```yaml\n", 1)[1].split("```", 1)[0]
    built = judge_from_spec(yaml.safe_load(example), model="test:unused")
    assert isinstance(built, Cascade)
    assert [tier.name for tier in built.tiers] == ["shape", "panel"]


def test_the_json_schema_lists_every_type_and_requires_it():
    schema = judge_spec_schema()
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(registry) - {
        "majority",
        "consensus",
        "average",
        "weighted_average",
        "median",
    }
    for name, definition in schema["$defs"].items():
        if "type" in definition.get("properties", {}):
            assert "type" in definition["required"], name
    assert schema["$defs"]["SchemaSpec"]["required"] == ["type", "schema"]


def test_a_judge_spec_is_a_fastapi_request_body_field():
    class Body(BaseModel):
        judge: JudgeSpec

    app = FastAPI()

    @app.post("/judge")
    def judge(body: Body) -> dict[str, str]:
        return {"name": judge_name(judge_from_spec(body.judge))}

    client = TestClient(app)
    ok = client.post("/judge", json={"judge": {**JURY_OF, "judges": [{"type": "json"}]}})
    assert ok.json() == {"name": "jury(json)"}
    sent = {**JURY_OF, "judges": [{"type": "jsn"}]}
    refused = client.post("/judge", json={"judge": sent})
    assert refused.status_code == 422
    errors = [{**e, "loc": tuple(e["loc"][2:])} for e in refused.json()["detail"]]
    assert JudgeSpecError.from_errors(errors, sent).problems[0].path == "judges[0].type"
    assert "JurySpec" in app.openapi()["components"]["schemas"]


# --- the spec's defaults are the judges' ----------------------------------------------


@pytest.mark.parametrize(
    ("kind", "cls"),
    [
        ("schema", SchemaJudge),
        ("contains", ContainsJudge),
        ("regex", RegexJudge),
        ("length", LengthJudge),
        ("criterion", CriterionJudge),
        ("criteria", CriteriaJudge),
        ("rubric", RubricJudge),
        ("pairwise", PairwiseJudge),
        ("hallucination", HallucinationJudge),
        ("faithfulness", FaithfulnessJudge),
        ("answer_relevance", AnswerRelevanceJudge),
        ("context_relevance", ContextRelevanceJudge),
        ("coverage", CoverageJudge),
        ("sentences", SentenceChecksJudge),
    ],
)
def test_spec_defaults_match_the_constructors(kind, cls):
    model = registry[kind].spec
    parameters = dict(inspect.signature(cls.__init__).parameters)
    for base in cls.__mro__[1:]:
        if "options" in parameters and "__init__" in vars(base):
            parameters |= inspect.signature(base.__init__).parameters  # **options
    for name, field in model.model_fields.items():
        wire = field.alias or name
        # A spec leaves these unset to mean "the judge's own choice".
        if wire in ("type", "template", "rubric", "criteria", "examples", "pass_score", "flags"):
            continue
        if field.is_required() or wire not in parameters:
            continue
        default = parameters[wire].default
        assert field.default == default, f"{kind}.{wire}: {field.default!r} != {default!r}"
