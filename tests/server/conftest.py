"""A real jurist service on 127.0.0.1 for each test that asks: uvicorn in a thread, on a
port the kernel picks, with a scripted model (or the one given) and a store in the test's
own SQLite file or PostgreSQL database."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from running import Running, run_app, sealing_config

from jurist.llm import Model
from jurist.server import ServiceSettings, create_app
from jurist.settings import Settings
from service_script import ServiceScript, scripted_model

Serve = Callable[..., Running]


@pytest.fixture
def database(request, tmp_path) -> str:
    """SQLite by default; `@pytest.mark.parametrize("database", ["sqlite", "postgresql"],
    indirect=True)` runs a test on both."""
    if getattr(request, "param", "sqlite") == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return f"sqlite:///{tmp_path / 'service.sqlite3'}"


@pytest.fixture
def serve(tmp_path, database) -> Iterator[Serve]:
    """`serve(script=..., model=..., settings={...}, config={...})` starts a service."""
    started: list[Running] = []

    def start(
        script: ServiceScript | None = None,
        *,
        model: Model | str | None = None,
        settings: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        **options: Any,
    ) -> Running:
        values = {
            "JURIST_HOME": str(tmp_path / "home"),
            "JURIST_CACHE": "0",
            "JURIST_DATABASE_URL": database,
            **(settings or {}),
        }
        service_values = {
            "JURIST_RATE_LIMIT": "none",
            "LOG_LEVEL": "warning",
            **sealing_config(database, config),
        }
        chosen = model if model is not None else scripted_model(script or ServiceScript())
        app = create_app(
            Settings(**values), ServiceSettings(**service_values), model=chosen, **options
        )
        running = run_app(app)
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()
