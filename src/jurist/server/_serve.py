"""Running the service: `jurist serve` checks the configuration, refuses to listen beyond
the loopback interface without API keys, and hands the app to uvicorn."""

import asyncio
import os
import tempfile

import uvicorn
from fastapi import FastAPI

from jurist.core import pace_collector
from jurist.server._app import create_app
from jurist.server._config import LOOPBACK, ConfigError, load_config
from jurist.server._keys import KeyRing
from jurist.server._logging import lean_log_records
from jurist.settings import Settings
from jurist.store import KeyStore, StoreError


def check_bind(host: str, keys: KeyRing, stored_keys: int = 0) -> None:
    """Without keys (configured or in the database), anyone who can reach the port could
    use the service (and spend its model budget): only the loopback interface is allowed
    then."""
    if not keys and not stored_keys and host != LOOPBACK:
        raise ConfigError(
            f"refusing to listen on {host} without API keys: anyone who can reach it could "
            f"use the service. Set JURIST_API_KEYS (`jurist keys new ID` makes one) or listen "
            f"on {LOOPBACK}"
        )


def _stored_keys(settings: Settings) -> int:
    """Keys ever made in the service's database (0 when it cannot be read: then only the
    loopback interface is allowed, as without keys)."""

    async def count() -> int:
        async with await KeyStore.open(settings.database_url, settings) as keys:
            return await keys.count(include_revoked=True)

    try:
        return asyncio.run(count())
    except StoreError:
        return 0


def app_from_environment() -> FastAPI:
    """The app as each uvicorn worker builds it (a factory, so workers read the env)."""
    app = create_app()
    _own_process(app)
    return app


def _own_process(app: FastAPI) -> None:
    """What a process that only serves jurist sets for good (see each). The collector's
    pace is set again once the model and the redactor are built in the background: they
    are most of the heap (~400,000 objects with the default redactor), and every full
    collection walked them, a pause of ~0.25 s on this machine's kind."""
    pace_collector()
    lean_log_records()
    app.state.service.when_warm(pace_collector)


def serve(host: str | None = None, port: int | None = None, workers: int = 1) -> None:
    settings, config = load_config()
    host = host or config.host
    port = port or config.port
    try:
        keys = KeyRing.parse(config.api_keys)
    except ValueError as exc:  # names JURIST_API_KEYS and the entry, never the secret
        raise ConfigError(str(exc)) from None
    check_bind(host, keys, 0 if keys or host == LOOPBACK else _stored_keys(settings))
    if workers < 1:
        raise ConfigError(f"--workers must be 1 or more, not {workers}")
    if workers == 1:
        app = create_app(settings, config)
        _own_process(app)
        uvicorn.run(app, host=host, port=port, log_config=None, access_log=False)
        return
    # Workers are separate processes: metrics go through shared files so /metrics on any
    # worker reports them all.
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="jurist-metrics-"))
    uvicorn.run(
        "jurist.server._serve:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_config=None,
        access_log=False,
    )
