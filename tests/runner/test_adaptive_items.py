"""Items in flight by default follow the model layer's limit, and a run's summary (stored
with the run) says what each endpoint's limit on calls in flight did."""

import asyncio

import pytest
from batch_fakes import dataset

from jurist import BaseJudge, Context, Judgment
from jurist.core import Usage
from jurist.llm import (
    Capabilities,
    Choice,
    ConcurrencyLimited,
    ErrorKind,
    Model,
    ModelError,
    Request,
    Response,
    Retrying,
)
from jurist.runner import evaluate, load_run
from jurist.settings import get_settings


class InFlight(BaseJudge):
    """Counts the items in flight; each yields to the loop a few times before answering."""

    def __init__(self) -> None:
        super().__init__("in_flight")
        self.now = 0
        self.peak = 0

    async def judge(self, ctx: Context) -> Judgment:
        self.now += 1
        self.peak = max(self.peak, self.now)
        for _ in range(3):
            await asyncio.sleep(0)
        self.now -= 1
        return Judgment.ok()


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Sets JURIST_* variables for one test, the settings read afresh."""

    def put(**variables: str) -> None:
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()

    for name in ("JURIST_CONCURRENCY", "JURIST_MAX_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield put
    get_settings.cache_clear()


def test_the_default_leaves_the_bound_to_the_model_layer():
    assert evaluate.__kwdefaults__["concurrency"] is None


async def test_by_default_as_many_items_are_in_flight_as_the_ceiling_allows(environment):
    environment(JURIST_MAX_CONCURRENCY="20")
    judge = InFlight()
    result = await evaluate(dataset(100), judge)
    assert judge.peak == 20
    assert result.summary.counts["pass"] == 100
    assert result.spec["concurrency"] == 20


async def test_a_fixed_concurrency_setting_bounds_the_items_too(environment):
    environment(JURIST_MAX_CONCURRENCY="20", JURIST_CONCURRENCY="5")
    judge = InFlight()
    await evaluate(dataset(30), judge)
    assert judge.peak == 5


async def test_an_explicit_concurrency_still_wins(environment):
    environment(JURIST_MAX_CONCURRENCY="20")
    judge = InFlight()
    await evaluate(dataset(30), judge, concurrency=3)
    assert judge.peak == 3


class Capacity:
    """A provider that takes 4 calls at once and answers 429 beyond."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.refused = 0

    @property
    def name(self) -> str:
        return "test:capacity-4"

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities()

    async def complete(self, request: Request) -> Response:
        if self.in_flight >= 4:
            self.refused += 1
            raise ModelError(ErrorKind.RATE_LIMITED, "429", status=429)
        self.in_flight += 1
        try:
            for _ in range(3):
                await asyncio.sleep(0)
            return Response.from_choices([Choice("ok", finish_reason="stop")], Usage(calls=1))
        finally:
            self.in_flight -= 1


class Asking(BaseJudge):
    def __init__(self, model: Model) -> None:
        super().__init__("asking")
        self.model = model

    async def judge(self, ctx: Context) -> Judgment:
        await self.model.complete(Request.of(ctx.output_text()))
        return Judgment.ok()


async def test_the_summary_says_what_the_endpoints_limit_did_and_the_store_keeps_it(records):
    provider = Capacity()

    async def no_wait(seconds: float) -> None:
        await asyncio.sleep(0)

    limited = ConcurrencyLimited(provider, max_concurrency=64, sleep=no_wait)
    model = Retrying(limited, sleep=no_wait, max_attempts=10)
    result = await evaluate(dataset(60), Asking(model), store=records, concurrency=60)
    assert result.summary.errors == 0
    (seen,) = result.summary.concurrency
    assert seen["endpoint"] == "test:capacity-4"
    assert seen["adaptive"] is True
    assert seen["start"] == 32
    assert seen["rate_limited"] == provider.refused > 0
    assert seen["final"] < seen["start"]  # it came down towards the 4 the provider takes
    assert seen["ceiling"] == 64
    stored = await records.get_run(result.run_id)
    assert stored is not None
    assert stored.summary is not None
    assert stored.summary["concurrency"] == [seen]
    again = await load_run(records, result.run_id or "")
    assert list(again.summary.concurrency) == [seen]


async def test_a_judge_that_calls_no_model_reports_no_limits():
    result = await evaluate(dataset(3), InFlight(), concurrency=2)
    assert result.summary.concurrency == ()
