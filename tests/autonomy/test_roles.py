"""The five roles with scripted models: what each asks, how it reads the answer, the reply it
sends, and how failures and constraint violations surface."""

import json

import pytest

from jurist.autonomy._messages import (
    JudgeMessage,
    MessageError,
    reply_to,
    request_message,
)
from jurist.autonomy._payloads import (
    Analysis,
    AnalyzeRequest,
    Challenge,
    ChallengeRequest,
    Constraints,
    EvaluateRequest,
    Evaluation,
    EvaluationSummary,
    FindingKind,
    FindingSeverity,
    MessageKind,
    MessageType,
    Review,
    ReviewDecision,
    ReviewRequest,
    Rewrite,
    RewriteConstraints,
    RewriteRequest,
    Role,
    Stage,
)
from jurist.autonomy._roles import (
    Adversarial,
    Analyst,
    ConstraintViolation,
    Evaluator,
    Meta,
    Rewriter,
    RoleFailure,
)
from jurist.core import Cause, Usage
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.rubrics import Criterion
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

PROMPT = "List three uses of copper."
CRITERIA = [
    Criterion(name="format", description="The response is a bulleted list", weight=3.0),
    Criterion(name="count", description="The response names exactly three uses"),
]
ANALYSIS = Analysis(
    failure_type="format_mismatch",
    root_cause="The prompt never asks for a list",
    hypotheses=["Implicit format"],
    suggestions=["Ask for bullets explicitly"],
)


def message(kind: MessageType, payload, **options) -> JudgeMessage:
    return request_message(
        "loop", Role.META, Stage.EVALUATION, kind, payload, correlation_id="cycle-1", **options
    )


def json_answer(value: dict, **options) -> Response:
    return answer(json.dumps(value), **options)


def criterion_of(request: Request) -> str:
    return request.messages[-1].content.rstrip().rsplit("Criterion: ", 1)[1]


def verdict(p_yes: float) -> Response:
    """A criterion answer whose "answer" token carries P(yes) = p_yes."""
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs(
        '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '", "reason": "because"}'
    )


def by_criterion(answers: dict[str, Response | BaseException]):
    def step(request: Request) -> Response:
        outcome = answers[criterion_of(request)]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return step


# Evaluator


def evaluate(response: str = "- wires\n- pipes\n- coins") -> JudgeMessage:
    return message(
        MessageType.EVALUATE,
        EvaluateRequest(prompt=PROMPT, response=response, criteria=CRITERIA),
        timeout_seconds=45,
    )


async def test_the_evaluator_scores_each_criterion_by_p_yes_and_weights_the_mean():
    step = by_criterion(
        {CRITERIA[0].description: verdict(0.9), CRITERIA[1].description: verdict(0.3)}
    )
    model = ScriptedModel("test:judge", [step, step], capabilities=LOGPROB_CAPABILITIES)
    request = evaluate()
    reply = await Evaluator(model, sender_id="evaluator-a").handle(request)

    assert reply.kind is MessageKind.REPLY
    assert reply.correlation_id == "cycle-1"
    assert reply.metadata.sender_id == "evaluator-a"
    assert reply.metadata.sender_role is Role.EVALUATOR
    evaluation = reply.payload
    assert isinstance(evaluation, Evaluation)
    assert evaluation.per_criterion == pytest.approx({"format": 0.9, "count": 0.3})
    assert evaluation.score == pytest.approx((3 * 0.9 + 1 * 0.3) / 4)
    assert evaluation.failed_criteria == ["count"]
    assert evaluation.usage.calls == 2

    for sent in model.requests:
        assert sent.logprobs is True
        assert sent.timeout_s == 45
        prompt = sent.messages[-1].content
        # The evaluator sees the prompt the response was written for, then the response.
        assert prompt.index(PROMPT) < prompt.index("- wires")
        assert "```prompt" in prompt
        assert "```response" in prompt


