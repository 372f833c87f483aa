"""Judge variants and the tournament: the techniques, model rewordings, the variants file,
ranking against labels, consistency under sampling, peer agreement, errors, saved winners."""

import asyncio
import json
import re
from dataclasses import dataclass, field

import pytest
import yaml

from jurist.autonomy._tournament import (
    Fitness,
    TournamentResult,
    case_context,
    load_ground_truth,
    run_tournament,
    save_winners,
    winner_spec,
)
from jurist.autonomy._variants import (
    JudgeVariant,
    Technique,
    VariantError,
    generate_variants,
    load_variants,
    save_variants,
    seed_variants,
    technique_variant,
)
from jurist.core import Context, Status
from jurist.data import BinaryItem
from jurist.judges import CriterionJudge
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.runner import resolve_judge
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

REFUND = "The answer states the refund window"
CASE = re.compile(r"Output of case (\w+)\.")


def verdict(p_yes: float) -> Response:
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs(
        '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '", "reason": "scripted"}'
    )


def case(case_id: str, label: bool, **extra) -> BinaryItem:
    return BinaryItem(
        id=case_id, context="", output=f"Output of case {case_id}.", label=label, metadata=extra
    )


# Two acceptable outputs, two unacceptable ones.
CASES = [case("c1", True), case("c2", True), case("c3", False), case("c4", False)]


def criterion_of(request: Request) -> str:
    return request.messages[-1].content.rstrip().rsplit("Criterion: ", 1)[1]


@dataclass
class Panel:
    """Answers a criterion call with P(yes) by criterion and case. A sampled call (seed
    above 0) answers the opposite where `flips` lists its (case, seed); a call for a case
    in `failing` raises a server error."""

    p_yes: dict[str, dict[str, float]]
    flips: dict[str, set[tuple[str, int]]] = field(default_factory=dict)
    failing: dict[str, set[str]] = field(default_factory=dict)

    def __call__(self, request: Request) -> Response:
        criterion = criterion_of(request)
        found = CASE.search(request.messages[-1].content)
        assert found is not None, "the prompt shows no case output"
        case_id = found.group(1)
        if case_id in self.failing.get(criterion, set()):
            raise ModelError(ErrorKind.SERVER_ERROR, "scripted outage", model="test:judge")
        p = self.p_yes[criterion][case_id]
        if (case_id, request.seed) in self.flips.get(criterion, set()):
            p = 1.0 - p
        return verdict(p)


def panel_model(panel: Panel, calls: int = 500) -> ScriptedModel:
    return ScriptedModel("test:judge", [panel] * calls, capabilities=LOGPROB_CAPABILITIES)


def custom(variant_id: str, criterion: str | None = None, **fields) -> JudgeVariant:
    return JudgeVariant(
        id=variant_id, technique=Technique.CUSTOM, criterion=criterion or variant_id, **fields
    )


def answers(*yes: bool) -> dict[str, float]:
    """P(yes) per case c1..c4: 0.9 for a yes, 0.1 for a no."""
    return {f"c{i}": 0.9 if said else 0.1 for i, said in enumerate(yes, start=1)}


# --- the tournament ---------------------------------------------------------------------


