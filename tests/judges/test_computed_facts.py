"""Arithmetic and counts an output states are computed, not judged."""

import pytest

from jurist.judges._computed import arithmetic_errors, count_errors, evaluate


def test_wrong_arithmetic_is_found_with_the_right_result() -> None:
    [wrong] = arithmetic_errors("So 5 x 5 x 5 = 625, as anyone can see.")
    assert (wrong.stated, wrong.computed) == ("625", "125")
    assert "125" in wrong.reason


@pytest.mark.parametrize(
    "text", ["5 x 5 x 5 = 125", "2+2=4", "10 / 4 = 2.5", "7*3 is 21", "1/3 = 0.33", "a 3-3 draw"]
)
def test_right_arithmetic_and_lookalikes_pass(text: str) -> None:
    assert arithmetic_errors(text) == []


def test_the_evaluator_refuses_anything_but_arithmetic() -> None:
    for expression in ("__import__('os')", "2 ** 100000", "1 / 0", "len('x')"):
        with pytest.raises(ValueError, match=r"arithmetic|evaluate"):
            evaluate(expression)


def test_a_wrong_count_over_the_input_is_found() -> None:
    text = "Big data is here. Databases hold data."
    assert count_errors('The word "data" appears twice in the text.', text) == []
    [wrong] = count_errors("The word 'data' appears three times.", text)
    assert wrong.computed == "2"
    assert count_errors("The letter r appears 3 times in strawberry", "strawberry") == []
