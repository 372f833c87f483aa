"""The classifiers: every way an answer is read into a decision, and every way it is not."""

import pytest

from jurist.core import BooleanScore, NumericScore, Status
from jurist.judges import (
    JsonFieldClassifier,
    LabelClassifier,
    ProbabilityClassifier,
    ScoreClassifier,
    Unreadable,
)
from jurist.judges._reading import ordinal_confidence
from scripted import answer, with_logprobs

# LabelClassifier


def test_label_whole_answer():
    reading = LabelClassifier().read(answer(" pass. "))
    assert reading.status is Status.PASS
    assert reading.score == BooleanScore(True)
    assert reading.method == "label"
    assert reading.details["rule"] == "whole answer"


def test_label_grade_ci_is_not_grade_c():
    classifier = LabelClassifier(pass_labels=["C"], fail_labels=["I"])
    with pytest.raises(Unreadable, match="none of the labels"):
        classifier.read(answer("GRADE: CI"))
    assert classifier.read(answer("GRADE: C")).status is Status.PASS


def test_label_incorrect_is_not_correct():
    classifier = LabelClassifier(pass_labels=["correct"], fail_labels=["incorrect"])
    reading = classifier.read(answer("The answer is incorrect: the date is wrong."))
    assert reading.status is Status.FAIL
    assert reading.details["rule"] == "only side named"


def test_label_first_word_decides_even_when_the_other_side_follows():
    classifier = LabelClassifier(pass_labels=["yes"], fail_labels=["no"])
    reading = classifier.read(answer("Yes, although no source is cited."))
    assert reading.status is Status.PASS
    assert reading.details["rule"] == "first word"
    assert reading.reasoning == "Yes, although no source is cited."


def test_label_longest_label_wins_at_the_start():
    classifier = LabelClassifier(pass_labels=["correct"], fail_labels=["not correct"])
    reading = classifier.read(answer("Not correct, the total is off by one."))
    assert reading.status is Status.FAIL
    assert reading.details["rule"] == "first word"


def test_label_both_sides_are_unreadable():
    with pytest.raises(Unreadable, match="both"):
        LabelClassifier().read(answer("It could PASS, or it could FAIL."))


def test_label_no_label_is_unreadable():
    with pytest.raises(Unreadable, match="none of the labels"):
        LabelClassifier().read(answer("I am not sure."))


@pytest.mark.parametrize(
    ("pass_labels", "fail_labels", "message"),
    [
        ([], ["FAIL"], "at least one"),
        (["ok"], ["OK"], "both pass and fail"),
        (["!!"], ["FAIL"], "letter or digit"),
    ],
)
def test_label_bad_labels_are_refused(pass_labels, fail_labels, message):
    with pytest.raises(ValueError, match=message):
        LabelClassifier(pass_labels, fail_labels)


# JsonFieldClassifier


def test_json_field_stated_verdict_case_insensitive():
    reading = JsonFieldClassifier().read(answer('{"reasoning": "fine", "verdict": "PASS"}'))
    assert reading.status is Status.PASS
    assert reading.score == BooleanScore(True)
    assert reading.method == "stated"
    assert reading.reasoning == "fine"
    assert reading.confidence is None


def test_json_field_stated_confidence():
    classifier = JsonFieldClassifier(confidence_field="confidence")
    reading = classifier.read(answer('{"reasoning": "x", "verdict": "fail", "confidence": 0.8}'))
    assert reading.status is Status.FAIL
    assert reading.confidence == 0.8
    assert classifier.json_schema["required"] == ["reasoning", "verdict", "confidence"]


@pytest.mark.parametrize("value", ["1.5", '"high"', "true"])
def test_json_field_bad_stated_confidence_is_unreadable(value):
    classifier = JsonFieldClassifier(confidence_field="confidence")
    with pytest.raises(Unreadable, match="confidence"):
        classifier.read(answer(f'{{"verdict": "pass", "confidence": {value}}}'))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"reasoning": "fine"}', "no 'verdict' field"),
        ('{"verdict": "maybe"}', "not one of"),
        ("I think it passes", "no JSON"),
        ('["pass"]', "not an object"),
    ],
)
def test_json_field_unreadable_answers(text, message):
    with pytest.raises(Unreadable, match=message):
        JsonFieldClassifier().read(answer(text))


def test_json_field_logprobs_override_the_stated_word():
    response = with_logprobs(
        '{"verdict": "', ("pass", {"pass": 0.3, "fail": 0.7}), '", "reasoning": "hm"}'
    )
    reading = JsonFieldClassifier().read(response)
    assert reading.method == "logprobs"
    assert reading.status is Status.FAIL
    assert isinstance(reading.score, NumericScore)
    assert reading.score.value == pytest.approx(0.3)
    assert reading.confidence == pytest.approx(0.7)
    assert reading.details["stated"] == "pass"


def test_json_field_threshold_applies_to_the_probability():
    response = with_logprobs('{"verdict": "', ("pass", {"pass": 0.6, "fail": 0.4}), '"}')
    assert JsonFieldClassifier(threshold=0.5).read(response).status is Status.PASS
    assert JsonFieldClassifier(threshold=0.7).read(response).status is Status.FAIL


# ScoreClassifier