async def test_the_variant_that_matches_the_labels_ranks_first():
    panel = Panel(
        {
            "right": answers(True, True, False, False),
            "lenient": answers(True, True, True, True),
            "wrong": answers(False, False, True, True),
        }
    )
    model = panel_model(panel)
    variants = [custom("lenient"), custom("wrong"), custom("right")]
    result = await run_tournament(variants, CASES, model, samples=2, temperature=0.7)

    assert [row.variant.id for row in result.rows] == ["right", "lenient", "wrong"]
    assert [row.rank for row in result.rows] == [1, 2, 3]
    assert result.winners(1) == [variants[2]]
    best = result.standing("right")
    assert (best.accuracy, best.balanced_accuracy, best.kappa, best.auc) == (1.0, 1.0, 1.0, 1.0)
    assert best.verdicts == {"c1": True, "c2": True, "c3": False, "c4": False}
    assert best.p_yes["c1"] == pytest.approx(0.9)
    assert result.standing("lenient").balanced_accuracy == 0.5
    assert result.standing("wrong").balanced_accuracy == 0.0
    assert result.standing("wrong").kappa == pytest.approx(-1.0)
    # Hand-checked: 0.6 x balanced accuracy + 0.2 x consistency + 0.2 x peer agreement, with
    # peer agreements right 0.25 (0.5 with lenient, 0 with wrong), lenient 0.5, wrong 0.25.
    assert best.fitness == pytest.approx(0.6 + 0.2 + 0.05)
    assert result.standing("lenient").fitness == pytest.approx(0.3 + 0.2 + 0.1)
    assert result.standing("wrong").fitness == pytest.approx(0.2 + 0.05)
    assert result.ground_truth_metric == "balanced_accuracy"
    assert result.scored == ("ground_truth", "consistency", "peer_agreement")

    # Once at the defaults and twice sampled, per variant and case, all through the model.
    assert model.calls == 3 * 4 * 3
    assert best.calls == 12
    assert best.errors == 0
    assert best.input_tokens == 12 * 10
    defaults = [r for r in model.requests if r.seed == 0]
    sampled = [r for r in model.requests if r.seed != 0]
    assert len(defaults) == 12
    assert {r.temperature for r in defaults} == {0.0}
    assert {(r.seed, r.temperature) for r in sampled} == {(1, 0.7), (2, 0.7)}


async def test_consistency_drops_for_a_variant_whose_sampled_answers_flip():
    same = answers(True, True, False, False)
    # flaky changes its mind on c1 in the second sample only and on c3 in both: 2 of the
    # 4 cases are not kept; a case counts as kept only if every sample keeps it.
    panel = Panel(
        {"steady": same, "flaky": same},
        flips={"flaky": {("c1", 2), ("c3", 1), ("c3", 2)}},
    )
    result = await run_tournament(
        [custom("flaky"), custom("steady")], CASES, panel_model(panel), samples=2
    )
    assert result.standing("steady").consistency == 1.0
    assert result.standing("flaky").consistency == 0.5
    # The default verdicts are the same, so only consistency tells them apart.
    assert result.standing("flaky").balanced_accuracy == 1.0
    assert result.standing("flaky").peer_agreement == 1.0
    assert [row.variant.id for row in result.rows] == ["steady", "flaky"]
    assert result.standing("flaky").fitness == pytest.approx(0.6 + 0.1 + 0.2)


async def test_peer_agreement_and_kappa_on_a_hand_checked_example():
    panel = Panel(
        {
            "a": answers(True, True, False, False),
            "b": answers(True, False, False, False),
            "c": answers(False, False, True, True),
        }
    )
    variants = [custom("a"), custom("b"), custom("c")]
    result = await run_tournament(variants, CASES, panel_model(panel), samples=0)

    pairs = {(p.first, p.second): p for p in result.pairs}
    assert list(pairs) == [("a", "b"), ("a", "c"), ("b", "c")]
    # a-b agree on c1, c3, c4; kappa (0.75 - 0.5) / (1 - 0.5).
    assert (pairs["a", "b"].cases, pairs["a", "b"].agreement) == (4, 0.75)
    assert pairs["a", "b"].kappa == pytest.approx(0.5)
    # a-c agree nowhere; kappa (0 - 0.5) / 0.5.
    assert pairs["a", "c"].agreement == 0.0
    assert pairs["a", "c"].kappa == pytest.approx(-1.0)
    # b-c agree on c2 only; chance agreement 0.25 x 0.5 + 0.75 x 0.5 = 0.5.
    assert pairs["b", "c"].agreement == 0.25
    assert pairs["b", "c"].kappa == pytest.approx(-0.5)

    assert result.standing("a").peer_agreement == pytest.approx(0.375)
    assert result.standing("b").peer_agreement == pytest.approx(0.5)
    assert result.standing("c").peer_agreement == pytest.approx(0.125)
    assert result.standing("a").peer_kappa == pytest.approx(-0.25)
    assert result.standing("b").peer_kappa == pytest.approx(0.0)
    assert result.standing("c").peer_kappa == pytest.approx(-0.75)

    # No samples: consistency is undefined for all, so it is left out and the weights
    # rescaled: (0.6 x balanced accuracy + 0.2 x peer agreement) / 0.8.
    assert result.scored == ("ground_truth", "peer_agreement")
    assert result.standing("a").consistency is None
    assert result.standing("a").fitness == pytest.approx((0.6 * 1.0 + 0.2 * 0.375) / 0.8)
    assert result.standing("b").balanced_accuracy == pytest.approx(0.75)
    assert result.standing("b").fitness == pytest.approx((0.6 * 0.75 + 0.2 * 0.5) / 0.8)
    assert [row.variant.id for row in result.rows] == ["a", "b", "c"]


