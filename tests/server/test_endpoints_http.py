"""POST /judge, the rubric library, readiness, metrics, OpenAPI and trusted sources served
by another jurist, over real HTTP."""

import asyncio
import re

import pytest

from jurist.knowledge import KnowledgeBase
from jurist.llm import ErrorKind, ModelError
from jurist.server import new_key
from service_script import ServiceScript

POLITE = "The answer is polite"
OUTPUT = "Thank you for asking: refunds take 30 days."


def test_judge_with_criteria_a_rubric_or_a_spec_stores_each_judgment(serve):
    script = ServiceScript(
        criteria={POLITE: 0.9}, quality={"completeness": 4, "clarity": 5, "consistency": 5}
    )
    running = serve(script)
    context = {"goal": "Explain refunds", "output": OUTPUT}
    with running.client() as client:
        by_criteria = client.post("/judge", json={"context": context, "criteria": [POLITE]})
        assert by_criteria.status_code == 200, by_criteria.text
        answer = by_criteria.json()
        assert answer["status"] == "pass"
        assert answer["model"] == "test:judge"
        assert answer["prompt_sha256"] is None or len(answer["prompt_sha256"]) == 64
        assert client.get(f"/judgments/{answer['id']}").json()["judgment"] == answer["judgment"]

        by_rubric = client.post("/judge", json={"context": context, "rubric": "output-quality"})
        assert by_rubric.status_code == 200
        rubric = by_rubric.json()
        result = rubric["judgment"]["metadata"]["rubric_result"]
        assert [c["criterion_name"] for c in result["criteria_results"]] == [
            "completeness",
            "clarity",
            "consistency",
        ]

        spec = {
            "type": "jury",
            "judges": [
                {"type": "contains", "keywords": ["refund"]},
                {"type": "criterion", "criterion": POLITE},
                {"type": "length", "max_words": 3},
            ],
            "strategy": {"type": "majority"},
        }
        jury = client.post("/judge", json={"context": context, "judge": spec}).json()
        assert jury["status"] == "pass"  # two of three


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rubric": "no-such-rubric"}, "rubric"),
        ({"rubric": "../../etc/passwd.yaml"}, "rubric"),
        ({"criteria": []}, "criteria"),
        ({"criteria": [POLITE], "rubric": "output-quality"}, "rubric"),
        ({}, "rubric"),
        ({"judge": {"type": "majority-of-one"}}, "judge.type"),
        ({"judge": {"type": "regex", "pattern": "(a+)+$"}}, "judge"),
        (
            {"judge": {"type": "all_of", "judges": [{"type": "criterion"}]}},
            "judge.judges[0].criterion",
        ),
    ],
)
def test_bad_judge_requests_are_422_naming_the_field(serve, body, field):
    running = serve(ServiceScript(fail_with=AssertionError("no model call")))
    with running.client() as client:
        response = client.post("/judge", json={"context": {"output": OUTPUT}, **body})
    assert response.status_code == 422, response.text
    assert field in [e["field"] for e in response.json()["errors"]]


def test_the_rubric_library_is_listed_and_readable(serve):
    with serve().client() as client:
        listed = {r["id"]: r for r in client.get("/rubrics").json()}
        assert listed["output-quality"]["criteria"] == ["completeness", "clarity", "consistency"]
        full = client.get("/rubrics/summarization").json()
        assert full["criteria"][0]["anchors"]["1"]
        assert client.get("/rubrics/nope").status_code == 404


def _settled(client):
    """/ready once the redactor's build, which runs in the background, has ended."""
    ready = client.get("/ready")
    while ready.json()["redactor"] == {"loaded": False, "error": None}:
        ready = client.get("/ready")
    return ready


def test_ready_reports_the_model_the_database_and_the_redactor(serve):
    running = serve()
    with running.client() as client:
        ready = _settled(client)
        assert ready.status_code == 200
        assert ready.json()["database"]["reachable"] is True
        assert ready.json()["model"]["loaded"] is True
        assert ready.json()["redactor"] == {"loaded": True, "error": None}
        assert client.get("/health").json()["status"] == "alive"


class _BrokenRedactor:
    def load(self) -> None:
        raise OSError("the name model's files are missing")

    def redact(self, text: str) -> str:
        raise AssertionError("never built")


def test_ready_is_503_while_the_redactor_cannot_be_built(serve):
    running = serve(redactor=_BrokenRedactor())
    with running.client() as client:
        ready = _settled(client)
    assert ready.status_code == 503
    assert ready.json()["redactor"]["loaded"] is False
    assert "name model's files are missing" in ready.json()["redactor"]["error"]


def test_ready_is_503_while_the_model_cannot_load(serve):
    running = serve(model="local:no-such-model")
    with running.client() as client:
        ready = client.get("/ready")
    assert ready.status_code == 503
    assert ready.json()["model"]["loaded"] is False
    assert "no-such-model" in ready.json()["model"]["error"]


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_a_database_that_goes_away_is_503_on_ready_and_validate(serve, database, postgres_server):
    import psycopg

    running = serve()
    name = database.rsplit("/", 1)[1]
    body = {"output": {}, "validation_types": ["schema"], "expected_schema": {"type": "object"}}
    with running.client() as client:
        assert client.post("/validate", json=body).status_code == 200
        with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
        try:
            down = client.post("/validate", json=body)
            assert down.status_code == 503, down.text
            assert down.json()["error"] == "store_unavailable"
            ready = client.get("/ready")
            assert ready.status_code == 503
            assert ready.json()["database"]["reachable"] is False
            assert "password" not in ready.text.lower() or "***" in ready.text
        finally:
            with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
                admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert client.post("/validate", json=body).status_code == 200


