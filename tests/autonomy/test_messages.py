"""The autonomy message protocol: round trips, the payload each (kind, type) carries, and
malformed messages reported by the path of the field at fault."""

import json
from datetime import UTC, datetime

import pytest

from jurist.autonomy._messages import (
    PROTOCOL_VERSION,
    JudgeMessage,
    MessageError,
    error_path,
    parse_message,
    reply_to,
    request_message,
)
from jurist.autonomy._payloads import (
    HANDLING_ROLE,
    Analysis,
    AnalyzeRequest,
    Challenge,
    ChallengeRequest,
    Constraints,
    EvaluateRequest,
    Evaluation,
    EvaluationSummary,
    Finding,
    FindingKind,
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
    payload_model,
)
from jurist.core import Usage
from jurist.rubrics import Criterion, get_rubric

CRITERIA = [
    Criterion(name="format", description="The answer is a bulleted list", weight=2.0),
    Criterion(name="brevity", description="The answer has at most five bullets"),
]
ANALYSIS = Analysis(
    failure_type="format_mismatch",
    root_cause="The prompt never asks for a list",
    hypotheses=["Implicit format"],
    suggestions=["Ask for bullets explicitly"],
)

REQUESTS = {
    MessageType.EVALUATE: EvaluateRequest(
        prompt="List three uses of copper.",
        response="Wires, pipes, coins.",
        criteria=CRITERIA,
        context={"test_name": "copper", "iteration": 3, "previous_scores": [0.2, 0.4]},
    ),
    MessageType.ANALYZE: AnalyzeRequest(
        prompt="List three uses of copper.",
        responses=["Wires, pipes, coins."],
        evaluation=EvaluationSummary(
            score=0.3, failed_criteria=["format"], per_criterion={"format": 0.1, "brevity": 0.9}
        ),
        hypothesis_space=["Ambiguous instructions", "Missing examples"],
    ),
    MessageType.REWRITE: RewriteRequest(
        current_prompt="List three uses of copper.",
        analysis=ANALYSIS,
        constraints=RewriteConstraints(preserve_intent=True, max_length_change=2.0),
        techniques_to_try=["explicit_instruction", "example_driven"],
    ),
    MessageType.CHALLENGE: ChallengeRequest(
        prompt="List three uses of copper.", criteria=CRITERIA, cases=["Wires, pipes, coins."]
    ),
    MessageType.REVIEW: ReviewRequest(
        iteration=2,
        scores=[0.3, 0.6],
        proposal="List three uses of copper as bullets.",
        findings=1,
        cost_usd=0.01,
        stages={"evaluation": {"score": 0.6}},
    ),
}
USAGE = Usage(input_tokens=120, output_tokens=30, model="test:scripted", calls=1)
REPLIES = {
    MessageType.EVALUATE: Evaluation(
        score=0.5, per_criterion={"format": 0.2, "brevity": 0.8}, failed_criteria=["format"]
    ),
    MessageType.ANALYZE: ANALYSIS,
    MessageType.REWRITE: Rewrite(
        improved_prompt="List three uses of copper as bullet points.",
        techniques_used=["explicit_instruction"],
        rationale="Asks for the format outright.",
        intent_preserved=True,
        usage=USAGE,
    ),
    MessageType.CHALLENGE: Challenge(
        findings=[
            Finding(kind=FindingKind.GAMING, description="Bullets of one word", severity="high")
        ]
    ),
    MessageType.REVIEW: Review(decision=ReviewDecision.CONTINUE, reason="Scores rise."),
}


def evaluate_request(**options) -> JudgeMessage:
    return request_message(
        "loop",
        Role.META,
        Stage.EVALUATION,
        MessageType.EVALUATE,
        REQUESTS[MessageType.EVALUATE],
        **options,
    )


def wire(message: JudgeMessage) -> dict:
    return json.loads(message.to_json())


def problem_with(data) -> MessageError:
    with pytest.raises(MessageError) as caught:
        parse_message(data)
    return caught.value


# Round trips


@pytest.mark.parametrize("kind", list(MessageType))
def test_every_request_and_its_reply_round_trip_through_json(kind):
    request = request_message(
        "loop",
        Role.META,
        Stage.ANALYSIS,
        kind,
        REQUESTS[kind],
        constraints=Constraints(max_iterations=4),
    )
    reply = reply_to(request, "judge-7", HANDLING_ROLE[kind], REPLIES[kind])
    for message in (request, reply):
        text = message.to_json()
        assert parse_message(text) == message
        assert parse_message(text.encode()) == message
        assert parse_message(json.loads(text)) == message
        assert JudgeMessage.from_json(text) == message
    assert request.kind is MessageKind.REQUEST
    assert reply.kind is MessageKind.REPLY
    assert type(request.payload) is payload_model(MessageKind.REQUEST, kind)
    assert type(reply.payload) is payload_model(MessageKind.REPLY, kind)