async def test_errors_are_no_votes_they_are_counted_and_left_out():
    same = answers(True, True, False, False)
    panel = Panel({"sound": same, "shaky": same}, failing={"shaky": {"c2"}})
    result = await run_tournament(
        [custom("shaky"), custom("sound")], CASES, panel_model(panel), samples=2
    )
    shaky = result.standing("shaky")
    assert shaky.errors == 3  # c2 at the defaults and in both samples
    assert shaky.calls == 12
    assert shaky.judged == 3
    assert shaky.verdicts["c2"] is None
    assert shaky.p_yes["c2"] is None
    # Out of the statistics, not a wrong answer: the three judged cases are all right.
    assert shaky.accuracy == 1.0
    assert shaky.balanced_accuracy == 1.0
    assert shaky.consistency == 1.0
    (pair,) = result.pairs
    assert (pair.cases, pair.agreement) == (3, 1.0)
    # Equal fitness; fewer errors wins the tie.
    assert shaky.fitness == pytest.approx(result.standing("sound").fitness)
    assert [row.variant.id for row in result.rows] == ["sound", "shaky"]
    assert "| 2 | shaky |" in result.to_markdown()


async def test_a_variant_that_errors_on_every_case_ranks_last_with_no_statistics():
    panel = Panel(
        {"dead": answers(True, True, False, False), "alive": answers(True, True, True, True)},
        failing={"dead": {"c1", "c2", "c3", "c4"}},
    )
    result = await run_tournament(
        [custom("dead"), custom("alive")], CASES, panel_model(panel), samples=1
    )
    dead = result.standing("dead")
    assert (dead.judged, dead.errors) == (0, 8)
    assert (dead.accuracy, dead.balanced_accuracy, dead.auc, dead.consistency) == (None,) * 4
    assert dead.fitness == 0.0
    assert result.rows[-1].variant.id == "dead"


async def test_one_label_only_ranks_by_accuracy():
    cases = [case("c1", True), case("c2", True)]
    panel = Panel({"good": {"c1": 0.9, "c2": 0.9}, "bad": {"c1": 0.9, "c2": 0.1}})
    result = await run_tournament(
        [custom("bad"), custom("good")], cases, panel_model(panel), samples=0
    )
    assert result.ground_truth_metric == "accuracy"
    assert result.standing("bad").balanced_accuracy is None
    assert [row.variant.id for row in result.rows] == ["good", "bad"]


async def test_calls_stay_within_the_concurrency_bound():
    async def slow(request: Request) -> Response:
        for _ in range(5):
            await asyncio.sleep(0)  # yields, so other calls start if they may
        return verdict(0.9)

    model = ScriptedModel("test:judge", [slow] * 40, capabilities=LOGPROB_CAPABILITIES)
    await run_tournament([custom("a"), custom("b")], CASES, model, samples=1, concurrency=3)
    assert model.calls == 16
    assert model.max_in_flight == 3


async def test_result_as_dict_and_markdown():
    panel = Panel({"a": answers(True, True, False, False), "b": answers(True, True, True, True)})
    result = await run_tournament([custom("a"), custom("b")], CASES, panel_model(panel), samples=1)
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert TournamentResult.model_validate(data) == result
    assert data["rows"][0]["variant"]["id"] == "a"
    text = result.to_markdown()
    assert "0.6 x balanced accuracy + 0.2 x consistency + 0.2 x peer agreement" in text
    assert text.index("| 1 | a |") < text.index("| 2 | b |")
    assert "| a vs b | 4 | 0.50 |" in text


