"""Per-key rate limits: a sliding window per key; refusals say when to retry. No test sleeps."""

import pytest

from jurist.server._ratelimit import RateDecision, RateLimiter


@pytest.mark.parametrize("text", [None, "", "  ", "0", "none", "None", "off"])
def test_off_values_mean_no_limiter(text):
    assert RateLimiter.parse(text) is None


async def test_the_fourth_hit_in_an_hour_is_refused_with_a_retry_after():
    limiter = RateLimiter.parse("3/hour")
    assert limiter is not None
    decisions = [await limiter.hit("ci") for _ in range(4)]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert [d.remaining for d in decisions] == [2, 1, 0, 0]
    assert all(d.limit == 3 for d in decisions)
    assert all(d.retry_after_s == 0 for d in decisions[:3])
    refused = decisions[3]
    assert 0 < refused.retry_after_s <= 3600


async def test_keys_are_counted_apart():
    limiter = RateLimiter.parse("3/hour")
    assert limiter is not None
    for _ in range(4):
        await limiter.hit("ci")
    assert await limiter.hit("ops") == RateDecision(
        allowed=True, retry_after_s=0, limit=3, remaining=2
    )
    assert not (await limiter.hit("ci")).allowed


async def test_refused_hits_do_not_use_up_the_window():
    limiter = RateLimiter.parse("1 per day")
    assert limiter is not None
    assert (await limiter.hit("ci")).allowed
    refusals = [await limiter.hit("ci") for _ in range(5)]
    assert not any(d.allowed for d in refusals)
    assert all(0 < d.retry_after_s <= 86400 for d in refusals)


async def test_each_limiter_counts_on_its_own():
    first, second = RateLimiter.parse("1/hour"), RateLimiter.parse("1/hour")
    assert first is not None
    assert second is not None
    assert (await first.hit("ci")).allowed
    assert (await second.hit("ci")).allowed


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("fast", "is not a rate"),
        ("120/fortnight", "is not a rate"),
        ("-5/minute", "is not a rate"),
        ("120/minute;10/second", "holds 2 rates"),
        ("0/minute", "allows no requests"),
    ],
)
def test_bad_rates_name_the_variable_and_show_an_example(text, problem):
    with pytest.raises(ValueError, match="JURIST_RATE_LIMIT") as caught:
        RateLimiter.parse(text)
    assert problem in str(caught.value)
    assert "120/minute" in str(caught.value)


def test_repr_shows_the_rate():
    assert repr(RateLimiter.parse("120/minute")) == "RateLimiter(120 per 1 minute)"
