"""Grounding on the default embedded model, for real: a supported claim and an invented one
against a short context must be told apart, with quotes checked against the context."""

import pytest

from jurist.core import Context, Status
from jurist.judges import HallucinationJudge
from jurist.llm._get_model import get_model
from jurist.settings import Settings

CONTEXT = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres "
    "tall and was designed by the engineering company of Gustave Eiffel."
)


@pytest.fixture(scope="module")
def model():
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return get_model("local:qwen2.5-1.5b", settings=settings)


async def test_a_supported_claim_and_an_invented_one_are_told_apart(model):
    judge = HallucinationJudge(model)
    result = await judge.judge(
        Context(
            "Describe the Eiffel Tower.",
            output="The Eiffel Tower was completed in 1889. It was designed by Le Corbusier.",
            context=CONTEXT,
        )
    )
    assert result.status is Status.FAIL, result.reasoning
    assert result.metadata["extraction"] == "model"
    assert result.metadata["mode"] == "per_claim"
    rows = result.metadata["claims"]
    assert len(rows) >= 2
    year = next(r for r in rows if "1889" in r["claim"])
    invented = next(r for r in rows if "Corbusier" in r["claim"])
    assert year["supported"] is True
    assert year["quote_found"] is True
    assert invented["supported"] is False
    assert year["p_supported"] > invented["p_supported"]
    assert any("Corbusier" in issue["claim"] for issue in result.metadata["issues"])
    assert result.usage is not None
    assert result.usage.calls == 1 + len(rows)
