"""The README's main job through the service, for real: the example validation request,
POSTed to a running server on 127.0.0.1 that judges with the default embedded model and
fact-checks in its own knowledge base. The output's planted error (refunds in 5 business
days; the policy says 10) must be caught by both grounding layers, and the criterion the
answer plainly misses must fail. With only the criterion the answer meets, the output is
still invalid: the sources contradict it, and a contradiction is an error."""

import asyncio
import json
from pathlib import Path

from running import run_app

from jurist.knowledge import KnowledgeBase
from jurist.llm._get_model import get_model
from jurist.server import ServiceSettings, create_app
from jurist.settings import Settings

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_the_example_request_on_the_embedded_model(tmp_path):
    database = f"sqlite:///{tmp_path / 'service.sqlite3'}"

    async def ingest() -> None:
        async with await KnowledgeBase.open(database) as knowledge:
            await knowledge.add(EXAMPLES / "handbook", "handbook")

    asyncio.run(ingest())
    settings = Settings(
        JURIST_HOME=str(tmp_path),
        JURIST_MODELS_DIR=str(Settings().models_dir),
        # The second request asks what the first did, less one criterion: from the cache.
        JURIST_CACHE="1",
        JURIST_DATABASE_URL=database,
    )
    model = get_model("local:qwen2.5-1.5b", settings=settings)
    app = create_app(settings, ServiceSettings(LOG_LEVEL="warning"), model=model)
    running = run_app(app)
    try:
        request = json.loads((EXAMPLES / "validation-request.json").read_text())
        with running.client() as client:
            answer = client.post("/validate", json=request, timeout=600)
            assert answer.status_code == 200, answer.text
            result = answer.json()
            stored = client.get(f"/validations/{result['metadata']['validation_id']}")
            assert stored.json()["result"] == result
            first_only = {**request, "acceptance_criteria": request["acceptance_criteria"][:1]}
            again = client.post("/validate", json=first_only, timeout=600)
            assert again.status_code == 200, again.text
            met = again.json()
    finally:
        running.stop()
    layers = result["metadata"]["layers"]
    assert all(layer["status"] == "ok" for layer in layers.values()), layers
    assert result["valid"] is False
    assert result["failed_criteria"] == ["The answer says whether shipping costs are refunded"]
    flagged = {
        (i["type"], i["severity"]) for i in result["issues"] if "5 business days" in i["message"]
    }
    assert flagged >= {("contradicted_fact", "error"), ("contradicted_claim", "error")}, result[
        "issues"
    ]
    assert result["metadata"]["quality_assessed"] is True

    assert met["failed_criteria"] == []
    assert met["valid"] is False
    contradicted = [i for i in met["issues"] if i["type"] == "contradicted_fact"]
    assert contradicted, met["issues"]
    assert all(i["severity"] == "error" for i in contradicted)
    verdicts = {name: layer["verdict"] for name, layer in met["metadata"]["layers"].items()}
    assert verdicts["facts"] == "fail"
    assert verdicts["criteria"] == "pass"
