import asyncio

import pytest

from jurist.core import Usage
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.llm._meter import Metered
from scripted import ScriptedModel


def answer(tokens: int, cost: float | None) -> Response:
    return Response("ok", usage=Usage(tokens, 1, cost, "m", 10.0, calls=1))


async def test_usage_adds_up_across_calls_and_failures_are_counted():
    inner = ScriptedModel(
        "m", [answer(100, 0.01), ModelError(ErrorKind.TIMEOUT, "slow"), answer(50, 0.02)]
    )
    meter = Metered(inner)
    assert meter.total == Usage()
    await meter.complete(Request.of("a"))
    with pytest.raises(ModelError):
        await meter.complete(Request.of("b"))
    await meter.complete(Request.of("c"))
    total = meter.total
    assert (total.input_tokens, total.output_tokens, total.calls) == (150, 2, 2)
    assert total.cost_usd == pytest.approx(0.03)
    assert meter.failures == 1


async def test_an_unknown_cost_makes_the_total_unknown():
    meter = Metered(ScriptedModel("m", [answer(10, 0.01), answer(10, None)]))
    await asyncio.gather(meter.complete(Request.of("a")), meter.complete(Request.of("b")))
    assert meter.total.cost_usd is None
    assert meter.total.calls == 2
