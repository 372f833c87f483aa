"""The budget: a call whose worst case does not fit is refused before the model is called, and
calls in flight cannot overshoot together."""

import asyncio
import logging
import re
from collections.abc import Callable

import pytest

from jurist.core import Usage
from jurist.llm import (
    Budget,
    Budgeted,
    ErrorKind,
    Message,
    ModelError,
    Request,
    Response,
    estimate_input_tokens,
)
from jurist.llm._cost import ModelPrice, PriceTable
from scripted import ScriptedModel, answer, gated, settle

# One input token costs 0.001 USD, one output token 0.002 USD.
TABLE = PriceTable({"test": {"scripted": ModelPrice(input=1000.0, output=2000.0)}})
# "abcdef" is 6 bytes: 2 tokens, and 5 for the message's role markers; 20 tokens out at most.
REQUEST = Request.of("abcdef", max_tokens=20)
WORST_TOKENS = 27
WORST_COST = 7 * 0.001 + 20 * 0.002
# answer() reports 10 tokens in and 5 out: 15 tokens, 0.02 USD.


def budgeted(budget: Budget, script: list, name: str = "test:scripted"):
    model = ScriptedModel(name, script)
    return model, Budgeted(model, budget, table=TABLE)


# The worst case


def test_the_worst_case_is_the_estimated_input_and_the_whole_output():
    _, model = budgeted(Budget(), [])
    worst = model.worst_case(REQUEST)
    assert (worst.input_tokens, worst.output_tokens) == (7, 20)
    assert worst.cost_usd == pytest.approx(WORST_COST)


def test_every_sample_may_use_the_whole_output():
    _, model = budgeted(Budget(), [])
    assert model.worst_case(Request.of("abcdef", max_tokens=20, n=3)).output_tokens == 60


def test_input_is_counted_in_bytes_so_text_outside_ascii_counts_more():
    assert estimate_input_tokens(Request.of("abcdef")) == 2 + 5
    assert estimate_input_tokens(Request.of("éééééé")) == 4 + 5  # 12 bytes
    assert estimate_input_tokens(Request.of("abcd")) == 2 + 5  # rounded up


def test_each_message_and_the_json_schema_count():
    two = Request((Message("system", "abc"), Message("user", "abc")))
    assert estimate_input_tokens(two) == 2 + 2 * 5
    schema = Request.of("abc", json_schema={"type": "object"})  # {"type": "object"}: 18 bytes
    assert estimate_input_tokens(schema) == 1 + 6 + 5


async def test_a_request_without_max_tokens_is_sent_with_the_default_cap():
    scripted = ScriptedModel(script=[answer()])
    model = Budgeted(scripted, Budget(max_tokens=1000), table=TABLE, default_max_tokens=64)
    request = Request.of("abcdef", max_tokens=None)
    assert model.worst_case(request).output_tokens == 64
    await model.complete(request)
    assert scripted.requests[0].max_tokens == 64


# Refused before the call


async def test_the_model_is_never_called_once_the_tokens_cannot_cover_the_next_call():
    scripted, model = budgeted(Budget(max_tokens=60), [answer()] * 4)
    for _ in range(3):  # 0 + 27, 15 + 27, 30 + 27 all fit within 60
        await model.complete(REQUEST)
    with pytest.raises(ModelError) as caught:
        await model.complete(REQUEST)  # 45 + 27 would pass 60
    assert scripted.calls == 3
    assert caught.value.kind is ErrorKind.BUDGET
    assert not caught.value.retryable
    assert caught.value.model == "test:scripted"
    assert caught.value.cause == (
        "max_tokens: this call may use up to 27 tokens, and 45 of the budget's 60 are "
        "spent or reserved"
    )
    assert model.budget.spent.total_tokens == 45


async def test_the_model_is_never_called_once_the_cost_cannot_cover_the_next_call():
    scripted, model = budgeted(Budget(max_cost_usd=0.1), [answer()] * 4)
    for _ in range(3):  # 0.02 each: 0.04 + 0.047 still fits within 0.1
        await model.complete(REQUEST)
    with pytest.raises(ModelError) as caught:
        await model.complete(REQUEST)  # 0.06 + 0.047 would pass 0.1
    assert scripted.calls == 3
    assert caught.value.kind is ErrorKind.BUDGET
    assert caught.value.cause.startswith("max_cost_usd: this call may cost up to 0.047000 USD")
    assert model.budget.spent_cost_usd == pytest.approx(0.06)