async def test_custom_fitness_weights_change_the_ranking():
    # "agreeable" matches the labels worse but agrees with the crowd.
    panel = Panel(
        {
            "loner": answers(True, True, False, False),
            "agreeable": answers(True, True, True, True),
            "crowd": answers(True, True, True, True),
        }
    )
    variants = [custom("loner"), custom("agreeable"), custom("crowd")]
    by_labels = await run_tournament(variants, CASES, panel_model(panel), samples=0)
    assert by_labels.rows[0].variant.id == "loner"
    by_peers = await run_tournament(
        variants,
        CASES,
        panel_model(panel),
        samples=0,
        fitness=Fitness(ground_truth=0.0, consistency=0.0, peer_agreement=1.0),
    )
    assert by_peers.rows[0].variant.id == "agreeable"  # ties with crowd, first given
    assert by_peers.scored == ("peer_agreement",)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"variants": []}, "variants: no variants"),
        ({"variants": [custom("a"), custom("a", "other")]}, r"variants\[1\].id: 'a' is already"),
        ({"cases": []}, "cases: no cases"),
        ({"cases": [case("c1", True), case("c1", False)]}, r"cases\[1\].id: 'c1' is already"),
        ({"samples": -1}, "samples: -1 is not a whole number >= 0"),
        ({"concurrency": 0}, "concurrency: 0 is not a whole number >= 1"),
        ({"temperature": 0.0}, r"temperature: 0.0 must lie in \(0, 2\]"),
        ({"variants": [custom("a", template="missing/t.j2")]}, r"variants\[0\].template: "),
    ],
)
async def test_bad_tournament_arguments_name_the_argument(arguments, message):
    given = {"variants": [custom("a")], "cases": CASES, "samples": 1} | arguments
    model = panel_model(Panel({}))
    with pytest.raises(ValueError, match=message):
        await run_tournament(given.pop("variants"), given.pop("cases"), model, **given)
    assert model.calls == 0


def test_fitness_weights_are_checked():
    with pytest.raises(ValueError, match=r"consistency: -0\.1 is not a finite weight"):
        Fitness(consistency=-0.1)
    with pytest.raises(ValueError, match="all 0"):
        Fitness(ground_truth=0.0, consistency=0.0, peer_agreement=0.0)


# --- cases ------------------------------------------------------------------------------


