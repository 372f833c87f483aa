"""`jurist serve` paces the garbage collector of its own processes, and only of those, and
leaves out of their log records what no log line shows."""

import gc
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from jurist.core import YOUNG_THRESHOLD
from jurist.server import _serve


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

    app = FastAPI()
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


def test_a_worker_built_by_the_factory_is_paced_too(monkeypatch: pytest.MonkeyPatch) -> None:
    gc.set_threshold(700, 10, 10)
    monkeypatch.setattr(_serve, "create_app", FastAPI)
    _serve.app_from_environment()
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert not logging.logProcesses


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