async def test_without_logprobs_the_evaluator_uses_the_stated_answer_and_confidence():
    step = by_criterion(
        {
            CRITERIA[0].description: json_answer(
                {"answer": "yes", "reason": "r", "confidence": 0.8}
            ),
            CRITERIA[1].description: json_answer(
                {"answer": "no", "reason": "r", "confidence": 0.9}
            ),
        }
    )
    model = ScriptedModel("test:judge", [step, step])
    reply = await Evaluator(model, temperature=0.7).handle(evaluate())
    assert reply.payload.per_criterion == pytest.approx({"format": 0.8, "count": 0.1})
    assert reply.payload.failed_criteria == ["count"]
    assert all(sent.temperature == 0.7 for sent in model.requests)


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (ModelError(ErrorKind.BUDGET, "the cycle's budget is spent"), Cause.BUDGET),
        (ModelError(ErrorKind.TIMEOUT, "no answer within 45 s"), Cause.MODEL_ERROR),
        (ModelError(ErrorKind.UNPARSEABLE, "no JSON"), Cause.UNPARSEABLE),
    ],
)
async def test_a_criterion_that_could_not_be_judged_fails_the_evaluation(error, cause):
    step = by_criterion({CRITERIA[0].description: verdict(0.9), CRITERIA[1].description: error})
    model = ScriptedModel("test:judge", [step, step], capabilities=LOGPROB_CAPABILITIES)
    with pytest.raises(RoleFailure) as caught:
        await Evaluator(model).handle(evaluate())
    failure = caught.value
    assert failure.role is Role.EVALUATOR
    assert failure.cause is cause
    assert "'count'" in failure.detail
    # The call that did answer is still accounted for.
    assert failure.usage is not None
    assert failure.usage.calls == 1


async def test_an_unreadable_criterion_answer_is_unparseable():
    step = by_criterion(
        {CRITERIA[0].description: verdict(0.9), CRITERIA[1].description: answer("maybe?")}
    )
    model = ScriptedModel("test:judge", [step, step], capabilities=LOGPROB_CAPABILITIES)
    with pytest.raises(RoleFailure) as caught:
        await Evaluator(model).handle(evaluate())
    assert caught.value.cause is Cause.UNPARSEABLE


async def test_a_criterion_broken_on_the_judges_side_keeps_its_own_cause(tmp_path):
    # A template that does not render is not the model's failure: the role failure says so.
    broken = tmp_path / "broken.j2"
    broken.write_text("Criterion: {{ criterion }} {{ not_a_variable }}")
    model = ScriptedModel("test:judge", capabilities=LOGPROB_CAPABILITIES)
    with pytest.raises(RoleFailure) as caught:
        await Evaluator(model, template=broken).handle(evaluate())
    assert caught.value.cause is Cause.PROMPT
    assert model.calls == 0


@pytest.mark.parametrize("cause", [Cause.BUDGET, "budget"])
def test_a_role_failure_names_its_cause_from_the_one_vocabulary(cause):
    failure = RoleFailure(Role.META, cause, "the cycle's budget is spent")
    assert failure.cause is Cause.BUDGET
    assert str(failure) == "the meta failed (budget): the cycle's budget is spent"


def test_a_role_failure_refuses_a_cause_outside_the_vocabulary():
    with pytest.raises(ValueError, match="'flaky'"):
        RoleFailure(Role.META, "flaky", "it went wrong")


# Analyst


def analyze() -> JudgeMessage:
    return message(
        MessageType.ANALYZE,
        AnalyzeRequest(
            prompt=PROMPT,
            responses=["Wires, pipes and coins.", "x" * 5000, "third", "fourth, not shown"],
            evaluation=EvaluationSummary(
                score=0.25, failed_criteria=["format"], per_criterion={"format": 0.1, "count": 0.9}
            ),
            hypothesis_space=["Missing examples"],
            criteria=CRITERIA,
        ),
        timeout_seconds=60,
    )


ANALYST_ANSWER = {
    "failure_type": "format_mismatch",
    "root_cause": "The prompt never asks for a list.",
    "hypotheses": ["The model defaults to prose"],
    "suggestions": ["Ask for a bulleted list", "Show one example"],
}


async def test_the_analyst_answers_with_root_cause_hypotheses_and_suggestions():
    model = ScriptedModel(script=[json_answer(ANALYST_ANSWER)])
    reply = await Analyst(model).handle(analyze())

    analysis = reply.payload
    assert isinstance(analysis, Analysis)
    assert analysis.failure_type == "format_mismatch"
    assert analysis.suggestions == ["Ask for a bulleted list", "Show one example"]
    assert analysis.usage == Usage(input_tokens=10, output_tokens=5, model="test:scripted", calls=1)
    assert reply.correlation_id == "cycle-1"
    assert reply.metadata.sender_role is Role.ANALYST

    sent = model.requests[0]
    assert sent.timeout_s == 60
    assert sent.seed == 0
    # The analyst reads what each criterion asks, not only the names of the failed ones.
    assert "- format: The response is a bulleted list" in sent.messages[-1].content
    assert sent.max_tokens == 400
    assert list(sent.json_schema["properties"]) == list(ANALYST_ANSWER)
    assert sent.json_schema["properties"]["suggestions"]["maxItems"] == 3
    assert sent.messages[0].role == "system"
    prompt = sent.messages[-1].content
    assert PROMPT in prompt
    assert "Overall score: 0.25" in prompt
    assert "- format: 0.10" in prompt
    assert "Criteria failed: format" in prompt
    assert "- Missing examples" in prompt
    # Long responses are cut and at most three are shown.
    assert "x" * 1300 not in prompt
    assert "fourth, not shown" not in prompt