def test_cases_load_from_a_binary_dataset_with_a_goal(tmp_path):
    path = tmp_path / "cases.jsonl"
    rows = [
        {
            "id": "1",
            "context": "Refunds within 30 days.",
            "output": "30 days.",
            "label": "yes",
            "goal": "What is the refund window?",
        },
        {"id": "2", "context": "", "output": "No idea.", "label": False},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    first, second = load_ground_truth(path)
    assert case_context(first) == Context(
        "What is the refund window?", output="30 days.", context=("Refunds within 30 days.",)
    )
    assert case_context(second) == Context("", output="No idea.")


# --- variants ---------------------------------------------------------------------------


def test_the_deterministic_techniques():
    plain = technique_variant(f"  {REFUND}.  ", "plain")
    assert (plain.id, plain.criterion, plain.reason_first, plain.template) == (
        "plain",
        f"{REFUND}.",
        False,
        None,
    )
    assert technique_variant(REFUND, "reason_first").reason_first is True
    assert technique_variant(REFUND, "explicit").criterion == (
        "Answer yes only if the answer states the refund window; otherwise answer no."
    )
    assert technique_variant("JSON output is valid.", "explicit").criterion == (
        "Answer yes only if JSON output is valid; otherwise answer no."
    )
    assert technique_variant("Is the answer polite?", "explicit").criterion == (
        "Is the answer polite? Answer yes only if it clearly does; otherwise answer no."
    )
    assert technique_variant(REFUND, "checklist").criterion == (
        f"{REFUND}. Check each part of this criterion on its own, and answer yes only if "
        "every part holds."
    )
    strict = technique_variant(REFUND, "strict")
    assert (strict.criterion, strict.template) == (REFUND, "autonomy_variant_strict")
    with pytest.raises(ValueError, match="technique: 'reworded' is not deterministic"):
        technique_variant(REFUND, "reworded")
    with pytest.raises(ValueError, match="blank"):
        technique_variant("   ", "plain")


async def test_the_strict_template_asks_for_violations_and_keeps_the_answer_format():
    model = ScriptedModel("test:judge", [verdict(0.2)], capabilities=LOGPROB_CAPABILITIES)
    judge = technique_variant(REFUND, "strict").build(model)
    assert isinstance(judge, CriterionJudge)
    assert judge.name == "strict"
    result = await judge.judge(Context("q", output="Output of case c1."))
    assert result.status is Status.FAIL
    assert result.metadata["template"] == "autonomy_variant_strict"
    prompt = model.requests[0].messages[-1].content
    assert "violation" in prompt
    assert prompt.rstrip().endswith(f"Criterion: {REFUND}")
    assert list(model.requests[0].json_schema["properties"]) == ["answer", "reason"]


async def test_seed_variants_takes_the_techniques_in_order_then_rewordings():
    three = await seed_variants(REFUND, n=3)
    assert [v.id for v in three] == ["plain", "reason_first", "explicit"]
    with pytest.raises(ValueError, match="n: 7 variants need a model"):
        await seed_variants(REFUND, n=7)
    model = ScriptedModel(
        "test:writer", [answer(json.dumps({"rewordings": ["Says the window.", "Names it."]}))]
    )
    seven = await seed_variants(REFUND, n=7, model=model)
    assert [v.id for v in seven] == [
        "plain",
        "reason_first",
        "explicit",
        "checklist",
        "strict",
        "reworded-1",
        "reworded-2",
    ]
    schema = model.requests[0].json_schema
    assert schema["properties"]["rewordings"]["maxItems"] == 2


async def test_generated_rewordings_drop_repeats_and_the_criterion_itself():
    reply = {
        "rewordings": [
            "  The reply gives the   refund window. ",
            REFUND.upper(),
            "the reply gives the refund window.",
            "",
            "It names the window.",
        ]
    }
    model = ScriptedModel("test:writer", [answer(json.dumps(reply))])
    variants = await generate_variants(REFUND, 4, model)
    assert [(v.id, v.technique, v.criterion) for v in variants] == [
        ("reworded-1", Technique.REWORDED, "The reply gives the refund window."),
        ("reworded-2", Technique.REWORDED, "It names the window."),
    ]
    assert variants[0].notes == "a rewording by test:writer"
    prompt = model.requests[0].messages[-1].content
    assert REFUND in prompt
    assert "4 different rewordings" in prompt


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("not json at all", "rewordings from test:writer: "),
        (json.dumps({"claims": []}), 'no "rewordings" array'),
        (json.dumps({"rewordings": ["ok", 3]}), r"rewordings\[1\] is a int, not text"),
    ],
)
async def test_unreadable_rewordings_are_a_variant_error(reply, message):
    model = ScriptedModel("test:writer", [answer(reply)])
    with pytest.raises(VariantError, match=message):
        await generate_variants(REFUND, 2, model)


async def test_a_model_failure_while_rewording_is_raised():
    model = ScriptedModel("test:writer", [ModelError(ErrorKind.TIMEOUT, "slow")])
    with pytest.raises(ModelError):
        await generate_variants(REFUND, 2, model)


