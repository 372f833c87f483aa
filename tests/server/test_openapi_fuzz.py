"""schemathesis against the service's own OpenAPI schema, on a running server: whatever it
generates, no answer is a 5xx and every answer matches the schema the service publishes.

The service runs with an admin key, as a multi-tenant deployment does: without one, the
fuzzer's first POST /keys would turn authentication on under a schema fetched before."""

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from running import run_app
from schemathesis.checks import positive_data_acceptance

from jurist.server import ServiceSettings, create_app, new_key
from jurist.settings import Settings
from service_script import ServiceScript, scripted_model

ADMIN = new_key()[0]


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    home = tmp_path_factory.mktemp("fuzz")
    app = create_app(
        Settings(
            JURIST_HOME=str(home),
            JURIST_CACHE="0",
            JURIST_DATABASE_URL=f"sqlite:///{home / 'service.sqlite3'}",
        ),
        ServiceSettings(
            JURIST_RATE_LIMIT="none", LOG_LEVEL="error", JURIST_API_KEYS=f"fuzz:admin:{ADMIN}"
        ),
        model=scripted_model(ServiceScript(lenient=True), calls=100_000),
    )
    running = run_app(app)
    yield running
    running.stop()


def test_every_operation_answers_within_its_schema(api):
    # The plugin's pytest integration does not run under this pytest; hypothesis drives
    # each operation's strategy directly instead, which is the same generation and checks.
    schema = schemathesis.openapi.from_url(f"{api.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    for operation in operations:
        _fuzz(operation)()


def _fuzz(operation):
    excluded = _beyond_json_schema(operation.path)

    @given(case=operation.as_strategy())
    @settings(
        max_examples=30,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def check(case):
        case.call_and_validate(
            headers={"Authorization": f"Bearer {ADMIN}"}, excluded_checks=excluded
        )

    return check


def _beyond_json_schema(path: str) -> list:
    """Checks that cannot hold for an operation: some of its rules are beyond JSON Schema, so
    a schema-valid request can be refused with 422 for them alone. POST /validate's
    expected_schema must itself be a valid JSON Schema; POST /judge's rubric must be an id
    of the library (or a valid rubric) and its judge a valid spec; the sources named to
    /sources/* must exist in the knowledge base. Everywhere else, every schema-valid request
    is accepted."""
    beyond = ("/validate", "/judge", "/sources/search", "/sources/check")
    return [positive_data_acceptance] if path in beyond else []