def test_the_wire_form_follows_the_spec_layout():
    data = wire(evaluate_request(priority=2, timeout_seconds=12.5))
    assert list(data) == ["version", "kind", "metadata", "request", "payload", "constraints"]
    assert data["version"] == PROTOCOL_VERSION == "1.0"
    assert data["kind"] == "request"
    assert data["metadata"]["sender_role"] == "meta"
    assert data["metadata"]["pipeline_stage"] == "evaluation"
    assert data["request"] == {"type": "evaluate", "priority": 2, "timeout_seconds": 12.5}
    assert data["constraints"] == {
        "max_iterations": 10,
        "max_cost_usd": 1.0,
        "require_consensus": False,
    }
    assert data["payload"]["criteria"][0] == {
        "name": "format",
        "description": "The answer is a bulleted list",
        "weight": 2.0,
    }
    stamp = datetime.fromisoformat(data["metadata"]["timestamp"])
    assert stamp.tzinfo is not None
    assert abs((datetime.now(UTC) - stamp).total_seconds()) < 60


def test_the_reply_keeps_the_correlation_id_stage_request_and_constraints():
    request = evaluate_request(
        constraints=Constraints(max_cost_usd=0.25), correlation_id="cycle-42", priority=5
    )
    reply = reply_to(request, "evaluator-a", Role.EVALUATOR, REPLIES[MessageType.EVALUATE])
    assert reply.correlation_id == request.correlation_id == "cycle-42"
    assert reply.metadata.pipeline_stage is Stage.EVALUATION
    assert reply.metadata.sender_id == "evaluator-a"
    assert reply.metadata.sender_role is Role.EVALUATOR
    assert reply.request == request.request
    assert reply.constraints.max_cost_usd == 0.25


def test_each_request_gets_its_own_correlation_id_unless_given_one():
    first, second = evaluate_request(), evaluate_request()
    assert first.correlation_id != second.correlation_id
    assert len(first.correlation_id) == 32


def test_usage_travels_in_the_reply():
    request = request_message(
        "loop", Role.META, Stage.REWRITING, MessageType.REWRITE, REQUESTS[MessageType.REWRITE]
    )
    reply = parse_message(
        reply_to(request, "rw", Role.REWRITER, REPLIES[MessageType.REWRITE]).to_json()
    )
    assert isinstance(reply.payload, Rewrite)
    assert reply.payload.usage == USAGE


def test_messages_are_immutable():
    message = evaluate_request()
    with pytest.raises(ValueError, match="frozen"):
        message.kind = MessageKind.REPLY  # type: ignore[misc]


# Malformed messages name their field


def _drop(path: list):
    def change(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


def _set(path: list, value):
    def change(data: dict) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (_drop(["metadata", "sender_id"]), "metadata.sender_id", "Field required"),
        (_set(["metadata", "sender_id"], "  "), "metadata.sender_id", "must not be blank"),
        (_set(["metadata", "sender_role"], "judge"), "metadata.sender_role", "'evaluator'"),
        (_set(["metadata", "timestamp"], "2026-11-22T10:00:00"), "metadata.timestamp", "timezone"),
        (_set(["metadata", "pipeline_stage"], "done"), "metadata.pipeline_stage", "'analysis'"),
        (_set(["request", "priority"], 0), "request.priority", "greater than or equal to 1"),
        (_set(["request", "priority"], 6), "request.priority", "less than or equal to 5"),
        (_set(["request", "priority"], "3"), "request.priority", "valid integer"),
        (_set(["request", "priority"], True), "request.priority", "valid integer"),
        (_set(["request", "timeout_seconds"], 0), "request.timeout_seconds", "greater than 0"),
        (_set(["request", "type"], "judge"), "request.type", "'evaluate'"),
        (_set(["payload", "criteria", 0, "weight"], 0), "payload.criteria[0].weight", "than 0"),
        (_set(["payload", "criteria", 1, "weight"], -1), "payload.criteria[1].weight", "than 0"),
        (_set(["payload", "criteria"], []), "payload.criteria", "at least 1 item"),
        (_drop(["payload", "prompt"]), "payload.prompt", "Field required"),
        (_set(["payload", "extra"], 1), "payload.extra", "Extra inputs are not permitted"),
        (_set(["version"], "2.0"), "version", "'1.0'"),
        (_drop(["version"]), "version", "Field required"),
        (_set(["kind"], "notice"), "kind", "'request' or 'reply'"),
        (_set(["surprise"], True), "surprise", "Extra inputs are not permitted"),
        (_set(["constraints", "max_iterations"], 0), "constraints.max_iterations", "1"),
        (_set(["constraints", "max_cost_usd"], -0.5), "constraints.max_cost_usd", "0"),
    ],
)
def test_a_malformed_message_names_the_field_and_the_problem(change, field, problem):
    data = wire(evaluate_request())
    change(data)
    error = problem_with(data)
    assert error.field == field
    assert problem in error.problem
    assert str(error).startswith(f"{field}: ")


