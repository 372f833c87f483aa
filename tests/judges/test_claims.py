"""Claims: model extraction, the sentence fallback, and evidence checks in the source."""

import json

import pytest

from jurist.judges import (
    ClaimExtractor,
    Extraction,
    QuoteMatch,
    match_quote,
    nearest_sentence,
    quote_in_source,
)
from jurist.judges._claims import sentence_claims, split_sentences
from jurist.llm import ErrorKind, ModelError
from scripted import ScriptedModel, answer

SUMMARY = "Dr. Smith founded Acme Inc. in 1999. It employs 3.5 thousand people! Is it big?"


async def test_model_claims_are_read_cleaned_and_limited():
    listed = ["Anna is  a baker.", "Anna is a baker.", " ", "Carl was born in 1900."]
    model = ScriptedModel(script=[answer(json.dumps({"claims": listed}))])
    output = "Anna is a baker. Carl was born in 1900."
    claims = await ClaimExtractor(model, max_claims=5).extract(output)
    assert claims.claims == ("Anna is a baker.", "Carl was born in 1900.")
    assert claims.extraction is Extraction.MODEL
    assert claims.fallback_cause is None
    assert claims.usage is not None
    assert claims.usage.calls == 1
    request = model.requests[0]
    assert request.json_schema["properties"]["claims"]["maxItems"] == 5
    # The output is fenced data and the instruction comes after it.
    prompt = request.messages[-1].content
    assert prompt.index(output) < prompt.index("List the factual claims")


async def test_claims_the_output_does_not_say_are_left_out_and_reported():
    output = "The US suspended talks with Russia over the war."
    listed = [
        "The US suspended talks with Russia.",
        "Russia is a country.",
        "Talks are a form of communication between countries.",
        "The US suspended talks with Russia in 2019.",
    ]
    model = ScriptedModel(script=[answer(json.dumps({"claims": listed}))])
    claims = await ClaimExtractor(model).extract(output)
    assert claims.claims == ("The US suspended talks with Russia.",)
    assert claims.untraceable == tuple(listed[1:])


async def test_near_repeats_are_one_claim_and_the_list_is_bounded_by_the_sentences():
    output = "The bridge closed on Monday."
    listed = ["The bridge closed on Monday.", "On Monday, the bridge closed.", "The bridge closed."]
    model = ScriptedModel(script=[answer(json.dumps({"claims": listed}))])
    claims = await ClaimExtractor(model, max_claims=12).extract(output)
    assert claims.claims == ("The bridge closed on Monday.", "The bridge closed.")
    # One sentence states a few facts at most: the answer's list closes there.
    assert model.requests[0].json_schema["properties"]["claims"]["maxItems"] == 4


async def test_a_model_failure_falls_back_to_sentences_and_says_so():
    model = ScriptedModel(script=[ModelError(ErrorKind.TIMEOUT, "slow")])
    claims = await ClaimExtractor(model).extract(SUMMARY)
    assert claims.extraction is Extraction.SENTENCES
    assert claims.fallback_cause == "timeout"
    assert claims.claims == (
        "Dr. Smith founded Acme Inc. in 1999.",
        "It employs 3.5 thousand people!",
    )


async def test_an_unreadable_answer_falls_back_and_keeps_the_usage():
    model = ScriptedModel(script=[answer('{"claims": "not a list"}')])
    claims = await ClaimExtractor(model).extract("The sky is blue today.")
    assert claims.extraction is Extraction.SENTENCES
    assert claims.fallback_cause == "unparseable"
    assert "claims" in claims.fallback_reason
    assert claims.usage is not None
    assert claims.claims == ("The sky is blue today.",)


async def test_no_output_means_no_claims_and_no_call():
    model = ScriptedModel(script=[])
    claims = await ClaimExtractor(model).extract("   ")
    assert claims.claims == ()
    assert model.calls == 0


def test_max_claims_must_be_positive():
    with pytest.raises(ValueError, match="max_claims"):
        ClaimExtractor(ScriptedModel(), max_claims=0)