async def test_a_call_whose_worst_case_lands_exactly_on_the_limit_is_made():
    scripted, model = budgeted(Budget(max_tokens=WORST_TOKENS), [answer()])
    await model.complete(REQUEST)
    assert scripted.calls == 1


async def test_a_call_that_can_never_fit_is_refused_on_a_fresh_budget():
    scripted, model = budgeted(Budget(max_tokens=WORST_TOKENS - 1), [answer()])
    with pytest.raises(ModelError, match="budget"):
        await model.complete(REQUEST)
    assert scripted.calls == 0


def token_budget() -> Budget:
    return Budget(max_tokens=60)  # room for two worst cases (54), not three (81)


def cost_budget() -> Budget:
    return Budget(max_cost_usd=0.1)  # room for two worst cases (0.094), not three (0.141)


@pytest.mark.parametrize("make_budget", [token_budget, cost_budget])
async def test_concurrent_calls_cannot_overshoot_together(make_budget: Callable[[], Budget]):
    gate = asyncio.Event()
    budget = make_budget()
    scripted, model = budgeted(budget, [gated(gate, answer()) for _ in range(5)])
    calls = [asyncio.create_task(model.complete(REQUEST)) for _ in range(5)]
    await settle()
    assert scripted.calls == 2  # the other three were refused without a call
    assert budget.in_flight == 2
    refused = [call for call in calls if call.done()]
    assert len(refused) == 3
    assert all(isinstance(call.exception(), ModelError) for call in refused)
    gate.set()
    answered = await asyncio.gather(*(call for call in calls if call not in refused))
    assert len(answered) == 2
    assert budget.in_flight == 0
    assert budget.reserved_tokens == 0
    assert budget.spent.total_tokens == 30
    assert budget.spent.calls == 2


async def test_settled_usage_frees_room_for_the_next_call():
    gate = asyncio.Event()
    budget = token_budget()
    scripted, model = budgeted(budget, [gated(gate, answer()), gated(gate, answer()), answer()])
    first = [asyncio.create_task(model.complete(REQUEST)) for _ in range(2)]
    await settle()
    with pytest.raises(ModelError):
        await model.complete(REQUEST)  # 54 reserved + 27
    gate.set()
    await asyncio.gather(*first)
    await model.complete(REQUEST)  # 30 spent + 27 fits
    assert scripted.calls == 3


# Settling: what a call is charged


async def test_the_provider_cost_wins_over_the_table():
    usage = Usage(input_tokens=10, output_tokens=5, cost_usd=0.5, calls=1)
    _, model = budgeted(Budget(max_cost_usd=1.0), [Response("ok", usage=usage)])
    await model.complete(REQUEST)
    assert model.budget.spent_cost_usd == 0.5


async def test_a_cached_answer_costs_nothing():
    usage = Usage(input_tokens=10, output_tokens=5, calls=1, cached_calls=1)
    _, model = budgeted(Budget(max_tokens=100, max_cost_usd=1.0), [Response("ok", usage=usage)])
    await model.complete(REQUEST)
    assert model.budget.spent.total_tokens == 0
    assert model.budget.spent_cost_usd == 0.0
    assert model.budget.spent.cached_calls == 1


async def test_an_answer_without_token_counts_is_charged_its_worst_case():
    _, model = budgeted(Budget(max_tokens=100), [answer(input_tokens=0, output_tokens=0)])
    await model.complete(REQUEST)
    assert model.budget.spent.total_tokens == WORST_TOKENS
    assert model.budget.spent_cost_usd == pytest.approx(WORST_COST)


async def test_a_failed_call_gives_its_reservation_back():
    failure = ModelError(ErrorKind.SERVER_ERROR, "500")
    scripted, model = budgeted(Budget(max_tokens=WORST_TOKENS), [failure, answer()])
    with pytest.raises(ModelError) as caught:
        await model.complete(REQUEST)
    assert caught.value.kind is ErrorKind.SERVER_ERROR
    assert model.budget.reserved_tokens == 0
    assert model.budget.spent.total_tokens == 0
    await model.complete(REQUEST)  # the whole budget is still there
    assert scripted.calls == 2


async def test_a_cancelled_call_gives_its_reservation_back():
    gate = asyncio.Event()
    _, model = budgeted(Budget(max_tokens=WORST_TOKENS), [gated(gate, answer())])
    call = asyncio.create_task(model.complete(REQUEST))
    await settle()
    assert model.budget.reserved_tokens == WORST_TOKENS
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert model.budget.reserved_tokens == 0
    assert model.budget.in_flight == 0


