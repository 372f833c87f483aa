"""Everything one server process holds: settings, the validator and its model, the store,
the knowledge base, keys, the rate limiter, the redactor and the metrics; started and stopped
with the app."""

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from jurist.judges import Retriever
from jurist.knowledge import KnowledgeBase
from jurist.llm import Model, Redactor, innermost, load_redactor
from jurist.server._auth import Authenticator
from jurist.server._config import ServiceSettings
from jurist.server._keys import KeyRing
from jurist.server._metrics import Metrics
from jurist.server._rate_leases import LeasedCounter
from jurist.server._ratelimit import RateLimiter
from jurist.server._redaction_batch import RedactionBatch
from jurist.server._remote_sources import RemoteSources
from jurist.server._sealing import Sealer, content_sealer, sealer_for, warn_of_key_file
from jurist.settings import Settings
from jurist.store import (
    AuditSpool,
    KeyStore,
    PurgeReport,
    RateCounts,
    RecordStore,
    StoreError,
    database_url,
    keep_for,
    keep_replaying,
)
from jurist.validation import Validator

log = logging.getLogger("jurist.server")


@dataclass
class ModelState:
    """Whether the judges' model is ready: remote models are at once, the embedded one
    once its weights are loaded (in the background, so probes answer meanwhile)."""

    ready: bool = False
    error: str | None = None
    task: "asyncio.Task[None] | None" = field(default=None, repr=False)


