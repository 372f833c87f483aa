"""RegexJudge, ContainsJudge and LengthJudge on both sides of each rule."""

import re

import pytest

from jurist.core import BooleanScore, Context, Judgment, NumericScore, Status, judge_sync
from jurist.judges import ContainsJudge, LengthJudge, RegexJudge


def judge(judge_, output: object) -> Judgment:
    return judge_sync(judge_, Context("write something", output=output))


# RegexJudge


def test_regex_must_match_passes_and_quotes_the_match():
    result = judge(RegexJudge(r"order #\d+"), "Your order #4521 has shipped.")
    assert result.status is Status.PASS
    assert result.score == BooleanScore(True)
    assert "'order #4521'" in result.reasoning
    assert result.metadata["match"] == "order #4521"
    assert result.metadata["span"] == (5, 16)


def test_regex_must_match_fails_without_a_match():
    result = judge(RegexJudge(r"order #\d+"), "Your parcel has shipped.")
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert "no match" in result.reasoning


def test_regex_quote_of_a_long_match_is_truncated():
    result = judge(RegexJudge(r"a+"), "a" * 500)
    assert result.status is Status.PASS
    assert len(result.metadata["match"]) == 80
    assert result.metadata["match"].endswith("…")
    assert len(result.reasoning) < 200


def test_regex_must_not_match():
    forbidden = RegexJudge(r"(?i)as an ai", must_match=False)
    clean = judge(forbidden, "Here is the answer.")
    assert clean.status is Status.PASS
    dirty = judge(forbidden, "As an AI, I cannot do that.")
    assert dirty.status is Status.FAIL
    assert "'As an AI'" in dirty.reasoning
    assert [(c.name, c.passed) for c in dirty.checks] == [("no_match", False)]


def test_regex_flags_and_compiled_patterns():
    assert judge(RegexJudge("^done$", flags=re.MULTILINE), "step\ndone\n").passed
    assert not judge(RegexJudge("^done$"), "step\ndone\n").passed
    assert judge(RegexJudge(re.compile("DONE", re.IGNORECASE)), "done").passed


def test_regex_searches_json_of_non_text_output():
    assert judge(RegexJudge(r'"total": 3'), {"total": 3}).passed


def test_regex_bad_pattern_is_rejected_naming_it():
    with pytest.raises(ValueError, match=r"pattern '\(unclosed' is not a valid regex"):
        RegexJudge("(unclosed")
    with pytest.raises(TypeError, match="pattern must be"):
        RegexJudge(42)
    with pytest.raises(ValueError, match="flags"):
        RegexJudge(re.compile("x"), flags=re.IGNORECASE)


# ContainsJudge


def test_contains_all_passes_when_every_keyword_is_found():
    result = judge(ContainsJudge(["refund", "30 days"]), "Refunds are paid within 30 DAYS.")
    assert result.status is Status.PASS
    assert result.score == NumericScore(1.0)
    assert [(c.name, c.passed) for c in result.checks] == [("refund", True), ("30 days", True)]


def test_contains_all_fails_naming_the_missing_keywords():
    result = judge(ContainsJudge(["refund", "30 days", "receipt"]), "Refunds are paid.")
    assert result.status is Status.FAIL
    assert result.score == NumericScore(1 / 3)
    assert "'30 days', 'receipt'" in result.reasoning
    assert "refund'" not in result.reasoning
    assert result.metadata["missing"] == ("30 days", "receipt")
    assert [c.passed for c in result.checks] == [True, False, False]
    assert [c.message for c in result.checks] == ["found", "missing", "missing"]


def test_contains_any():
    any_of = ContainsJudge(["email", "phone"], mode="any")
    one = judge(any_of, "Call our phone line.")
    assert one.status is Status.PASS
    assert one.score == NumericScore(0.5)
    assert "'phone'" in one.reasoning
    none = judge(any_of, "Write to us.")
    assert none.status is Status.FAIL
    assert none.score == NumericScore(0.0)
    assert "'email', 'phone'" in none.reasoning


