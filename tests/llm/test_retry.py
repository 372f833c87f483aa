"""Retrying: transient failures are retried with bounded, jittered backoff; the rest are not."""

import asyncio
import random

import pytest

from jurist.llm import ErrorKind, ModelError, Request
from jurist.llm._retry import MAX_RETRY_AFTER_S, Retrying
from scripted import FakeClock, ScriptedModel, answer

REQUEST = Request.of("hello")


def retrying(model: ScriptedModel, clock: FakeClock, **options: object) -> Retrying:
    return Retrying(model, sleep=clock.sleep, rng=random.Random(7), **options)  # type: ignore[arg-type]


async def test_a_rate_limit_with_retry_after_waits_at_least_that_long():
    clock = FakeClock()
    model = ScriptedModel(
        script=[ModelError(ErrorKind.RATE_LIMITED, "slow down", retry_after_s=7.0), answer("hi")]
    )
    response = await retrying(model, clock).complete(REQUEST)
    assert response.text == "hi"
    assert model.calls == 2
    assert clock.sleeps == [7.0]


async def test_retry_after_above_max_delay_is_still_honoured():
    clock = FakeClock()
    model = ScriptedModel(
        script=[ModelError(ErrorKind.RATE_LIMITED, "slow down", retry_after_s=60.0), answer()]
    )
    await retrying(model, clock, max_delay_s=30.0).complete(REQUEST)
    assert clock.sleeps == [60.0]


async def test_retry_after_beyond_the_cap_fails_at_once():
    clock = FakeClock()
    model = ScriptedModel(
        script=[
            ModelError(ErrorKind.RATE_LIMITED, "quota", retry_after_s=MAX_RETRY_AFTER_S * 10),
            answer(),
        ]
    )
    with pytest.raises(ModelError) as caught:
        await retrying(model, clock).complete(REQUEST)
    assert caught.value.kind is ErrorKind.RATE_LIMITED
    assert "asked to wait" in caught.value.cause
    assert model.calls == 1
    assert clock.sleeps == []


async def test_backoff_doubles_up_to_max_delay_and_attempts_are_bounded():
    clock = FakeClock()
    model = ScriptedModel(script=[ModelError(ErrorKind.SERVER_ERROR, "502")] * 6)
    limited = retrying(
        model, clock, max_attempts=6, base_delay_s=1.0, max_delay_s=5.0, jitter=False
    )
    with pytest.raises(ModelError) as caught:
        await limited.complete(REQUEST)
    assert clock.sleeps == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert model.calls == 6
    error = caught.value
    assert error.kind is ErrorKind.SERVER_ERROR
    assert error.attempts == 6
    assert "6 attempts" in error.cause
    assert error.model == "test:scripted"


async def test_full_jitter_stays_within_the_backoff_ceiling_and_follows_the_seed():
    ceilings = [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]

    async def sleeps(seed: int) -> list[float]:
        clock = FakeClock()
        model = ScriptedModel(script=[ModelError(ErrorKind.CONNECTION, "reset")] * 8)
        limited = Retrying(
            model, max_attempts=8, max_delay_s=8.0, sleep=clock.sleep, rng=random.Random(seed)
        )
        with pytest.raises(ModelError):
            await limited.complete(REQUEST)
        return clock.sleeps

    first = await sleeps(1)
    assert len(first) == len(ceilings)
    assert all(0.0 <= wait <= ceiling for wait, ceiling in zip(first, ceilings, strict=True))
    assert first != ceilings  # jittered, not the bare exponential
    assert await sleeps(1) == first
    assert await sleeps(2) != first


@pytest.mark.parametrize("kind", [ErrorKind.CLIENT_ERROR, ErrorKind.UNPARSEABLE, ErrorKind.REFUSED])
async def test_errors_that_are_not_retryable_are_raised_at_once(kind: ErrorKind):
    clock = FakeClock()
    error = ModelError(kind, "no")
    model = ScriptedModel(script=[error, answer()])
    with pytest.raises(ModelError) as caught:
        await retrying(model, clock).complete(REQUEST)
    assert caught.value is error
    assert caught.value.attempts == 1
    assert model.calls == 1
    assert clock.sleeps == []


async def test_a_provider_marked_retryable_client_error_is_retried():
    clock = FakeClock()
    conflict = ModelError(ErrorKind.CLIENT_ERROR, "409 conflict", status=409, retryable=True)
    model = ScriptedModel(script=[conflict, answer("done")])
    assert (await retrying(model, clock).complete(REQUEST)).text == "done"
    assert model.calls == 2