@pytest.mark.parametrize(
    ("changed", "field"),
    [
        ({"root_cause": "   "}, "root_cause"),
        ({"hypotheses": "one"}, "hypotheses"),
        ({"extra": 1}, "extra"),
    ],
)
async def test_an_answer_that_does_not_fit_the_reply_is_unparseable(changed, field):
    model = ScriptedModel(script=[json_answer({**ANALYST_ANSWER, **changed})])
    with pytest.raises(RoleFailure) as caught:
        await Analyst(model).handle(analyze())
    assert caught.value.cause is Cause.UNPARSEABLE
    assert f"the answer's {field}:" in caught.value.detail
    assert caught.value.usage is not None
    assert caught.value.usage.calls == 1


async def test_an_answer_without_json_is_unparseable():
    model = ScriptedModel(script=[answer("The prompt is unclear.")])
    with pytest.raises(RoleFailure) as caught:
        await Analyst(model).handle(analyze())
    assert caught.value.cause is Cause.UNPARSEABLE
    assert "holds no JSON object" in caught.value.detail


@pytest.mark.parametrize(
    ("kind", "cause"),
    [
        (ErrorKind.SERVER_ERROR, Cause.MODEL_ERROR),
        (ErrorKind.TIMEOUT, Cause.MODEL_ERROR),
        (ErrorKind.BUDGET, Cause.BUDGET),
        (ErrorKind.UNPARSEABLE, Cause.UNPARSEABLE),
    ],
)
async def test_a_model_error_becomes_a_role_failure_with_its_cause(kind, cause):
    model = ScriptedModel(script=[ModelError(kind, "it went wrong", model="test:scripted")])
    with pytest.raises(RoleFailure) as caught:
        await Analyst(model).handle(analyze())
    failure = caught.value
    assert failure.role is Role.ANALYST
    assert failure.cause is cause
    assert "it went wrong" in failure.detail
    assert str(failure).startswith(f"the analyst failed ({cause.value}): ")
    assert isinstance(failure.__cause__, ModelError)


# Rewriter

CURRENT = "Describe copper in a few words."  # 31 characters


def rewrite(
    max_length_change: float = 1.5, slack: int = 0, rejected: tuple[str, ...] = ()
) -> JudgeMessage:
    return message(
        MessageType.REWRITE,
        RewriteRequest(
            current_prompt=CURRENT,
            analysis=ANALYSIS,
            constraints=RewriteConstraints(
                max_length_change=max_length_change, length_slack_chars=slack
            ),
            techniques_to_try=["explicit_instruction"],
            rejected=list(rejected),
            criteria=CRITERIA,
        ),
    )


def rewriter_answer(improved: str) -> Response:
    return json_answer(
        {
            "improved_prompt": improved,
            "techniques_used": ["explicit_instruction"],
            "rationale": "Names the format.",
            "intent_preserved": True,
        }
    )


async def test_the_rewriter_returns_the_improved_prompt_within_the_length_bound():
    improved = "Describe copper in three bullets."  # 33 characters
    model = ScriptedModel(script=[rewriter_answer(f"  {improved}\n")])
    reply = await Rewriter(model).handle(rewrite())

    result = reply.payload
    assert isinstance(result, Rewrite)
    assert result.improved_prompt == improved
    assert result.techniques_used == ["explicit_instruction"]
    assert result.intent_preserved is True
    assert reply.metadata.sender_role is Role.REWRITER
    prompt = model.requests[0].messages[-1].content
    assert "between 21 and 46 characters" in prompt
    assert "Keep the prompt's task and intent" in prompt
    assert "- Ask for bullets explicitly" in prompt
    assert "explicit_instruction" in prompt


