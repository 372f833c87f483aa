"""Acceptance criteria a program decides: the recognised shapes, what each decides, that no
model is asked for them, and that the rest still goes to the model."""

import pytest

from jurist.core import BooleanScore, Context, Status
from jurist.judges import CriteriaJudge, CriteriaReport, CriterionJudge, CriterionReport
from jurist.judges._criterion_checks import exact_verdict
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, with_logprobs

TEXT = "# Returns\n\nYou can return items within 30 days.\n\n- receipt\n- box\n- label\n"


@pytest.mark.parametrize(
    ("criterion", "met"),
    [
        ("The answer is at most 20 words long.", True),
        ("The answer is at most 5 words long", False),
        ("The output has fewer than 10 words.", False),
        ("The output is 20 words or fewer.", True),
        ("The answer has at least twelve words.", True),
        ("The output is at most 40 characters long.", False),
        ("The response is under 200 characters.", True),
        ('The answer mentions "30 days".', True),
        ('The answer mentions "refund".', False),
        ("The answer mentions the word 'Receipt'.", True),
        ('The answer does not mention "refund".', True),
        ('The answer does not mention "box".', False),
        ("The answer mentions refunds.", None),
        ("The answer mentions returns.", True),
        ("The output starts with a Markdown heading.", True),
        ("The output starts with a heading.", True),
        ("The output gives at least 3 items as a list.", True),
        ("The output gives at least four items as a bulleted list.", False),
        ("The output contains a list.", True),
        ("The output states a number.", True),
        ("The output contains a number written in digits.", True),
        ("The output states a percentage.", False),
        ("The output is valid JSON.", False),
        # Not a whole recognised shape: the model decides.
        ("The answer states a time limit for returns", None),
        ("The answer is at most 20 words long and polite.", None),
        ("The answer is polite", None),
    ],
)
def test_recognised_shapes_are_decided_by_the_program(criterion, met):
    found = exact_verdict(criterion, TEXT)
    assert (found.met if found is not None else None) is met


def test_the_one_sided_shapes_leave_the_unsure_side_to_the_model():
    plain = "Returns\nYou can return items within a month."
    assert exact_verdict("The output starts with a heading.", plain) is None
    assert exact_verdict("The output starts with a Markdown heading.", plain).met is False
    assert exact_verdict("The output states a number.", "It is one of the reasons.") is None
    assert exact_verdict("The output states a number.", "It rained.").met is False
    assert exact_verdict("The output states a number.", "It took three days.").met is True
    assert exact_verdict("The output states a percentage.", "Rates rose by a percent.") is None
    assert exact_verdict("The output states a percentage.", "Rates rose 4.5 %.").met is True
    # Words are whole words: "2000" is not in "20000", "art" not in "party".
    assert exact_verdict('The output mentions "art".', "A party.").met is False
    assert exact_verdict('The output mentions "2000".', "Some 20000 people.").met is False


def test_json_is_the_whole_output_and_the_kind_asked():
    assert exact_verdict("The output is valid JSON.", ' {"a": [1, 2]} \n').met is True
    assert exact_verdict("The output is valid JSON.", '```json\n{"a": 1}\n```').met is False
    assert exact_verdict("The output is a valid JSON object.", "[1, 2]").met is False
    assert exact_verdict("The output is valid JSON array.", "[1, 2]").met is True


async def test_a_decided_criterion_asks_no_model_and_says_it_was_decided_exactly():
    model = ScriptedModel("test:judge", [], capabilities=LOGPROB_CAPABILITIES)
    result = await CriterionJudge("The answer is at most 5 words long.", model).judge(
        Context("Explain returns.", output=TEXT)
    )
    assert model.calls == 0
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert result.confidence == 1.0
    assert result.reasoning.startswith("decided exactly")
    verdict = CriterionReport.of(result)
    assert verdict is not None
    assert verdict.exact == "15 words; the limit is 5"
    assert verdict.method == "exact"
    assert verdict.p_yes == 0.0
    assert verdict.answer == "no"


def _verdict(p_yes: float):
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs(
        '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '", "reason": "r"}'
    )