def test_metrics_count_validations_layers_tokens_and_model_errors(serve):
    script = ServiceScript(
        criteria={POLITE: 0.9}, quality={"completeness": 5, "clarity": 1, "consistency": 5}
    )
    running = serve(script)
    with running.client() as client:
        for _ in range(2):
            client.post(
                "/validate",
                json={
                    "output": OUTPUT,
                    "validation_types": ["criteria", "quality"],
                    "acceptance_criteria": [POLITE],
                },
            )
        script.fail_with = ModelError(ErrorKind.RATE_LIMITED, "slow down", retryable=False)
        client.post(
            "/validate",
            json={
                "output": OUTPUT,
                "validation_types": ["criteria"],
                "acceptance_criteria": [POLITE],
            },
        )
        text = client.get("/metrics").text
    assert re.search(r'jurist_validations_total\{outcome="valid"\} 2\.0', text)
    assert re.search(r'jurist_validations_total\{outcome="invalid"\} 1\.0', text)
    assert re.search(r'jurist_validation_layer_seconds_count\{layer="quality"\} 2\.0', text)
    assert re.search(r'jurist_qualitative_score_count\{criterion="clarity"\} 2\.0', text)
    assert re.search(r"jurist_qualitative_evaluations_total 2\.0", text)
    assert re.search(r'jurist_model_errors_total\{kind="rate_limited"\} 1\.0', text)
    tokens = re.search(r'jurist_llm_tokens_used_total\{direction="input"\} (\d+)', text)
    assert tokens
    assert int(tokens.group(1)) > 0
    assert 'jurist_http_requests_total{route="/validate",status="200"} 3.0' in text


def test_the_openapi_schema_documents_errors_and_auth_as_configured(serve):
    secret, _ = new_key()
    with serve(config={"JURIST_API_KEYS": f"ci:{secret}"}).client() as client:
        keyed = client.get("/openapi.json").json()
    with serve().client() as client:
        open_ = client.get("/openapi.json").json()
    validate = keyed["paths"]["/validate"]["post"]
    assert set(validate["responses"]) >= {"200", "401", "413", "422", "429", "503", "504"}
    assert validate["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ErrorBody"
    )
    assert validate["security"] == [{"HTTPBearer": []}]
    assert "security" not in keyed["paths"]["/health"]["get"]
    # Without keys nothing asks for authentication, and the schema says so.
    assert "security" not in open_["paths"]["/validate"]["post"]
    assert "401" not in open_["paths"]["/validate"]["post"]["responses"]
    request = keyed["components"]["schemas"]["ValidationRequest"]
    assert request["required"] == ["output", "validation_types"]
    assert len(request["allOf"]) == 3  # the layers' cross-field rules


def test_facts_are_checked_in_another_services_knowledge_base(serve, tmp_path):
    """TRUSTED_SOURCES_URL: one service searches the knowledge base another one serves."""
    atlas = tmp_path / "atlas.md"
    atlas.write_text("The Eiffel Tower is in Paris. It was completed in 1889.\n")
    kb_database = f"sqlite:///{tmp_path / 'kb.sqlite3'}"

    async def ingest() -> None:
        async with await KnowledgeBase.open(kb_database, rerank=False) as knowledge:
            await knowledge.add(atlas, "atlas")

    asyncio.run(ingest())
    sources = serve(settings={"JURIST_DATABASE_URL": kb_database})
    claim = "The Eiffel Tower was completed in 1889."
    script = ServiceScript(claims=[claim], support={claim: (0.95, "It was completed in 1889.")})
    checker = serve(script, settings={"TRUSTED_SOURCES_URL": sources.url})
    with checker.client() as client:
        found = client.post(
            "/validate",
            json={"output": claim, "validation_types": ["facts"], "trusted_sources": ["atlas"]},
        )
        assert found.status_code == 200, found.text
        assert found.json()["valid"] is True
        assert found.json()["confidence"] == 1.0
        unknown = client.post(
            "/validate",
            json={"output": claim, "validation_types": ["facts"], "trusted_sources": ["gossip"]},
        )
        assert unknown.status_code == 422
        assert unknown.json()["errors"][0]["field"] == "trusted_sources[0]"
    prompts = [r.messages[-1].content for r in script_requests(checker)]
    assert any("completed in 1889" in p for p in prompts)


def script_requests(running):
    return running.service.validator.model().requests


def test_a_judge_that_raises_is_an_error_judgment_with_its_cause_not_a_500(serve):
    running = serve(ServiceScript(fail_with=RuntimeError("the model's tokenizer broke")))
    with running.client() as client:
        # The rubric's criteria run side by side: the error escaped as an exception group.
        response = client.post(
            "/judge", json={"context": {"output": OUTPUT}, "rubric": "output-quality"}
        )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["status"] == "error"
    assert "the model's tokenizer broke" in answer["judgment"]["reasoning"]