@pytest.mark.parametrize(
    ("improved", "length"),
    [
        ("Describe copper: its colour, uses, and history.", 47),
        ("Copper?", 7),
    ],
)
async def test_a_rewrite_outside_the_length_bound_is_a_constraint_violation(improved, length):
    model = ScriptedModel(script=[rewriter_answer(improved)])
    with pytest.raises(ConstraintViolation) as caught:
        await Rewriter(model).handle(rewrite())
    violation = caught.value
    assert isinstance(violation, RoleFailure)
    assert violation.cause is Cause.CONSTRAINT
    assert violation.field == "payload.constraints.max_length_change"
    assert f"has {length} characters" in violation.detail
    assert "allows 21 to 46" in violation.detail
    assert violation.usage is not None
    assert violation.usage.calls == 1


async def test_a_looser_bound_lets_a_longer_rewrite_through():
    improved = "Describe copper: its colour, uses, and history."
    model = ScriptedModel(script=[rewriter_answer(improved)])
    reply = await Rewriter(model).handle(rewrite(max_length_change=2.0))
    assert reply.payload.improved_prompt == improved


async def test_a_short_prompt_may_grow_by_the_slack_and_rejected_attempts_are_shown():
    improved = CURRENT + " Answer in three bullets, one use per line, each under ten words."
    model = ScriptedModel(script=[rewriter_answer(improved), rewriter_answer(improved)])
    reply = await Rewriter(model).handle(rewrite(slack=150, rejected=("Say copper.",)))
    assert reply.payload.improved_prompt == improved
    prompt = model.requests[0].messages[-1].content
    assert "between 21 and 181 characters" in prompt
    assert "- The response names exactly three uses" in prompt
    assert "Already tried and rejected" in prompt
    assert "Say copper." in prompt
    with pytest.raises(ConstraintViolation):
        await Rewriter(model).handle(rewrite(slack=0))


async def test_an_empty_rewrite_is_unparseable():
    model = ScriptedModel(script=[rewriter_answer("   ")])
    with pytest.raises(RoleFailure) as caught:
        await Rewriter(model).handle(rewrite())
    assert caught.value.cause is Cause.UNPARSEABLE
    assert "improved_prompt" in caught.value.detail


async def test_the_rewriter_leaves_room_for_the_longest_prompt_allowed():
    long_prompt = "Explain " + "the properties of copper " * 100  # about 2,400 characters
    payload = RewriteRequest(current_prompt=long_prompt, analysis=ANALYSIS)
    model = ScriptedModel(script=[rewriter_answer(long_prompt)])
    await Rewriter(model).handle(message(MessageType.REWRITE, payload))
    assert model.requests[0].max_tokens >= len(long_prompt.strip()) * 1.5 / 3
    model = ScriptedModel(script=[rewriter_answer(long_prompt)])
    await Rewriter(model, max_tokens=300).handle(message(MessageType.REWRITE, payload))
    assert model.requests[0].max_tokens == 300


# Adversarial


def challenge() -> JudgeMessage:
    return message(
        MessageType.CHALLENGE,
        ChallengeRequest(prompt=PROMPT, criteria=CRITERIA, cases=["Wires, pipes, coins."]),
    )


async def test_the_adversarial_judge_reports_findings():
    findings = [
        {"kind": "gaming", "description": "Three one-word bullets pass.", "severity": "high"},
        {"kind": "ambiguity", "description": "Uses by whom?", "severity": "low"},
    ]
    model = ScriptedModel(script=[json_answer({"findings": findings})])
    reply = await Adversarial(model).handle(challenge())
    result = reply.payload
    assert isinstance(result, Challenge)
    assert [f.kind for f in result.findings] == [FindingKind.GAMING, FindingKind.AMBIGUITY]
    assert result.findings[0].severity is FindingSeverity.HIGH
    assert reply.metadata.sender_role is Role.ADVERSARIAL
    sent = model.requests[0]
    assert sent.json_schema["properties"]["findings"]["maxItems"] == 5
    prompt = sent.messages[-1].content
    assert "- format: The response is a bulleted list" in prompt
    assert "Wires, pipes, coins." in prompt


async def test_no_findings_is_a_valid_answer():
    model = ScriptedModel(script=[json_answer({"findings": []})])
    reply = await Adversarial(model).handle(challenge())
    assert reply.payload.findings == []


async def test_a_finding_of_an_unknown_kind_is_unparseable():
    finding = {"kind": "bug", "description": "Something.", "severity": "low"}
    model = ScriptedModel(script=[json_answer({"findings": [finding]})])
    with pytest.raises(RoleFailure) as caught:
        await Adversarial(model).handle(challenge())
    assert caught.value.cause is Cause.UNPARSEABLE
    assert "findings[0].kind" in caught.value.detail


