"""Limits: per-call timeouts, concurrency (adaptive), and client-side rate limits."""

import asyncio

import pytest

from jurist.llm import (
    ConcurrencyLimited,
    ErrorKind,
    Message,
    ModelError,
    RateLimited,
    Request,
    TimeLimited,
    estimate_tokens,
)
from scripted import FakeClock, ScriptedModel, answer, gated, settle

REQUEST = Request.of("hello")
RATE_LIMITED = ModelError(ErrorKind.RATE_LIMITED, "429")


async def never_answers(request: Request):
    await asyncio.Event().wait()


# Timeouts


async def test_a_call_over_the_request_timeout_is_a_timeout_error():
    model = ScriptedModel(script=[never_answers])
    with pytest.raises(ModelError) as caught:
        await TimeLimited(model).complete(Request.of("hello", timeout_s=0.05))
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert caught.value.retryable
    assert "0.05 s" in caught.value.cause


async def test_the_default_timeout_applies_when_the_request_sets_none():
    model = ScriptedModel(script=[never_answers])
    limited = TimeLimited(model, default_timeout_s=0.05)
    with pytest.raises(ModelError) as caught:
        await limited.complete(Request.of("hello", timeout_s=None))
    assert caught.value.kind is ErrorKind.TIMEOUT


async def test_a_prompt_answer_and_an_unbounded_request_pass_through():
    model = ScriptedModel(script=[answer("fast"), answer("unbounded")])
    limited = TimeLimited(model)
    assert (await limited.complete(Request.of("a", timeout_s=5.0))).text == "fast"
    assert (await limited.complete(Request.of("b", timeout_s=None))).text == "unbounded"


async def test_a_timeout_raised_inside_the_model_is_a_timeout_error_too():
    model = ScriptedModel(script=[TimeoutError("socket read")])
    with pytest.raises(ModelError) as caught:
        await TimeLimited(model).complete(REQUEST)
    assert caught.value.kind is ErrorKind.TIMEOUT
    assert "socket read" in caught.value.cause


# Concurrency


async def test_no_more_calls_than_the_limit_are_in_flight():
    gate = asyncio.Event()
    model = ScriptedModel(script=[gated(gate, answer(str(i))) for i in range(5)])
    limited = ConcurrencyLimited(model, max_concurrency=2, adaptive=False)
    tasks = [asyncio.create_task(limited.complete(REQUEST)) for _ in range(5)]
    await settle()
    assert model.in_flight == 2
    assert model.calls == 2
    gate.set()
    responses = await asyncio.gather(*tasks)
    assert sorted(r.text for r in responses) == ["0", "1", "2", "3", "4"]
    assert model.max_in_flight == 2
    assert limited.in_flight == 0


async def test_each_rate_limit_after_the_last_halving_halves_the_limit_again():
    # Growth, the remembered level and probing: tests/llm/test_adaptive_concurrency.py.
    model = ScriptedModel(script=[RATE_LIMITED] * 3)
    limited = ConcurrencyLimited(model, max_concurrency=8)
    seen = []
    for _ in range(3):
        with pytest.raises(ModelError):
            await limited.complete(REQUEST)
        seen.append(limited.limit)
    assert seen == [4, 2, 1]


async def test_the_limit_never_falls_below_the_minimum():
    model = ScriptedModel(script=[RATE_LIMITED] * 5)
    limited = ConcurrencyLimited(model, max_concurrency=8, min_concurrency=3)
    for _ in range(5):
        with pytest.raises(ModelError):
            await limited.complete(REQUEST)
    assert limited.limit == 3


async def test_one_round_of_rate_limits_halves_the_limit_once():
    gate = asyncio.Event()
    model = ScriptedModel(script=[gated(gate, RATE_LIMITED) for _ in range(4)])
    limited = ConcurrencyLimited(model, max_concurrency=8)
    tasks = [asyncio.create_task(limited.complete(REQUEST)) for _ in range(4)]
    await settle()
    gate.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, ModelError) for r in results)
    assert limited.limit == 4


async def test_a_limit_shrinking_under_calls_in_flight_lets_them_drain_without_deadlock():
    gates = [asyncio.Event() for _ in range(6)]
    outcomes = [RATE_LIMITED, *(answer(str(i)) for i in range(1, 6))]
    model = ScriptedModel(
        script=[gated(gate, outcome) for gate, outcome in zip(gates, outcomes, strict=True)]
    )
    limited = ConcurrencyLimited(model, max_concurrency=4)
    tasks = [asyncio.create_task(limited.complete(REQUEST)) for _ in range(6)]
    await settle()
    assert model.in_flight == 4

    gates[0].set()  # rate-limited: the limit halves to 2 with 3 calls still in flight
    await settle()
    assert limited.limit == 2
    assert model.in_flight == 3
    gates[1].set()  # 2 in flight: still no room under the limit of 2
    await settle()
    assert model.in_flight == 2
    assert model.calls == 4
    gates[2].set()  # 1 in flight: a waiting call starts
    await settle()
    assert model.calls == 5
    assert model.in_flight == 2
    for gate in gates:
        gate.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[0], ModelError)
    assert [r.text for r in results[1:]] == ["1", "2", "3", "4", "5"]  # type: ignore[union-attr]
    assert limited.in_flight == 0


