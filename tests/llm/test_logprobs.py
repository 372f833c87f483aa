import math

import pytest

from jurist.llm import TokenLogprob, TopLogprob
from jurist.llm._logprobs import label_probabilities


def token(text: str, logprob: float, *top: tuple[str, float]) -> TokenLogprob:
    return TokenLogprob(text, logprob, tuple(TopLogprob(t, lp) for t, lp in top))


def test_renormalises_over_the_labels_and_merges_spellings():
    answer = [
        token("{", -0.1),
        token('"', -0.1),
        token(
            "Yes",
            math.log(0.5),
            ("Yes", math.log(0.5)),
            (" yes", math.log(0.1)),
            ("No", math.log(0.2)),
            ("Maybe", math.log(0.2)),
        ),
    ]
    probabilities = label_probabilities(answer, ["yes", "no"])
    assert probabilities == pytest.approx({"yes": 0.75, "no": 0.25})


def test_the_chosen_token_counts_even_outside_the_top_list():
    answer = [token("no", math.log(0.1), ("yes", math.log(0.3)))]
    assert label_probabilities(answer, ["yes", "no"]) == pytest.approx({"yes": 0.75, "no": 0.25})


def test_none_when_no_token_is_a_label():
    assert label_probabilities([token("Perhaps", -0.1, ("Yes", -1.0))], ["yes", "no"]) is None
    assert label_probabilities(None, ["yes", "no"]) is None
    assert label_probabilities([], ["yes"]) is None


def test_the_first_label_token_decides():
    answer = [token("no", math.log(0.9), ("no", math.log(0.9))), token("yes", 0.0)]
    assert label_probabilities(answer, ["yes", "no"])["no"] == pytest.approx(1.0)