# Meta


def review() -> JudgeMessage:
    return message(
        MessageType.REVIEW,
        ReviewRequest(
            iteration=3,
            scores=[0.2, 0.5, 0.45],
            proposal="List three uses of copper as bullets.",
            findings=2,
            cost_usd=0.12,
            stages={"evaluation": {"score": 0.45}},
        ),
        constraints=Constraints(max_iterations=8, max_cost_usd=0.5),
    )


async def test_the_meta_judge_decides_with_a_reason():
    model = ScriptedModel(
        script=[json_answer({"decision": "halt", "reason": "The score fell this iteration."})]
    )
    reply = await Meta(model).handle(review())
    result = reply.payload
    assert isinstance(result, Review)
    assert result.decision is ReviewDecision.HALT
    assert result.reason == "The score fell this iteration."
    assert reply.metadata.sender_role is Role.META
    sent = model.requests[0]
    assert sent.json_schema["properties"]["decision"]["enum"] == ["continue", "halt", "escalate"]
    prompt = sent.messages[-1].content
    assert "Iteration: 3 of at most 8." in prompt
    assert "0.20, 0.50, 0.45" in prompt
    assert "0.1200 USD of a 0.5000 USD budget" in prompt
    assert "found in the latest prompt: 2." in prompt
    assert '"evaluation"' in prompt


# What every role shares


ROLES_AND_MESSAGES = [
    (Evaluator, evaluate),
    (Analyst, analyze),
    (Rewriter, rewrite),
    (Adversarial, challenge),
    (Meta, review),
]


@pytest.mark.parametrize(("role", "make"), ROLES_AND_MESSAGES)
async def test_a_role_refuses_a_request_of_another_type(role, make):
    other = analyze() if role is not Analyst else review()
    model = ScriptedModel()
    with pytest.raises(MessageError) as caught:
        await role(model).handle(other)
    assert caught.value.field == "request.type"
    assert model.calls == 0


@pytest.mark.parametrize(("role", "make"), ROLES_AND_MESSAGES)
async def test_a_role_refuses_a_reply(role, make):
    request = make()
    payload = {
        Evaluator: Evaluation(score=1.0, per_criterion={"format": 1.0}),
        Analyst: ANALYSIS,
        Rewriter: Rewrite(improved_prompt="x"),
        Adversarial: Challenge(),
        Meta: Review(decision=ReviewDecision.CONTINUE, reason="fine"),
    }[role]
    reply = reply_to(request, "someone", role.role, payload)
    with pytest.raises(MessageError) as caught:
        await role(ScriptedModel()).handle(reply)
    assert caught.value.field == "kind"


@pytest.mark.parametrize(("role", "make"), ROLES_AND_MESSAGES)
async def test_a_model_that_cannot_be_resolved_is_a_model_error(role, make, monkeypatch):
    def unavailable(spec=None):
        raise ModelError(ErrorKind.UNAVAILABLE, "no such model here")

    monkeypatch.setattr("jurist.judges._ask.get_model", unavailable)
    with pytest.raises(RoleFailure) as caught:
        await role("local:missing").handle(make())
    assert caught.value.cause is Cause.MODEL_ERROR
    assert "no such model here" in caught.value.detail


def test_roles_name_themselves_by_default_and_check_their_settings():
    assert Analyst(ScriptedModel()).sender_id == "analyst"
    assert Meta(ScriptedModel(), sender_id="meta-2").sender_id == "meta-2"
    assert Rewriter(ScriptedModel()).handles is MessageType.REWRITE
    with pytest.raises(ValueError, match="sender_id"):
        Analyst(ScriptedModel(), sender_id=" ")
    with pytest.raises(ValueError, match="max_tokens"):
        Analyst(ScriptedModel(), max_tokens=0)
    with pytest.raises(ValueError, match="temperature"):
        Meta(ScriptedModel(), temperature=3.0)


async def test_a_role_can_use_another_template(tmp_path):
    template = tmp_path / "terse.j2"
    template.write_text("Decide: continue, halt or escalate. Scores: {{ scores | join(' ') }}")
    model = ScriptedModel(script=[json_answer({"decision": "continue", "reason": "Rising."})])
    await Meta(model, template=template).handle(review())
    assert model.requests[0].messages[-1].content.strip() == (
        "Decide: continue, halt or escalate. Scores: 0.20 0.50 0.45"
    )