async def test_models_sharing_a_budget_share_its_limit():
    budget = Budget(max_tokens=50)
    first, evaluator = budgeted(budget, [answer()])
    second, rewriter = budgeted(budget, [answer()])
    await evaluator.complete(REQUEST)  # 15 spent
    await rewriter.complete(REQUEST)  # 15 + 27 fits within 50; 30 spent
    with pytest.raises(ModelError):
        await evaluator.complete(REQUEST)  # 30 + 27 does not
    assert (first.calls, second.calls) == (1, 1)
    assert budget.spent.total_tokens == 30


# Unknown prices


async def test_an_unpriced_model_is_bounded_by_tokens_only_and_says_so(caplog):
    budget = Budget(max_cost_usd=0.01, max_tokens=60)
    scripted, model = budgeted(budget, [answer(model="test:unpriced")] * 4, "test:unpriced")
    assert not model.priced
    with caplog.at_level(logging.WARNING, logger="jurist.llm._budget"):
        for _ in range(3):  # far past 0.01 USD had they been priced
            await model.complete(REQUEST)
        with pytest.raises(ModelError, match="max_tokens"):
            await model.complete(REQUEST)
    assert scripted.calls == 3
    warnings = [r.getMessage() for r in caplog.records if r.name == "jurist.llm._budget"]
    assert warnings == [
        "budget: no price for model 'test:unpriced', so the cost limit of 0.01 USD cannot "
        "apply; only the token limit (60 tokens) bounds its calls"
    ]
    assert budget.unpriced_calls == 3
    assert budget.spent.cost_usd is None
    assert budget.spent_cost_usd == 0.0


async def test_an_unpriced_model_without_a_token_limit_is_unbounded_and_says_so(caplog):
    _, model = budgeted(Budget(max_cost_usd=0.01), [answer()], "test:unpriced")
    with caplog.at_level(logging.WARNING, logger="jurist.llm._budget"):
        await model.complete(REQUEST)
    assert "nothing bounds its calls: set a token limit" in caplog.text


async def test_no_warning_without_a_cost_limit(caplog):
    _, model = budgeted(Budget(max_tokens=100), [answer()], "test:unpriced")
    with caplog.at_level(logging.WARNING, logger="jurist.llm._budget"):
        await model.complete(REQUEST)
    assert caplog.records == []


async def test_the_embedded_model_is_priced_at_nothing_so_tokens_bound_it(caplog):
    scripted = ScriptedModel("local:judge", [answer(model="local:judge")] * 2)
    budget = Budget(max_cost_usd=1.0, max_tokens=40)
    model = Budgeted(scripted, budget)  # the shipped price table
    assert model.priced
    with caplog.at_level(logging.WARNING, logger="jurist.llm._budget"):
        await model.complete(REQUEST)
        with pytest.raises(ModelError, match="max_tokens"):
            await model.complete(REQUEST)  # 15 + 27 would pass 40
    assert caplog.records == []
    assert budget.spent_cost_usd == 0.0


# The budget itself


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_tokens": 0}, "Budget.max_tokens must be >= 1"),
        ({"max_cost_usd": 0.0}, "Budget.max_cost_usd must be a number > 0"),
        ({"max_cost_usd": float("nan")}, "Budget.max_cost_usd must be a number > 0"),
    ],
)
def test_an_invalid_budget_is_an_error_naming_the_limit(options: dict, message: str):
    with pytest.raises(ValueError, match=message):
        Budget(**options)


def test_an_invalid_default_cap_is_an_error():
    with pytest.raises(ValueError, match=re.escape("Budgeted.default_max_tokens must be >= 1")):
        Budgeted(ScriptedModel(), Budget(), default_max_tokens=0)


def test_a_reservation_settles_once():
    budget = Budget(max_tokens=100)
    reservation = budget.reserve(10, None, model="m")
    budget.settle(reservation, Usage(input_tokens=5, calls=1, cost_usd=0.0))
    with pytest.raises(ValueError, match="already settled or released"):
        budget.release(reservation)
    assert budget.spent.total_tokens == 5


def test_the_share_of_the_budget_used():
    budget = Budget(max_cost_usd=1.0, max_tokens=100)
    assert budget.fraction_used() == 0.0
    reservation = budget.reserve(10, 0.1, model="m")
    assert budget.fraction_used() == 0.0  # reserved is not spent
    budget.settle(reservation, Usage(input_tokens=80, calls=1, cost_usd=0.3))
    assert budget.fraction_used() == 0.8
    assert Budget().fraction_used() == 0.0
