"""Costs: token counts priced from an editable table; an unknown model's cost is unknown."""

from pathlib import Path

import pytest

from jurist.core import Usage
from jurist.llm import Request, Response
from jurist.llm._cost import ModelPrice, Priced, PriceTable
from scripted import ScriptedModel, answer

TABLE = PriceTable.load()
MILLION = 1_000_000


def usage(input_tokens: int, output_tokens: int) -> Usage:
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens, calls=1)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai:gpt-4o", 2.50 + 10.00),
        ("openai:gpt-4o-mini", 0.15 + 0.60),
        ("openai:gpt-4.1-nano", 0.10 + 0.40),
        ("anthropic:claude-3-5-haiku-20241022", 0.80 + 4.00),
        ("anthropic:claude-sonnet-4-20250514", 3.00 + 15.00),
        ("anthropic:claude-opus-4-1-20250805", 15.00 + 75.00),
    ],
)
def test_the_shipped_table_prices_known_models(model: str, expected: float):
    assert TABLE.cost(model, usage(MILLION, MILLION)) == pytest.approx(expected)


def test_input_and_output_tokens_have_their_own_prices():
    assert TABLE.cost("openai:gpt-4o", usage(1000, 500)) == pytest.approx(
        (1000 * 2.50 + 500 * 10.00) / MILLION
    )


@pytest.mark.parametrize(
    "model",
    [
        "openai:gpt-unknown",
        "openai:gpt-4o-mini-audio",  # near a known name is not a known name
        "mystery:gpt-4o",
        "gpt-4o",
        "openai-compatible:llama@http://localhost:8000/v1",
    ],
)
def test_an_unknown_model_has_an_unknown_cost(model: str):
    assert TABLE.cost(model, usage(10, 10)) is None


@pytest.mark.parametrize("model", ["local:qwen2.5-1.5b", "local:/models/judge.gguf"])
def test_local_models_cost_nothing(model: str):
    assert TABLE.cost(model, usage(MILLION, MILLION)) == 0.0


def test_a_custom_price_file_with_exact_names_and_patterns(tmp_path: Path):
    path = tmp_path / "prices.toml"
    path.write_text(
        """
[acme]
"rocket*" = { input = 1.0, output = 2.0 }
"rocket-mini*" = { input = 0.5, output = 1.0 }
"rocket-mini-special" = { input = 9, output = 9 }
""",
        encoding="utf-8",
    )
    table = PriceTable.load(path)
    assert table.price("acme:rocket-large") == ModelPrice(1.0, 2.0)
    assert table.price("acme:rocket-mini-2") == ModelPrice(0.5, 1.0)  # the longer pattern
    assert table.price("acme:rocket-mini-special") == ModelPrice(9.0, 9.0)  # the exact name
    assert table.price("openai:gpt-4o") is None  # a custom file replaces the shipped one


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[acme\n", "not valid TOML"),
        ('acme = "cheap"', "must be a table"),
        ('[acme]\n"m" = { input = 1 }', "acme 'm' must be"),
        ('[acme]\n"m" = { input = -1, output = 1 }', "numbers >= 0"),
    ],
)
def test_a_bad_price_file_says_what_is_wrong(tmp_path: Path, content: str, problem: str):
    path = tmp_path / "prices.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=problem):
        PriceTable.load(path)


async def test_priced_fills_in_the_cost():
    model = ScriptedModel("openai:gpt-4o-mini", [answer(input_tokens=2000, output_tokens=1000)])
    response = await Priced(model).complete(Request.of("hi"))
    assert response.usage.cost_usd == pytest.approx((2000 * 0.15 + 1000 * 0.60) / MILLION)
    assert response.usage.input_tokens == 2000


async def test_priced_leaves_an_unknown_models_cost_unknown():
    model = ScriptedModel("openai:gpt-unknown", [answer()])
    assert (await Priced(model, TABLE).complete(Request.of("hi"))).usage.cost_usd is None


async def test_a_cached_answer_stays_free():
    hit = Response("yes", usage=Usage(MILLION, MILLION, cost_usd=0.0, calls=1, cached_calls=1))
    model = ScriptedModel("openai:gpt-4o", [hit])
    assert (await Priced(model, TABLE).complete(Request.of("hi"))).usage.cost_usd == 0.0
