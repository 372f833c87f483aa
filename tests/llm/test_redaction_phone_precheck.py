"""The phone recognizer skips phonenumbers' matchers for a text without a digit, where they
cannot find a candidate, and still hands them every text with one, in any script."""

import phonenumbers
import pytest

from jurist.llm import PresidioRedactor
from jurist.llm._pii_recognizers import phone_recognizer

# 030 1234567 in full-width digits.
FULLWIDTH = "030 1234567".translate({ord(d): 0xFF10 + int(d) for d in "0123456789"})


@pytest.fixture
def matchers(monkeypatch):
    """The texts a PhoneNumberMatcher was built for."""
    built: list[str] = []
    real = phonenumbers.PhoneNumberMatcher

    def counting(text, *args, **kwargs):
        built.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(phonenumbers, "PhoneNumberMatcher", counting)
    return built


def test_a_text_without_a_digit_builds_no_matcher(matchers):
    recognizer = phone_recognizer(["phone"])
    assert recognizer.analyze("Please ring Maria about the parcel", ["PHONE_NUMBER"], None) == []
    assert matchers == []


@pytest.mark.parametrize(
    "text",
    ["call me on +49 30 1234567", "call me on ٠٣٠ ١٢٣٤٥٦٧", "call me on " + FULLWIDTH],
)
def test_a_text_with_a_digit_in_any_script_is_matched_as_before(matchers, text):
    recognizer = phone_recognizer(["phone"])
    found = recognizer.analyze(text, ["PHONE_NUMBER"], None)
    assert matchers  # one matcher per region
    assert set(matchers) == {text}
    assert [(f.start, f.end) for f in found] == [(11, len(text))]


def test_the_redactor_still_replaces_a_number_in_another_script():
    assert PresidioRedactor().redact("call me on ٠٣٠ ١٢٣٤٥٦٧") == "call me on <PHONE_NUMBER>"
