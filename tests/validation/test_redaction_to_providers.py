"""With JURIST_REDACT_PII on, personal data never reaches a remote model provider: checked
on what a real OpenAI-compatible server on 127.0.0.1 received."""

import json

import pytest

from fault_server import FaultServer, ok
from jurist.settings import Settings
from jurist.validation import Validator

CRITERION = "The answer gives a way to get in touch"
OUTPUT = "Write to jane.roe@example.com or call +1 212 555 0187 for a refund."


@pytest.fixture
async def provider():
    async with FaultServer() as server:
        server.default = ok('{"answer": "yes", "reason": "contact given", "confidence": 0.9}')
        yield server


@pytest.mark.parametrize("redact", [True, False])
async def test_requests_to_a_remote_provider_are_redacted_when_asked(provider, tmp_path, redact):
    settings = Settings(
        JURIST_HOME=str(tmp_path),
        JURIST_CACHE="0",
        JURIST_REDACT_PII="1" if redact else "0",
        OPENAI_API_KEY="sk-test",
    )
    validator = Validator(f"openai-compatible:judge@{provider.openai_url}", settings=settings)
    result = await validator.validate(
        {"output": OUTPUT, "validation_types": ["criteria"], "acceptance_criteria": [CRITERION]}
    )
    sent = json.dumps(provider.bodies)
    assert provider.bodies, result
    if redact:
        assert "jane.roe@example.com" not in sent
        assert "212 555 0187" not in sent
        assert "<EMAIL_ADDRESS>" in sent
        assert CRITERION in sent  # the question itself is left alone
    else:
        assert "jane.roe@example.com" in sent