def test_repeated_criterion_names_are_refused():
    data = wire(evaluate_request())
    data["payload"]["criteria"][1]["name"] = "format"
    error = problem_with(data)
    assert error.field == "payload.criteria"
    assert "criteria[1].name 'format' repeats criteria[0]" in error.problem


def test_a_blank_criterion_name_or_description_is_refused():
    for field in ("name", "description"):
        data = wire(evaluate_request())
        data["payload"]["criteria"][0][field] = "  "
        error = problem_with(data)
        assert error.field == f"payload.criteria[0].{field}"
        assert "must not be blank" in error.problem


def test_a_rubrics_criteria_can_be_what_a_role_is_asked_about():
    rubric = get_rubric("code")
    criteria = list(rubric.criteria)
    request = EvaluateRequest(prompt="Write a sort.", response="sorted()", criteria=criteria)
    # On the wire a criterion is its name, what it asks and its weight; the levels stay home.
    sent = request.model_dump(mode="json")["criteria"][0]
    assert sent == {
        "name": rubric.criteria[0].name,
        "description": rubric.criteria[0].description,
        "weight": rubric.criteria[0].weight,
    }


def test_a_payload_that_does_not_match_the_request_type_is_refused():
    data = wire(evaluate_request())
    data["request"]["type"] = "review"
    error = problem_with(data)
    assert error.field == "payload"
    assert error.problem == "is an EvaluateRequest, but a review request carries a ReviewRequest"


def test_a_request_payload_in_a_reply_is_refused():
    data = wire(evaluate_request())
    data["kind"] = "reply"
    data["metadata"]["sender_role"] = "evaluator"
    error = problem_with(data)
    assert error.field == "payload"
    assert "an evaluate reply carries an Evaluation" in error.problem


def test_an_incomplete_payload_gets_its_own_field_errors():
    data = wire(evaluate_request())
    data["request"]["type"] = "challenge"
    data["payload"] = {"criteria": data["payload"]["criteria"]}
    error = problem_with(data)
    assert error.field == "payload.prompt"
    assert error.problem == "Field required"


def test_a_reply_from_the_wrong_role_is_refused():
    request = evaluate_request()
    with pytest.raises(MessageError) as caught:
        reply_to(request, "x", Role.ANALYST, REPLIES[MessageType.EVALUATE])
    assert caught.value.field == "metadata.sender_role"
    assert "comes from the evaluator role" in caught.value.problem


def test_a_mismatched_payload_object_is_refused_at_construction():
    with pytest.raises(MessageError) as caught:
        request_message(
            "loop", Role.META, Stage.ANALYSIS, MessageType.ANALYZE, REQUESTS[MessageType.REVIEW]
        )
    assert caught.value.field == "payload"
    assert "is a ReviewRequest" in caught.value.problem
    assert "an analyze request is an AnalyzeRequest" in caught.value.problem


def test_only_a_request_has_a_reply():
    request = evaluate_request()
    reply = reply_to(request, "e", Role.EVALUATOR, REPLIES[MessageType.EVALUATE])
    with pytest.raises(MessageError) as caught:
        reply_to(reply, "e", Role.EVALUATOR, REPLIES[MessageType.EVALUATE])
    assert caught.value.field == "kind"


def test_failed_criteria_must_have_scores():
    data = wire(reply_to(evaluate_request(), "e", Role.EVALUATOR, REPLIES[MessageType.EVALUATE]))
    data["payload"]["failed_criteria"] = ["tone"]
    error = problem_with(data)
    assert error.field == "payload"
    assert "failed_criteria[0] 'tone' has no score in per_criterion" in error.problem


def test_scores_outside_0_to_1_are_refused():
    data = wire(reply_to(evaluate_request(), "e", Role.EVALUATOR, REPLIES[MessageType.EVALUATE]))
    data["payload"]["per_criterion"]["brevity"] = 1.5
    error = problem_with(data)
    assert error.field == "payload.per_criterion.brevity"


def test_a_finding_must_be_of_a_known_kind_and_severity():
    request = request_message(
        "loop",
        Role.META,
        Stage.VERIFICATION,
        MessageType.CHALLENGE,
        REQUESTS[MessageType.CHALLENGE],
    )
    data = wire(reply_to(request, "adv", Role.ADVERSARIAL, REPLIES[MessageType.CHALLENGE]))
    data["payload"]["findings"][0]["severity"] = "critical"
    error = problem_with(data)
    assert error.field == "payload.findings[0].severity"
    assert "'low', 'medium' or 'high'" in error.problem


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "is not valid JSON: Expecting property name"),
        ('{"version": NaN}', "is not valid JSON: NaN is not JSON"),
        ("[1, 2]", "is a JSON list, not an object"),
    ],
)
def test_text_that_is_not_a_json_object_is_refused(text, problem):
    error = problem_with(text)
    assert error.field == "message"
    assert error.problem.startswith(problem)


def test_error_paths_quote_keys_that_are_not_names():
    assert error_path(("payload", "per_criterion", "two words", 0)) == (
        'payload.per_criterion["two words"][0]'
    )
    assert error_path(()) == "message"
