import pytest

from jurist.pytest_plugin import assert_judgment

REFUND_WINDOW = "criterion:The answer states the refund window"


def support_bot(question: str) -> str:
    """The system under test: here, canned answers."""
    if "refund" in question.lower():
        return "You can ask for a refund within 30 days of delivery."
    return "We ship worldwide in 3 to 5 days."


def test_refund_answer(jurist):
    answer = support_bot("How long do I have to ask for a refund?")
    judgment = jurist.assert_judgment(REFUND_WINDOW, goal="Refund window?", output=answer)
    assert "30-day" in judgment.reasoning


@pytest.mark.jurist
def test_answers_are_short():
    assert_judgment({"type": "length", "max_words": 40}, output=support_bot("Refunds?"))


@pytest.mark.jurist_dataset("answers.jsonl")
def test_saved_answers(jurist, case):
    jurist.assert_judgment(REFUND_WINDOW, case)


def test_shipping_answer_states_the_refund_window(jurist):
    jurist.assert_judgment(REFUND_WINDOW, goal="Shipping?", output=support_bot("Shipping?"))


def test_questions_are_answered():
    assert support_bot("Shipping?")
