"""The FastAPI application: `create_app()` reads the environment; tests and embedders pass
settings, a model, a store or a retriever of their own."""

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI

from jurist import __version__
from jurist.core import otlp_tracing, stop_tracing, tracing_enabled
from jurist.judges import Retriever
from jurist.llm import Model, Redactor, redact_json
from jurist.server._config import ConfigError, ServiceSettings, load_config
from jurist.server._cycles import router as cycles_router
from jurist.server._docs import install_docs
from jurist.server._edge import Edge
from jurist.server._errors import install_handlers
from jurist.server._key_routes import router as keys_router
from jurist.server._logging import configure_logging
from jurist.server._routes import router
from jurist.server._service import Service
from jurist.settings import Settings
from jurist.store import AuditRecord, RecordStore, StoreError
from jurist.viewer import OPERATOR_VIEWER, Viewer, install_viewer

log = logging.getLogger("jurist.server")

DESCRIPTION = """Validate the outputs of language models and agents before trusting them.

POST /validate runs the requested layers (schema, facts, criteria, hallucination, quality)
concurrently and answers with every issue, its severity and a suggestion; valid is false
when any issue is an error. Every validation is stored before it is answered.
"""


def create_app(
    settings: Settings | None = None,
    config: ServiceSettings | None = None,
    *,
    model: Model | str | None = None,
    store: RecordStore | None = None,
    retriever: Retriever | None = None,
    redactor: Redactor | None = None,
    load_model: bool = True,
) -> FastAPI:
    """The service. Settings not given are read from the environment; a bad one raises
    `ConfigError` naming the variable."""
    if settings is None or config is None:
        read_settings, read_config = load_config()
        settings = settings or read_settings
        config = config or read_config
    try:
        service = Service(
            settings,
            config,
            model=model,
            store=store,
            retriever=retriever,
            redactor=redactor,
            load_model=load_model,
        )
    except ValueError as exc:  # a bad key list or rate limit names its variable
        raise ConfigError(str(exc)) from None
    configure_logging(config.log_level.value)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Spans over OTLP when configured, unless the embedding application traces already.
        own_tracing = service.settings.tracing and not tracing_enabled()
        if own_tracing:
            otlp_tracing(service.settings.traces_endpoint, service_name="jurist-service")
        await service.start()
        log.info(
            "jurist service started",
            extra={
                "model": service.validator.model_spec,
                "database": service.describe_database(),
                "api_keys": len(service.keys),
            },
        )
        try:
            yield
        finally:
            await service.stop()
            if own_tracing:
                stop_tracing()

    app = FastAPI(
        title="jurist",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # FastAPI's pages load their scripts from a CDN: ours are installed
        redoc_url=None,
    )
    app.state.service = service
    install_handlers(app)
    app.include_router(router)
    app.include_router(cycles_router)
    app.include_router(keys_router)
    _install_pages(app, service)

    def openapi() -> dict[str, Any]:
        # Keys can appear at run time (the key table), so the schema is made for each ask.
        app.openapi_schema = None
        schema = FastAPI.openapi(app)
        return schema if service.auth.known_required else _without_auth(schema)

    app.openapi = openapi  # type: ignore[method-assign]

    async def audit(record: dict[str, Any]) -> None:
        detail = record.pop("detail", None)
        if detail is not None and not record.pop("detail_redacted", False):
            # The audit log never holds personal data, whether or not model calls are redacted.
            detail = await asyncio.to_thread(redact_json, detail, service.redactor)
        # Stamped before the first try: a record whose write did commit, though the answer
        # never came, is then known again when it is replayed, and is not stored twice.
        record.pop("detail_redacted", None)
        entry = AuditRecord(**record, detail=detail, at=datetime.now(UTC))
        spool = service.audit_spool
        if not spool.holding:  # else the database is down still: queue behind the others
            try:
                await service.require_store().write_audit(entry)
                return
            except StoreError as exc:
                log.warning(
                    "audit records go to %s until the database answers: %s", spool.directory, exc
                )
        await asyncio.to_thread(spool.append, entry)

    def count(route: str, status: int) -> None:
        service.metrics.requests.labels(route, str(status)).inc()

    app.add_middleware(Edge, max_body_bytes=config.max_body_bytes, audit=audit, count=count)
    return app


def _install_pages(app: FastAPI, service: Service) -> None:
    """The pages for people: the API's documentation and the viewer of the records."""
    install_docs(app)
    install_viewer(app, lambda _request: service.require_store(), _viewer_keys(service))


def _viewer_keys(service: Service) -> Callable[[str | None], Awaitable[Viewer | None]]:
    """The viewer's pages under the service: a key reads what it reads through the API."""

    async def identify(key: str | None) -> Viewer | None:
        if not await service.auth.required():
            return OPERATOR_VIEWER
        found = await service.auth.identify(None if key is None else f"Bearer {key}")
        if found is None:
            return None
        return Viewer(owner=found.owner_filter(), admin=found.is_admin, key_id=found.key_id)

    return identify


def _without_auth(schema: dict[str, Any]) -> dict[str, Any]:
    """A service without keys asks for no authentication, and its schema must not say it
    does (clients and fuzzers trust the schema)."""
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            operation.pop("security", None)
            operation.get("responses", {}).pop("401", None)
    schema.get("components", {}).pop("securitySchemes", None)
    return schema