async def test_exact_false_asks_the_model_even_for_a_recognised_shape():
    model = ScriptedModel("test:judge", [_verdict(0.9)], capabilities=LOGPROB_CAPABILITIES)
    judge = CriterionJudge("The answer is at most 5 words long.", model, exact=False)
    result = await judge.judge(Context("Explain returns.", output=TEXT))
    assert model.calls == 1
    assert result.status is Status.PASS
    assert CriterionReport.of(result).exact is None


@pytest.mark.parametrize("together", [False, True])
async def test_criteria_ask_the_model_only_what_the_program_cannot_decide(together):
    if together:
        answer = with_logprobs(
            '{"verdicts": [{"criterion": 1, "answer": "',
            ("yes", {"yes": 0.8, "no": 0.2}),
            '", "reason": "polite"}]}',
        )
    else:
        answer = _verdict(0.8)
    model = ScriptedModel("test:judge", [answer], capabilities=LOGPROB_CAPABILITIES)
    criteria = [
        "The answer is polite",
        'The answer mentions "30 days".',
        "The output is valid JSON.",
    ]
    result = await CriteriaJudge(criteria, model, together=together).judge(
        Context("Explain returns.", output=TEXT)
    )
    assert model.calls == 1
    prompt = model.requests[0].messages[-1].content
    assert "polite" in prompt
    assert "valid JSON" not in prompt
    assert '"30 days"' not in prompt
    report = CriteriaReport.of(result)
    assert report is not None
    assert report.passed_criteria == (criteria[0], criteria[1])
    assert report.failed_criteria == (criteria[2],)
    assert [row.method for row in report.criteria] == ["logprobs", "exact", "exact"]
    assert result.status is Status.FAIL


async def test_criteria_all_decided_exactly_make_no_call():
    model = ScriptedModel("test:judge", [], capabilities=LOGPROB_CAPABILITIES)
    judge = CriteriaJudge(
        ['The answer mentions "30 days".', "The output is at most 100 words long."],
        model,
        together=True,
    )
    result = await judge.judge(Context("Explain returns.", output=TEXT))
    assert model.calls == 0
    assert result.status is Status.PASS
    assert result.usage is None or result.usage.calls == 0


@pytest.mark.parametrize("together", [False, True])
async def test_a_miscalculation_is_shown_to_the_model_as_evidence_and_reported(together):
    output = "Three fives multiplied: 5 x 5 x 5 = 625. The word 'five' appears twice in the task."
    task = "Say five, then five again: what is 5 x 5 x 5?"
    if together:
        answer = with_logprobs(
            '{"verdicts": [{"criterion": 1, "answer": "',
            ("no", {"yes": 0.1, "no": 0.9}),
            '", "reason": "r"}]}',
        )
    else:
        answer = _verdict(0.1)
    model = ScriptedModel("test:judge", [answer], capabilities=LOGPROB_CAPABILITIES)
    if together:
        judge = CriteriaJudge(["The answer is correct."], model, together=True)
    else:
        judge = CriterionJudge("The answer is correct.", model)
    result = await judge.judge(Context(task, output=output))
    (request,) = model.requests
    shown = request.messages[-1].content.split("Found by a program")[1].split("Decide")[0]
    # The arithmetic is wrong (125); 'five' does appear twice in the task: only the first
    # is a finding.
    assert "'5 x 5 x 5 = 625' is wrong: it comes to 125, not 625" in shown
    assert "appears twice" not in shown
    report = CriterionReport.of(result) if not together else None
    computed = report.computed if report is not None else _row_computed(result)
    assert computed == ("'5 x 5 x 5 = 625' is wrong: it comes to 125, not 625",)


def _row_computed(result):
    report = CriteriaReport.of(result)
    assert report is not None
    return report.criteria[0].computed


async def test_without_exact_checks_no_finding_is_shown():
    model = ScriptedModel("test:judge", [_verdict(0.9)], capabilities=LOGPROB_CAPABILITIES)
    judge = CriterionJudge("The answer is correct.", model, exact=False)
    result = await judge.judge(Context("What is 5 x 5 x 5?", output="5 x 5 x 5 = 625"))
    assert "Found by a program" not in model.requests[0].messages[-1].content
    assert CriterionReport.of(result).computed is None