class Service:
    def __init__(
        self,
        settings: Settings,
        config: ServiceSettings,
        *,
        model: Model | str | None = None,
        store: RecordStore | None = None,
        retriever: Retriever | None = None,
        redactor: Redactor | None = None,
        load_model: bool = True,
    ) -> None:
        self.settings = settings
        self.config = config
        self.keys = KeyRing.parse(config.api_keys)
        self.limiter = RateLimiter.parse(config.rate_limit)
        # Until the store is open, only the configured keys are known.
        self.auth = Authenticator(self.keys, cache_s=config.key_cache_s)
        self.metrics = Metrics()
        # Seals raw content when it is kept; its keys also unseal what was kept before.
        self.sealer: Sealer | None
        self.key_file: Path | None = None  # the key this machine made itself, if any
        if config.store_content == "sealed":
            self.sealer, self.key_file = content_sealer(
                config.encryption_key, sqlite=self._on_sqlite(settings), home=settings.home
            )
        else:
            self.sealer = sealer_for(config.store_raw, config.encryption_key)
        self.retention: asyncio.Task[None] | None = None
        self.last_purge: PurgeReport | None = None
        self.purged = asyncio.Event()  # set after each retention pass
        self._redactor = redactor
        # Concurrent requests' records are redacted together, in one analysis.
        self.redactions = RedactionBatch(lambda: self.redactor)
        self._given_store = store
        self._given_retriever = retriever
        self._model_choice = model
        self._load_model = load_model
        self.store: RecordStore | None = store
        self.knowledge: KnowledgeBase | None = None
        self.validator = Validator(model, retriever=retriever, settings=settings)
        self.model_state = ModelState()
        # Audit records the database cannot take wait here, and are written when it returns.
        self.audit_spool = AuditSpool(settings.audit_spool_dir)
        self._replay_stop = asyncio.Event()
        self._replay: asyncio.Task[None] | None = None
        self._redactor_task: asyncio.Future[Any] | None = None
        self._when_warm: list[Callable[[], None]] = []
        self._warming: asyncio.Task[None] | None = None

    @staticmethod
    def _on_sqlite(settings: Settings) -> bool:
        url = settings.database_url
        # The scheme alone: a URL that does not parse is reported when the store opens.
        return url is None or url.strip().lower().startswith("sqlite")

    def redactor_state(self) -> tuple[bool, str | None]:
        """Whether the redactor is built (what is stored and audited goes through it, so a
        request waits for it until then), and why not when its build failed."""
        task = self._redactor_task
        if task is None:
            return True, None
        if not task.done():
            return False, None
        if task.cancelled():
            return False, "its build was cancelled"
        failed = task.exception()
        return failed is None, None if failed is None else f"{type(failed).__name__}: {failed}"

    @property
    def redactor(self) -> Redactor:
        if self._redactor is None:
            self._redactor = load_redactor(self.settings.redactor)
        return self._redactor

    async def start(self) -> None:
        if self.key_file is not None:  # said once logging is set up
            warn_of_key_file(self.key_file)
        if self.store is None:
            self.store = await RecordStore.open(self.settings.database_url, self.settings)
        self._replay = asyncio.create_task(
            keep_replaying(
                self.audit_spool, self.store.engine, self.settings.audit_retry_s, self._replay_stop
            )
        )
        self.auth.keys = KeyStore(self.store.engine)
        await self.auth.required()  # what the OpenAPI schema says of authentication
        if self.limiter is not None and self.config.rate_limit_storage == "database":
            self.limiter.counter = LeasedCounter(RateCounts(self.store.engine))
        if self._given_retriever is None:
            self.validator.retriever = await self._retriever()
        self.model_state.task = asyncio.create_task(self._warm_model())
        # The redactor's engine takes seconds to build: build it now, not in the first audit.
        load = getattr(self.redactor, "load", None)
        if callable(load):
            self._redactor_task = asyncio.create_task(asyncio.to_thread(load))
        self._warming = asyncio.create_task(self._warm())
        if self.config.retention_days is not None:
            age = timedelta(days=self.config.retention_days)
            self.retention = asyncio.create_task(keep_for(self.store, age, on_pass=self._purged))

    def when_warm(self, callback: Callable[[], None]) -> None:
        """Call `callback` once what start-up builds in the background (the model, the
        redactor's engine) is built, or failed to be."""
        self._when_warm.append(callback)

    async def _warm(self) -> None:
        builds = [task for task in (self.model_state.task, self._redactor_task) if task]
        # Their failures are the readiness probes' to report, not this task's.
        await asyncio.gather(*builds, return_exceptions=True)
        for callback in self._when_warm:
            callback()

    def _purged(self, report: PurgeReport) -> None:
        self.last_purge = report
        self.purged.set()

    async def _retriever(self) -> Retriever:
        if self.settings.trusted_sources_url:
            return RemoteSources(self.settings.trusted_sources_url)
        url = self.settings.knowledge_base_url or self.settings.database_url
        self.knowledge = await KnowledgeBase.open(url, self.settings)
        return self.knowledge

    async def _warm_model(self) -> None:
        try:
            model = self.validator.model()
            inner: Any = innermost(model)
            if self._load_model and hasattr(inner, "load"):
                await inner.load()
            self.model_state.ready = True
        except Exception as exc:  # noqa: BLE001 - any failure to load means not ready, said
            self.model_state.error = f"{type(exc).__name__}: {exc}"
            log.error("the model is not ready: %s", self.model_state.error)

    async def stop(self) -> None:
        if self.store is not None:
            # Every write queued for the group commit (the last requests' audit entries) is
            # committed, or failed and spooled, before anything closes.
            await self.store.flush()
        if self._replay is not None:
            self._replay_stop.set()
            await self._replay  # not cancelled mid-write: the store's timeouts bound it
        self.audit_spool.close()
        if self.retention is not None:
            self.retention.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.retention  # before the store it purges is closed
        for task in (self._warming, self.model_state.task):
            if task is not None and not task.done():
                task.cancel()
        if isinstance(self.validator.retriever, RemoteSources):
            await self.validator.retriever.close()
        if self.knowledge is not None:
            await self.knowledge.close()
        if self.store is not None and self._given_store is None:
            await self.store.close()

    def require_store(self) -> RecordStore:
        if self.store is None:
            raise StoreError("the store is not open")
        return self.store

    def describe_database(self) -> str:
        url = self.settings.database_url
        if url is None:
            return f"sqlite (default, {self.settings.database_file})"
        return database_url(url).render_as_string(hide_password=True)
