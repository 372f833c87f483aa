"""A real jurist service on 127.0.0.1: uvicorn in a thread, on a port the kernel picks."""

import asyncio
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
import sqlalchemy as sa
import uvicorn
from cryptography.fernet import Fernet
from fastapi import FastAPI

from jurist.server._service import Service
from jurist.store import create_engine

STARTUP_S = 30.0
# The key every service of a test run seals with on PostgreSQL, as replicas share one (the
# default sealed content refuses to start there without JURIST_ENCRYPTION_KEY).
SHARED_KEY = Fernet.generate_key().decode("ascii")


def sealing_config(database: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """`config` with the shared key added when the database is not SQLite and the test
    chose neither a key nor how content is stored."""
    given = config or {}
    chosen = {"JURIST_ENCRYPTION_KEY", "JURIST_STORE_CONTENT"} & set(given)
    if database.startswith("sqlite") or chosen:
        return dict(given)
    return {"JURIST_ENCRYPTION_KEY": SHARED_KEY, **given}


@dataclass
class Running:
    url: str
    app: FastAPI
    server: uvicorn.Server
    thread: threading.Thread

    @property
    def service(self) -> Service:
        service: Service = self.app.state.service
        return service

    def client(self, key: str | None = None, **options: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, **options)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(STARTUP_S)


def run_app(app: FastAPI) -> Running:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_S
    # Waiting for the server to be up, not timing anything: the loop ends on the event.
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    return Running(f"http://127.0.0.1:{port}", app, server, thread)


def count_rows(url: str, table: str) -> int:
    """Rows in a table, read through a connection of the test's own."""

    async def count() -> int:
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                rows = await connection.execute(sa.text(f"SELECT count(*) FROM {table}"))
                return int(rows.scalar_one())
        finally:
            await engine.dispose()

    return asyncio.run(count())