async def test_the_variants_file_round_trips(tmp_path):
    variants = await seed_variants(REFUND) + [
        custom("mine", "Mentions 30 days", template=str(tmp_path / "mine.j2"), notes="by hand")
    ]
    path = save_variants(variants, tmp_path / "out" / "variants.yaml")
    assert load_variants(path) == variants
    data = yaml.safe_load(path.read_text())
    assert data[0] == {"id": "plain", "technique": "plain", "criterion": REFUND}
    assert data[1]["reason_first"] is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "- {id: a, technique: plain, criterion: ok}\n"
            "- {id: b, technique: plain, criterion: '  '}",
            r"variants\[1\].criterion: blank",
        ),
        ("- {id: a, technique: plain}", r"variants\[0\].criterion: required field is missing"),
        (
            "- {id: a, technique: plain, criterion: x, colour: red}",
            r"variants\[0\].colour: unknown field; a variant takes: id, technique",
        ),
        ("- {id: a, technique: magic, criterion: x}", r"variants\[0\].technique: Input should be"),
        (
            "- {id: a, technique: plain, criterion: x, reason_first: 'yes'}",
            r"variants\[0\].reason_first: ",
        ),
        ("- {id: 'a b', technique: plain, criterion: x}", r"variants\[0\].id: 'a b' is not an id"),
        (
            "- {id: a, technique: plain, criterion: x}\n- {id: a, technique: plain, criterion: y}",
            r"variants\[1\].id: 'a' is already the id of variants\[0\]",
        ),
        ("- just text", r"variants\[0\]: expected an object, got str"),
        ("id: a", "variants: expected a list of variants, got a dict"),
        ("[]", "variants: the list is empty"),
        ("", "variants: expected a list of variants, got nothing"),
        ("- [unclosed", "not valid YAML at line"),
    ],
)
def test_a_bad_variants_file_names_the_entry_and_field(tmp_path, text, message):
    path = tmp_path / "variants.yaml"
    path.write_text(text)
    with pytest.raises(VariantError, match=message) as caught:
        load_variants(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_every_problem_of_a_variants_file_is_kept(tmp_path):
    path = tmp_path / "variants.yaml"
    path.write_text("- {id: a}\n- {id: b, technique: plain, criterion: ''}\n")
    with pytest.raises(VariantError) as caught:
        load_variants(path)
    assert caught.value.problems == (
        "variants[0].technique: required field is missing",
        "variants[0].criterion: required field is missing",
        "variants[1].criterion: blank: a variant needs a criterion for its judge to ask",
    )


def test_a_missing_variants_file(tmp_path):
    with pytest.raises(VariantError, match="cannot be read"):
        load_variants(tmp_path / "nope.yaml")


# --- saving winners ---------------------------------------------------------------------


async def test_saved_winners_load_as_the_same_judges(tmp_path):
    variants = await seed_variants(REFUND)
    labels_right = answers(True, True, False, False)
    panel = Panel({v.criterion: labels_right for v in variants})
    # Every technique answers alike but "explicit", wrong on c1, which ranks it last.
    panel.p_yes["Answer yes only if the answer states the refund window; otherwise answer no."] = (
        answers(False, True, False, False)
    )
    result = await run_tournament(variants, CASES, panel_model(panel), samples=0)
    assert result.rows[-1].variant.id == "explicit"

    written = save_winners(result, tmp_path / "winners", k=5)
    winners = result.winners(5)
    assert [p.name for p in written] == [f"{v.id}.judge.yaml" for v in winners] + ["variants.yaml"]
    assert load_variants(written[-1]) == winners

    ctx = Context("What is the refund window?", output="Output of case c1.")
    for variant, path in zip(winners, written[:-1], strict=True):
        choice = resolve_judge(str(path))
        assert isinstance(choice.judge, CriterionJudge)
        assert choice.judge.name == variant.id
        # The judge from the file asks the model exactly what the variant's own judge asks.
        from_file = ScriptedModel("test:judge", [verdict(0.9)], capabilities=LOGPROB_CAPABILITIES)
        direct = ScriptedModel("test:judge", [verdict(0.9)], capabilities=LOGPROB_CAPABILITIES)
        await resolve_judge(str(path), model=from_file).judge.judge(ctx)
        await variant.build(direct).judge(ctx)
        assert from_file.requests == direct.requests
        assert path.read_text().startswith(f"# Judge variant {variant.id}: rank ")


def test_a_winner_with_a_template_file_says_the_spec_cannot_carry_it(tmp_path):
    variant = custom("mine", "Mentions 30 days", template=str(tmp_path / "t.j2"), reason_first=True)
    spec = winner_spec(variant)
    assert "template" not in spec
    assert spec["reason_first"] is True
    assert "cannot be named in a spec" in spec["description"]