async def test_a_non_retryable_error_after_retries_keeps_its_kind_and_counts_attempts():
    clock = FakeClock()
    model = ScriptedModel(
        script=[ModelError(ErrorKind.TIMEOUT, "slow"), ModelError(ErrorKind.CLIENT_ERROR, "bad")]
    )
    with pytest.raises(ModelError) as caught:
        await retrying(model, clock).complete(REQUEST)
    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert caught.value.attempts == 2
    assert isinstance(caught.value.__cause__, ModelError)


async def test_a_raw_os_error_becomes_a_retryable_connection_error():
    clock = FakeClock()
    model = ScriptedModel(script=[ConnectionResetError("peer reset"), answer("back")])
    assert (await retrying(model, clock).complete(REQUEST)).text == "back"
    assert model.calls == 2

    model = ScriptedModel(script=[OSError("network down")] * 2)
    with pytest.raises(ModelError) as caught:
        await retrying(model, clock, max_attempts=2).complete(REQUEST)
    assert caught.value.kind is ErrorKind.CONNECTION
    assert "network down" in caught.value.cause
    assert caught.value.attempts == 2


async def test_a_raw_timeout_becomes_a_timeout_error():
    model = ScriptedModel(script=[TimeoutError()])
    with pytest.raises(ModelError) as caught:
        await retrying(model, FakeClock(), max_attempts=1).complete(REQUEST)
    assert caught.value.kind is ErrorKind.TIMEOUT


async def test_an_unexpected_exception_is_a_client_error_and_not_retried():
    bug = KeyError("choices")
    model = ScriptedModel(script=[bug, answer()])
    with pytest.raises(ModelError) as caught:
        await retrying(model, FakeClock()).complete(REQUEST)
    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert not caught.value.retryable
    assert "KeyError" in caught.value.cause
    assert caught.value.__cause__ is bug
    assert model.calls == 1


async def test_cancellation_from_the_model_propagates_untouched():
    model = ScriptedModel(script=[asyncio.CancelledError(), answer()])
    with pytest.raises(asyncio.CancelledError):
        await retrying(model, FakeClock()).complete(REQUEST)
    assert model.calls == 1


async def test_cancellation_during_the_backoff_wait_propagates():
    asleep = asyncio.Event()

    async def sleep_forever(seconds: float) -> None:
        asleep.set()
        await asyncio.Event().wait()

    model = ScriptedModel(script=[ModelError(ErrorKind.SERVER_ERROR, "500"), answer()])
    task = asyncio.create_task(Retrying(model, sleep=sleep_forever).complete(REQUEST))
    await asleep.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert model.calls == 1


def test_settings_are_checked():
    with pytest.raises(ValueError, match="max_attempts"):
        Retrying(ScriptedModel(), max_attempts=0)


class PoliciesBuilt:
    """Counts the tenacity policies Retrying builds (each costs a call ~25 us)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import jurist.llm._retry as module

        self.built = 0
        real = module.tenacity.AsyncRetrying

        def counted(*args: object, **kwargs: object) -> object:
            self.built += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module.tenacity, "AsyncRetrying", counted)


async def test_a_call_that_succeeds_at_once_builds_no_retry_policy(monkeypatch):
    policies = PoliciesBuilt(monkeypatch)
    model = ScriptedModel(script=[answer("one"), answer("two")])
    limited = retrying(model, FakeClock())
    assert (await limited.complete(REQUEST)).text == "one"
    assert (await limited.complete(REQUEST)).text == "two"
    assert policies.built == 0


async def test_a_retried_call_waits_and_logs_as_a_policy_from_its_first_attempt(
    monkeypatch, caplog
):
    policies = PoliciesBuilt(monkeypatch)
    clock = FakeClock()
    model = ScriptedModel(
        script=[
            ModelError(ErrorKind.SERVER_ERROR, "502"),
            ModelError(ErrorKind.SERVER_ERROR, "503"),
            answer("third"),
        ]
    )
    limited = retrying(model, clock, base_delay_s=1.0, jitter=False)
    with caplog.at_level("INFO", logger="jurist.llm._retry"):
        assert (await limited.complete(REQUEST)).text == "third"
    # The first failure is not asked of the model again: three calls, two waits.
    assert model.calls == 3
    assert clock.sleeps == [1.0, 2.0]
    assert policies.built == 1
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == 2
    assert "attempt 1 of 4 failed" in logged[0]
    assert "502" in logged[0]
    assert "attempt 2 of 4 failed" in logged[1]
    assert "503" in logged[1]


async def test_an_error_not_retried_keeps_its_cause():
    lost = ConnectionResetError("peer reset")
    model = ScriptedModel(script=[lost])
    with pytest.raises(ModelError) as caught:
        await retrying(model, FakeClock(), max_attempts=1).complete(REQUEST)
    assert caught.value.kind is ErrorKind.CONNECTION
    assert caught.value.__cause__ is lost