async def test_a_cancelled_waiter_does_not_leak_its_slot():
    gate = asyncio.Event()
    model = ScriptedModel(script=[gated(gate, answer("first")), answer("third")])
    limited = ConcurrencyLimited(model, max_concurrency=1, adaptive=False)
    first = asyncio.create_task(limited.complete(REQUEST))
    waiting = asyncio.create_task(limited.complete(REQUEST))
    await settle()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    gate.set()
    assert (await first).text == "first"
    assert (await limited.complete(REQUEST)).text == "third"
    assert limited.in_flight == 0
    assert model.calls == 2


def test_concurrency_bounds_are_checked():
    with pytest.raises(ValueError, match="min_concurrency"):
        ConcurrencyLimited(ScriptedModel(), max_concurrency=2, min_concurrency=3)


# Rate limits


def request_of(characters: int, max_tokens: int = 100) -> Request:
    return Request((Message("user", "x" * characters),), max_tokens=max_tokens)


# 285 bytes of input are estimated at 95 tokens and 5 for the message's role markers: with
# 100 tokens out, a request estimated at 200.
INPUT_OF_100 = 285


def test_the_token_estimate_is_the_estimated_input_plus_the_output_budget():
    assert estimate_tokens(request_of(INPUT_OF_100, max_tokens=100)) == 200
    assert estimate_tokens(Request.of("abcde", max_tokens=10, n=3, temperature=1.0)) == 2 + 5 + 30


async def test_requests_per_minute_spaces_calls_once_the_burst_is_spent():
    clock = FakeClock()
    model = ScriptedModel(script=[answer()] * 4)
    limited = RateLimited(model, requests_per_minute=2, clock=clock.now, sleep=clock.sleep)
    for _ in range(4):
        await limited.complete(REQUEST)
    assert clock.sleeps == [30.0, 30.0]  # a burst of two, then one every 30 s


async def test_reported_usage_below_the_estimate_gives_tokens_back():
    clock = FakeClock()
    model = ScriptedModel(script=[answer(input_tokens=15, output_tokens=5)] * 2)
    limited = RateLimited(model, tokens_per_minute=300, clock=clock.now, sleep=clock.sleep)
    await limited.complete(request_of(INPUT_OF_100))  # estimated 200, used 20
    await limited.complete(request_of(INPUT_OF_100))
    assert clock.sleeps == []


async def test_reported_usage_above_the_estimate_makes_the_next_call_wait():
    clock = FakeClock()
    model = ScriptedModel(script=[answer(input_tokens=400, output_tokens=100)] * 2)
    limited = RateLimited(model, tokens_per_minute=300, clock=clock.now, sleep=clock.sleep)
    await limited.complete(request_of(INPUT_OF_100))  # estimated 200, used 500: 200 tokens in debt
    await limited.complete(request_of(INPUT_OF_100))  # 400 in debt at 5 tokens a second
    assert clock.sleeps == [pytest.approx(80.0)]


async def test_the_bucket_refills_with_time():
    clock = FakeClock()
    model = ScriptedModel(script=[answer(input_tokens=150, output_tokens=50)] * 2)
    limited = RateLimited(model, tokens_per_minute=300, clock=clock.now, sleep=clock.sleep)
    await limited.complete(request_of(INPUT_OF_100))
    clock.time += 60
    await limited.complete(request_of(INPUT_OF_100))
    assert clock.sleeps == []


async def test_a_request_larger_than_the_bucket_waits_for_a_full_bucket_not_forever():
    clock = FakeClock()
    model = ScriptedModel(script=[answer(input_tokens=60, output_tokens=40)] * 2)
    limited = RateLimited(model, tokens_per_minute=100, clock=clock.now, sleep=clock.sleep)
    await limited.complete(
        request_of(INPUT_OF_100)
    )  # estimated 200 > 100: goes, the bucket is full
    await limited.complete(request_of(INPUT_OF_100))  # waits until the bucket is full again
    assert clock.sleeps == [pytest.approx(60.0)]


async def test_a_cancelled_wait_gives_its_reservation_back():
    clock = FakeClock()
    asleep = asyncio.Event()

    async def sleep_forever(seconds: float) -> None:
        asleep.set()
        await asyncio.Event().wait()

    model = ScriptedModel(script=[answer(), answer()])
    limited = RateLimited(model, requests_per_minute=1, clock=clock.now, sleep=sleep_forever)
    await limited.complete(REQUEST)
    clock.time += 30  # half a request back in the bucket
    waiting = asyncio.create_task(limited.complete(REQUEST))
    await asleep.wait()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    clock.time += 30
    limited._sleep = clock.sleep
    await limited.complete(REQUEST)  # the cancelled call did not take the refilled slot
    assert clock.sleeps == []
    assert model.calls == 2
