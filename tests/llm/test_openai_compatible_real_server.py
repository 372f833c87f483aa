"""The OpenAI provider against a real OpenAI-compatible server: llama.cpp's, which the
embedded runtime serves on 127.0.0.1, with SmolLM2 behind it."""

from pathlib import Path

import jsonschema_rs

from jurist.llm import Request, get_model
from jurist.llm._catalog import CATALOG
from jurist.llm._embedded import LoadOptions, _runtime
from jurist.llm._weights import prepare_weights
from jurist.settings import Settings

ANSWER = {
    "type": "object",
    "properties": {"answer": {"enum": ["yes", "no"]}},
    "required": ["answer"],
}


async def test_schema_logprobs_and_usage_through_a_llama_cpp_server(tmp_path: Path):
    weights = prepare_weights(CATALOG["smollm2-135m"], Settings().models_dir)
    address = _runtime(weights, LoadOptions(context_tokens=2048)).server.listening_address
    assert address.startswith("http://127.0.0.1:")
    model = get_model(
        f"openai-compatible:smollm@{address}/v1", settings=Settings(JURIST_HOME=str(tmp_path))
    )
    request = Request.of(
        "Is water wet? Answer in JSON.",
        json_schema=ANSWER,
        logprobs=True,
        top_logprobs=3,
        max_tokens=30,
    )
    response = await model.complete(request)
    assert jsonschema_rs.validator_for(ANSWER).is_valid(response.json)
    assert response.logprobs
    assert all(len(token.top) == 3 for token in response.logprobs)
    assert response.usage.input_tokens > 0
    assert response.usage.cost_usd is None  # nobody priced this server's model
    assert (await model.complete(request)).cached
