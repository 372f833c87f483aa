"""`jurist serve` paces the garbage collector of its own processes, and only of those, and
leaves out of their log records what no log line shows."""

import asyncio
import gc
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from jurist.core import YOUNG_THRESHOLD
from jurist.server import ServiceSettings, _serve, create_app
from jurist.settings import Settings
from scripted import ScriptedModel


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    recorded = (logging.logProcesses, logging.logThreads, logging.logMultiprocessing)
    yield
    logging.logProcesses, logging.logThreads, logging.logMultiprocessing = recorded
    gc.unfreeze()
    gc.set_threshold(*threshold)
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_serve_freezes_what_start_up_built_and_raises_the_young_threshold(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("JURIST_HOME", str(tmp_path))
    gc.set_threshold(700, 10, 10)
    gc.unfreeze()
    seen: dict[str, Any] = {}

    def run(app: Any, **options: Any) -> None:
        seen.update(threshold=gc.get_threshold(), frozen=gc.get_freeze_count(), app=app)

    app = _app(tmp_path)
    monkeypatch.setattr(_serve, "create_app", lambda *args, **kwargs: app)
    monkeypatch.setattr(_serve.uvicorn, "run", run)
    _serve.serve(port=18099)
    assert seen["app"] is app
    assert seen["threshold"] == (YOUNG_THRESHOLD, 10, 10)
    assert seen["frozen"] > 0
    record = logging.getLogger("jurist.server").makeRecord(
        "jurist.server", logging.INFO, __file__, 1, "request", None, None
    )
    assert (record.process, record.thread, record.processName) == (None, None, None)


def test_a_worker_built_by_the_factory_is_paced_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gc.set_threshold(700, 10, 10)
    monkeypatch.setattr(_serve, "create_app", lambda: _app(tmp_path))
    _serve.app_from_environment()
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert not logging.logProcesses


class _LoadedModel(ScriptedModel):
    """A model whose weights take objects to load, as the embedded one's and the
    redactor's do; built in the background after the service has started."""

    weights: list[list[int]]

    async def load(self) -> None:
        self.weights = [[index] for index in range(50_000)]


def _app(home: Path, model: ScriptedModel | None = None) -> FastAPI:
    return create_app(
        Settings(JURIST_HOME=str(home), JURIST_DATABASE_URL=f"sqlite:///{home / 'j.sqlite3'}"),
        ServiceSettings(JURIST_RATE_LIMIT="none"),
        model=model or ScriptedModel("test:judge", []),
    )


def test_what_the_service_builds_after_start_up_is_frozen_once_built(tmp_path: Path) -> None:
    gc.enable()
    gc.unfreeze()
    model = _LoadedModel("test:judge", [])
    app = _app(tmp_path, model)
    _serve._own_process(app)

    async def collected_once_warm() -> list[Any]:
        warm = asyncio.Event()
        app.state.service.when_warm(warm.set)  # called after the process's own callbacks
        async with app.router.lifespan_context(app):
            await asyncio.wait_for(warm.wait(), 30)
            # What collections still walk: every generation but the frozen one.
            return gc.get_objects()

    walked = asyncio.run(collected_once_warm())
    assert model.weights
    assert not any(found is model.weights or found is model.weights[-1] for found in walked)


@pytest.mark.parametrize("threshold", [(0, 10, 10), (50_000, 10, 10)])
def test_a_threshold_set_off_or_higher_is_left_as_it_was(threshold: tuple[int, int, int]) -> None:
    gc.set_threshold(*threshold)
    _serve.pace_collector()
    assert gc.get_threshold() == threshold


def test_collection_turned_off_stays_off_and_nothing_is_frozen() -> None:
    gc.unfreeze()
    gc.disable()
    _serve.pace_collector()
    assert not gc.isenabled()
    assert gc.get_freeze_count() == 0