def test_contains_case_sensitivity():
    assert judge(ContainsJudge("Refund"), "no REFUND here").passed
    strict = ContainsJudge("Refund", case_sensitive=True)
    assert not judge(strict, "no REFUND here").passed
    assert judge(strict, "a Refund here").passed


def test_contains_a_single_string_is_one_keyword():
    single = ContainsJudge("30 days")
    assert single.keywords == ("30 days",)
    assert not judge(single, "3 days").passed


def test_contains_bad_arguments():
    with pytest.raises(ValueError, match="at least one keyword"):
        ContainsJudge([])
    with pytest.raises(ValueError, match=r"keywords\[1\] is empty"):
        ContainsJudge(["a", ""])
    with pytest.raises(TypeError, match=r"keywords\[0\] is a int"):
        ContainsJudge([3])
    with pytest.raises(TypeError, match="keywords must be"):
        ContainsJudge(3)
    with pytest.raises(ValueError, match="mode must be 'all' or 'any', not 'most'"):
        ContainsJudge("a", mode="most")


# LengthJudge


@pytest.mark.parametrize(
    ("bounds", "output", "status", "check"),
    [
        ({"min_chars": 5}, "12345", Status.PASS, ("min_chars", True, "5 chars, at least 5")),
        ({"min_chars": 6}, "12345", Status.FAIL, ("min_chars", False, "5 chars, at least 6")),
        ({"max_chars": 5}, "12345", Status.PASS, ("max_chars", True, "5 chars, at most 5")),
        ({"max_chars": 4}, "12345", Status.FAIL, ("max_chars", False, "5 chars, at most 4")),
        ({"min_words": 3}, " a\tb\nc ", Status.PASS, ("min_words", True, "3 words, at least 3")),
        ({"min_words": 4}, "a b c", Status.FAIL, ("min_words", False, "3 words, at least 4")),
        ({"max_words": 3}, "a b c", Status.PASS, ("max_words", True, "3 words, at most 3")),
        ({"max_words": 2}, "a b c", Status.FAIL, ("max_words", False, "3 words, at most 2")),
    ],
)
def test_length_each_bound(bounds, output, status, check):
    result = judge(LengthJudge(**bounds), output)
    assert result.status is status
    assert result.score == BooleanScore(status is Status.PASS)
    assert [(c.name, c.passed, c.message) for c in result.checks] == [check]


def test_length_one_check_per_bound_and_failures_in_the_reasoning():
    result = judge(LengthJudge(min_chars=1, max_chars=10, max_words=1), "two words here")
    assert result.status is Status.FAIL
    assert [(c.name, c.passed) for c in result.checks] == [
        ("min_chars", True),
        ("max_chars", False),
        ("max_words", False),
    ]
    assert "max_chars: 14 chars, at most 10" in result.reasoning
    assert "max_words: 3 words, at most 1" in result.reasoning
    assert result.metadata == {"chars": 14, "words": 3}


def test_length_of_no_output_is_zero():
    result = judge(LengthJudge(min_chars=1), None)
    assert result.status is Status.FAIL
    assert result.metadata == {"chars": 0, "words": 0}


def test_length_bad_bounds():
    with pytest.raises(ValueError, match="at least one of min_chars"):
        LengthJudge()
    with pytest.raises(ValueError, match="max_words must be >= 0"):
        LengthJudge(max_words=-1)
    with pytest.raises(ValueError, match=r"min_chars \(10\) must not exceed max_chars \(5\)"):
        LengthJudge(min_chars=10, max_chars=5)
    with pytest.raises(ValueError, match=r"min_words .* max_words"):
        LengthJudge(min_words=3, max_words=2)
    with pytest.raises(TypeError, match="min_chars must be an int"):
        LengthJudge(min_chars=2.5)
    with pytest.raises(TypeError, match="max_chars must be an int"):
        LengthJudge(max_chars=True)
    assert LengthJudge(min_chars=0, max_chars=0).max_chars == 0