def test_sentences_keep_abbreviations_initials_and_decimals_together():
    text = (
        "Mr. J. R. Smith paid $3.5 million. The U.S. team won. Then it rained.\n\n"
        "- A list item here"
    )
    assert split_sentences(text) == [
        "Mr. J. R. Smith paid $3.5 million.",
        "The U.S. team won.",
        "Then it rained.",
        "- A list item here",
    ]


def test_sentence_claims_drop_questions_fragments_and_list_markers():
    text = "Is it true? Yes. The bridge opened in 1932.\n1. The tower is 300 m tall."
    assert sentence_claims(text) == ["The bridge opened in 1932.", "The tower is 300 m tall."]


SOURCE = (
    "The Eiffel Tower was completed in 1889 for the World\u2019s Fair.\n"
    "It is 330   metres tall. About seven million people visit it each year."
)


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ("It is 330 metres tall.", True),  # whitespace differs
        ("the eiffel tower was completed in 1889 for the world's fair", True),  # case, apostrophe
        ("The Eiffel Tower was completed ... for the World's Fair.", True),  # an ellipsis
        ("The Eiffel Tower was completed in 1925.", False),  # invented
        ("for the World's Fair ... The Eiffel Tower", False),  # pieces out of order
        ("", False),
        ("...", False),
        # Whole tokens only: not a number inside a longer one, nor a word inside a word.
        ("It is 33 metres tall", False),
        ("It is 330 metre", False),
        ("he Eiffel Tower", False),
        ("The Eiffel Tower", True),  # at the very start of the source
        ("visit it each year.", True),  # at the very end
        ("seven million people visit it each years", False),
    ],
)
def test_quotes_count_only_when_the_source_holds_them(quote, found):
    assert quote_in_source(quote, SOURCE) is found


def test_nearest_sentence_is_the_one_sharing_most_content_words():
    assert nearest_sentence("The tower has seven million visitors a year", SOURCE) == (
        "About seven million people visit it each year."
    )
    assert nearest_sentence("Bananas are yellow", SOURCE) == ""


ARTICLE = (
    "Paul Merson has restarted his row with Andros Townsend after the Tottenham midfielder "
    "was brought on with only seven minutes remaining in his team's 0-0 draw with Burnley. "
    "The campaign images shows the singer stood against a blurred city background. "
    "The new library will cost 4 million dollars and will open in 2027 next to the town hall."
)


@pytest.mark.parametrize(
    ("quote", "match"),
    [
        ("The campaign images shows the singer stood", QuoteMatch.EXACT),
        # A typo "corrected", a pronoun changed: still the source's sentence.
        (
            "The campaign images show the singer stood against a blurred city background.",
            QuoteMatch.CLOSE,
        ),
        (
            "the Tottenham midfielder was brought on with only seven minutes remaining in their "
            "team's 0-0 draw with Burnley",
            QuoteMatch.CLOSE,
        ),
        # A changed number or name is the hallucination itself: never close.
        (
            "The new library will cost 40 million dollars and will open in 2027 next to the town "
            "hall.",
            QuoteMatch.NONE,
        ),
        (
            "Paul Merson has restarted his row with Harry Kane after the Tottenham midfielder was "
            "brought on",
            QuoteMatch.NONE,
        ),
        # Short quotes must be exact: one word in five is a different statement.
        ("The library will cost dollars", QuoteMatch.NONE),
        (
            "A sentence the article does not have at all, about something else entirely here.",
            QuoteMatch.NONE,
        ),
    ],
)
def test_a_close_quote_points_at_a_real_sentence_but_a_changed_fact_does_not(quote, match):
    assert match_quote(quote, ARTICLE) is match


def test_tokenized_lower_case_text_splits_at_marks_standing_alone():
    text = "paul merson was brought on . andros townsend scored in the 83rd minute . he left ."
    assert split_sentences(text) == [
        "paul merson was brought on .",
        "andros townsend scored in the 83rd minute .",
        "he left .",
    ]


def test_a_lone_closing_quote_joins_the_sentence_before_it():
    text = "merson put on twitter . ' if he can get in then anybody can . '"
    assert split_sentences(text) == [
        "merson put on twitter .",
        "' if he can get in then anybody can . '",
    ]
