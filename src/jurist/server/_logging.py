"""Structured logs: one JSON object per line on stderr, for jurist's loggers and uvicorn's.

Nothing secret is logged: requests are logged by method, path, status, latency and key id,
never by header or body; validations by their verdict and counts, never by content.
"""

import logging
import sys

from pythonjsonlogger.orjson import OrjsonFormatter

_LOGGERS = ("jurist", "uvicorn", "uvicorn.error")


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    # orjson: a request's log line is written on every request, and the json module's
    # encoder cost several times as much CPU.
    handler.setFormatter(
        OrjsonFormatter(
            "%(asctime)s %(levelname)s %(name)s %(message)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    )
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    # uvicorn's access log repeats, unstructured, what jurist logs per request.
    logging.getLogger("uvicorn.access").disabled = True


def lean_log_records() -> None:
    """For a process jurist runs itself (`jurist serve`): log records leave out the process,
    thread and multiprocessing names that no line of its logs shows, which the logging
    module otherwise asks the system for on every record (two lines a request). An app
    embedded in another process keeps that process's settings."""
    logging.logProcesses = False
    logging.logThreads = False
    logging.logMultiprocessing = False
