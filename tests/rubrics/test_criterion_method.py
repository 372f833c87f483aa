"""A rubric criterion names how it is scored: a known method, with an option that method
takes, written as one `method: claims:mean` or as `method` and `option`."""

import pytest
from pydantic import ValidationError

from jurist.rubrics import CriterionMethod, RubricCriterion

ANCHORS = {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}


def criterion(name: str = "consistency", **fields: object) -> RubricCriterion:
    return RubricCriterion.model_validate(
        {"name": name, "description": "d", "anchors": ANCHORS, **fields}
    )


def test_a_criterion_is_plain_unless_it_names_a_method():
    assert criterion().method is CriterionMethod.PLAIN
    assert criterion().method_name == "plain"


@pytest.mark.parametrize(
    ("fields", "method", "option"),
    [
        ({"method": "claims"}, CriterionMethod.CLAIMS, ""),
        ({"method": "claims:mean"}, CriterionMethod.CLAIMS, "mean"),
        ({"method": "claims", "option": "share"}, CriterionMethod.CLAIMS, "share"),
        ({"method": "coverage:focus"}, CriterionMethod.COVERAGE, "focus"),
        ({"method": "sentences:fluency"}, CriterionMethod.SENTENCES, "fluency"),
    ],
)
def test_the_method_and_its_option(fields, method, option):
    read = criterion(**fields)
    assert (read.method, read.option) == (method, option)
    assert criterion(**read.model_dump()) == read  # a dump reads back the same


@pytest.mark.parametrize(
    ("name", "fields", "message"),
    [
        ("consistency", {"method": "magic"}, "'plain', 'claims', 'coverage' or 'sentences'"),
        ("consistency", {"method": "claims:median"}, "takes only ['min', 'mean', 'share']"),
        ("consistency", {"method": "plain:5"}, "takes no option"),
        ("consistency", {"method": "coverage", "option": "recall"}, "takes only ['focus']"),
        ("clarity", {"method": "sentences"}, "checks coherence or fluency"),
        ("consistency", {"method": "claims:mean", "option": "min"}, "give it once"),
    ],
)
def test_an_unknown_method_or_option_is_refused(name, fields, message):
    with pytest.raises(ValidationError, match=message.replace("[", r"\[").replace("(", r"\(")):
        criterion(name, **fields)


def test_sentences_ask_the_question_the_criterion_is_named_for_or_its_option():
    assert criterion("fluency", method="sentences").sentence_question == "fluency"
    assert criterion("readability", method="sentences:fluency").sentence_question == "fluency"
