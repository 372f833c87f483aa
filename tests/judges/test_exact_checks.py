"""Exact checks: numbers, months, names, negation and roles compared by a program."""

from decimal import Decimal

import pytest

from jurist.judges._evidence import quote_in_source
from jurist.judges._exact import Check, findings
from jurist.judges._quantities import Kind, quantities

SOURCE = (
    "The council approved a 4 million dollar project in March 2021. "
    "Smith visited Jones's training camp on Tuesday. The mayor did not attend. "
    "Rooney scored the winner, assisted by Giggs. Attendance rose 12.5 per cent to 2,000."
)


def _checks(claim: str, evidence: str = "") -> list[Check]:
    return [finding.check for finding in findings(claim, evidence, SOURCE)]


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("a 40 million dollar project", Decimal(40_000_000), Kind.MONEY),
        ("it cost $4m", Decimal(4_000_000), Kind.MONEY),
        ("four million pounds", Decimal(4_000_000), Kind.PLAIN),
        ("up 12.5 per cent", Decimal("12.5"), Kind.PERCENT),
        ("in 2019", Decimal(2019), Kind.YEAR),
        ("she came 3rd", Decimal(3), Kind.ORDINAL),
        ("1,200 people", Decimal(1200), Kind.PLAIN),
    ],
)
def test_a_quantity_keeps_its_scale_and_kind(text: str, value: Decimal, kind: Kind) -> None:
    [found] = quantities(text)
    assert (found.value, found.kind) == (value, kind)


def test_a_number_is_never_read_inside_a_longer_one() -> None:
    assert [q.value for q in quantities("20000 and 2000.5")] == [20000, Decimal("2000.5")]


def test_a_number_the_source_states_otherwise_is_named_with_both_values() -> None:
    [finding] = findings(
        "The 40 million dollar project was approved.",
        "The council approved a 4 million dollar project in March 2021.",
        SOURCE,
    )
    assert finding.check is Check.NUMBER
    assert "40 million" in finding.reason
    assert "4 million" in finding.reason


@pytest.mark.parametrize(
    "claim",
    [
        "The project cost about $4 million.",  # restated with its unit
        "Attendance rose about 12 per cent.",  # rounded to the claim's precision
        "Attendance reached 2000.",  # the same number without its comma
        "The council approved the project in 2021.",
        "Three goals were not scored.",  # no digits: nothing to compare
    ],
)
def test_a_restated_or_rounded_number_passes(claim: str) -> None:
    assert Check.NUMBER not in _checks(claim)


def test_a_month_and_a_name_the_source_lacks_are_found() -> None:
    assert _checks("It was approved in April 2021.", "approved ... in March 2021") == [Check.MONTH]
    assert _checks("Officials from Brazil approved it.") == [Check.NAME]
    assert _checks("The council approved it in March.") == []


def test_a_negation_flip_against_the_evidence_is_found() -> None:
    assert _checks("The mayor attended.", "The mayor did not attend.") == [Check.NEGATION]
    assert _checks("The mayor did not attend.", "The mayor did not attend.") == []
    assert _checks(
        "The council approved the budget.", "The council did not approve the budget."
    ) == [Check.NEGATION]


def test_a_negation_about_something_else_in_the_evidence_is_not_a_flip() -> None:
    # From a SummEval development summary: the claim is true; the quote's "no" is about
    # the club's plans, not about who the president is.
    claim = "Josep Maria Bartomeu is the Barcelona club president."
    evidence = (
        "Barcelona club president Josep Maria Bartomeu has insisted that the La Liga leaders "
        "have no plans to replace Luis Enrique."
    )
    assert findings(claim, evidence, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Jones visited Smith's training camp.", "Smith visited Jones's training camp on Tuesday."),
        ("Giggs scored the winner.", "Rooney scored the winner, assisted by Giggs."),
    ],
)
def test_who_did_what_swapped_is_found(claim: str, evidence: str) -> None:
    assert _checks(claim, evidence) == [Check.ROLE]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Smith visited Jones's camp.", "Smith visited Jones's training camp on Tuesday."),
        ("Rooney scored the winner.", "Rooney scored the winner, assisted by Giggs."),
        ("Giggs assisted Rooney's winner.", "Rooney scored the winner, assisted by Giggs."),
        ("Giggs set up the winner for Rooney.", "Rooney scored the winner, assisted by Giggs."),
    ],
)
def test_the_same_roles_said_differently_pass(claim: str, evidence: str) -> None:
    assert _checks(claim, evidence) == []


@pytest.mark.parametrize(
    "quote",
    [
        "QPR's 3-3 draw with West Brom",  # the source is lower-cased and tokenized
        "3 - 3 draw",
        "\u201cthe crowd of 20000\u201d",
        "draw ... cheered",
    ],
)
def test_a_quote_is_found_whatever_its_case_spacing_and_punctuation(quote: str) -> None:
    source = "qpr 's 3-3 draw with west brom on saturday . the crowd of 20000 cheered ."
    assert quote_in_source(quote, source)


@pytest.mark.parametrize("quote", ["crowd of 2000", "Brom on Sat", "...", "  "])
def test_a_quote_matches_whole_tokens_only(quote: str) -> None:
    source = "qpr 's 3-3 draw with west brom on saturday . the crowd of 20000 cheered ."
    assert not quote_in_source(quote, source)


def test_arithmetic_and_counts_a_claim_gets_wrong_are_computed() -> None:
    source = "Compute 5 x 5 x 5. The word 'data' appears in this data sentence."
    assert Check.ARITHMETIC in [f.check for f in findings("5 x 5 x 5 = 625.", "", source)]
    assert Check.ARITHMETIC not in [f.check for f in findings("5 x 5 x 5 = 125.", "", source)]
    counted = findings("The word 'data' appears three times.", "", source)
    assert [f.found for f in counted if f.check is Check.COUNT] == ["2"]
