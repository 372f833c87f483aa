"""Validations to browse, made the ways the service makes them: a real `jurist serve` app
(a scripted model) answering POST /validate, and, for the store's queries alone, real
results of the validation pipeline stored as the service stores them."""

import asyncio
import hashlib
import json
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from jurist.server import ServiceSettings, create_app
from jurist.settings import Settings
from jurist.store import ValidationRecord, new_id
from jurist.validation import ValidationResult, validate
from server.running import Running, run_app
from service_script import ServiceScript, scripted_model

T = TypeVar("T")

SCHEMA = {"type": "object", "required": ["answer", "source"]}
POLITE = "The answer is polite"
CITED = "The answer cites a source"
SCRIPT = ServiceScript(criteria={POLITE: 0.9, CITED: 0.1})


def schema_request(output: Any, severity: str | None = None) -> dict[str, Any]:
    """A schema-only request; `severity` (error, warning, info) is what a schema
    violation counts as."""
    request: dict[str, Any] = {
        "output": output,
        "validation_types": ["schema"],
        "expected_schema": SCHEMA,
    }
    if severity is not None:
        request["severity_policy"] = {"schema_violation": severity}
    return request


def criteria_request(severity: str | None = None) -> dict[str, Any]:
    """Schema and criteria: the schema holds, one criterion is met and one is not."""
    request: dict[str, Any] = {
        "output": {"answer": "Thank you for asking!", "source": "none"},
        "validation_types": ["schema", "criteria"],
        "expected_schema": SCHEMA,
        "acceptance_criteria": [POLITE, CITED],
    }
    if severity is not None:
        request["severity_policy"] = {"criteria_not_met": severity}
    return request


@dataclass(frozen=True)
class Seeded:
    """The id the service gave each request of REQUESTS, by its name there."""

    ids: dict[str, str]


REQUESTS: dict[str, dict[str, Any]] = {
    "clean": schema_request({"answer": "Paris", "source": "atlas"}),
    "broken schema": schema_request({"answer": "Paris"}),
    "unmet criterion": criteria_request(),
    "warned criterion": criteria_request("warning"),
    "noted criterion": criteria_request("info"),
}


def start_service(
    home: Path, database: str, *, keys: str | None = None, content: str = "redacted"
) -> Running:
    """`jurist serve`'s app on 127.0.0.1 over `database`, answering with the scripted model;
    `content`: how it stores what it was sent (redacted, or sealed: an outline only)."""
    config: dict[str, Any] = {
        "JURIST_RATE_LIMIT": "none",
        "LOG_LEVEL": "warning",
        "JURIST_STORE_CONTENT": content,
    }
    if keys is not None:
        config["JURIST_API_KEYS"] = keys
    settings = Settings(JURIST_HOME=str(home), JURIST_CACHE="0", JURIST_DATABASE_URL=database)
    app = create_app(settings, ServiceSettings(**config), model=scripted_model(SCRIPT))
    return run_app(app)


def post_validations(running: Running, key: str | None = None) -> Seeded:
    """Every request of REQUESTS posted to the running service, oldest first."""
    ids: dict[str, str] = {}
    with running.client(key) as client:
        for name, request in REQUESTS.items():
            answer = client.post("/validate", json=request)
            assert answer.status_code == 200, answer.text
            ids[name] = answer.json()["metadata"]["validation_id"]
    return Seeded(ids)


async def pipeline_record(
    request: dict[str, Any], *, key_id: str | None = None, at: datetime | None = None
) -> ValidationRecord:
    """A schema-only request's real result, as a record stored redacted (no model needed)."""
    result: ValidationResult = await validate(request)
    dumped = result.model_dump(mode="json")
    metadata = result.metadata
    return ValidationRecord(
        id=new_id(),
        request_sha256=hashlib.sha256(json.dumps(request).encode()).hexdigest(),
        valid=result.valid,
        confidence=result.confidence,
        quality_score=result.quality_score,
        error_count=metadata.error_count,
        warning_count=metadata.warning_count,
        duration_ms=metadata.duration_ms,
        request=request,
        result=dumped,
        key_id=key_id,
        created_at=at,
    )


def run_apart(work: Coroutine[Any, Any, T]) -> T:
    """`work` run to its end on an event loop of its own thread: the browser tests' session
    keeps Playwright's loop running on the main thread, where no other loop may run."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()