def test_score_from_json():
    reading = ScoreClassifier().read(answer('{"reasoning": "good", "score": 4}'))
    assert reading.status is Status.PASS
    assert reading.score == NumericScore(4, 1, 5)
    assert reading.reasoning == "good"
    assert reading.method == "stated"


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ("Score: 4", 4),
        ("Rating = 2. Too vague.", 2),
        ("I would give it 4/5 overall.", 4),
        (" 3 ", 3),
    ],
)
def test_score_from_text(text, score):
    reading = ScoreClassifier().read(answer(text))
    assert reading.score == NumericScore(score, 1, 5)
    assert reading.status is (Status.PASS if score >= 3 else Status.FAIL)


def test_a_digit_in_the_reasoning_is_not_the_score():
    with pytest.raises(Unreadable, match="no score"):
        ScoreClassifier().read(answer("Step 2 of the answer has 3 mistakes."))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Score: 7", "outside the scale"),
        ('{"score": 0}', "outside the scale"),
        ("Score: 3.5", "not an integer"),
        ('{"score": "four"}', "not a number"),
        ('{"score": true}', "not a number"),
    ],
)
def test_score_unreadable(text, message):
    with pytest.raises(Unreadable, match=message):
        ScoreClassifier().read(answer(text))


def test_score_non_integer_scale_accepts_fractions():
    reading = ScoreClassifier(0, 1, 0.5, integer=False).read(answer("Score: 0.75"))
    assert reading.score == NumericScore(0.75, 0, 1)
    assert reading.status is Status.PASS


def test_score_logprobs_expected_value_and_its_confidence():
    response = with_logprobs(
        '{"reasoning": "', ("2", {"2": 1.0}), ' errors", "score": ',
        ("3", {"1": 0.25, "3": 0.5, "5": 0.25}),
        "}",
    )  # fmt: skip
    reading = ScoreClassifier().read(response)
    assert reading.method == "logprobs"
    # The "2" inside the reasoning is not read: only the value after "score".
    assert reading.score.value == pytest.approx(3.0)
    assert (reading.score.min, reading.score.max) == (1, 5)
    assert reading.details["stated"] == 3
    expected = ordinal_confidence({1: 0.25, 2: 0, 3: 0.5, 4: 0, 5: 0.25}, 4)
    assert reading.confidence == pytest.approx(expected)
    assert 0.2 < reading.confidence < 0.4


def test_score_logprobs_decide_against_the_stated_score():
    response = with_logprobs('{"score": ', ("3", {"3": 0.4, "1": 0.6}), "}")
    reading = ScoreClassifier(threshold=3).read(response)
    assert reading.score.value == pytest.approx(1.8)
    assert reading.status is Status.FAIL


def test_ordinal_confidence_ends():
    assert ordinal_confidence({3: 1.0}, 4) == 1.0
    assert ordinal_confidence({1: 0.5, 5: 0.5}, 4) == 0.0
    assert ordinal_confidence({4: 0.5, 5: 0.5}, 4) == pytest.approx(0.75)


@pytest.mark.parametrize(("low", "high", "threshold"), [(5, 1, 3), (1, 5, 6)])
def test_score_bad_scale_is_refused(low, high, threshold):
    with pytest.raises(ValueError, match="ScoreClassifier"):
        ScoreClassifier(low, high, threshold)


# ProbabilityClassifier


def test_probability_at_the_first_label_token_merges_spellings():
    response = with_logprobs(("Yes", {"Yes": 0.6, " yes": 0.2, "No": 0.2}), " it is.")
    reading = ProbabilityClassifier().read(response)
    assert reading.status is Status.PASS
    assert isinstance(reading.score, NumericScore)
    assert reading.score.value == pytest.approx(0.8)
    assert reading.confidence == pytest.approx(0.8)
    assert reading.method == "logprobs"
    assert reading.reasoning == "P(yes) = 0.80"


def test_probability_at_a_json_field_with_reasoning():
    classifier = ProbabilityClassifier(field="verdict", reasoning_field="reason")
    response = with_logprobs(
        '{"verdict": "', ("no", {"no": 0.7, "yes": 0.3}), '", "reason": "too short"}'
    )
    reading = classifier.read(response)
    assert reading.status is Status.FAIL
    assert isinstance(reading.score, NumericScore)
    assert reading.score.value == pytest.approx(0.3)
    assert reading.confidence == pytest.approx(0.7)
    assert reading.reasoning == "too short"
    assert classifier.json_schema["properties"]["verdict"] == {
        "type": "string",
        "enum": ["yes", "no"],
    }


def test_probability_threshold():
    response = with_logprobs(("yes", {"yes": 0.55, "no": 0.45}))
    assert ProbabilityClassifier(threshold=0.5).read(response).status is Status.PASS
    assert ProbabilityClassifier(threshold=0.6).read(response).status is Status.FAIL


def test_probability_without_logprobs_is_unreadable():
    with pytest.raises(Unreadable, match="no token log-probabilities"):
        ProbabilityClassifier().read(answer("yes"))


def test_probability_without_a_label_token_is_unreadable():
    with pytest.raises(Unreadable, match="no token"):
        ProbabilityClassifier().read(with_logprobs(("Perhaps", {"Perhaps": 0.9, "yes": 0.1})))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"labels": ["yes"]}, "two labels"),
        ({"pass_labels": ["maybe"]}, "not among"),
        ({"threshold": 1.0}, "strictly between"),
    ],
)
def test_probability_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ProbabilityClassifier(**kwargs)
