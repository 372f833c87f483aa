"""`jurist view` as a user runs it: a process serving the viewer over the given database, on
127.0.0.1 only, with its assets from the installed package."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

STARTUP_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def other_address() -> str | None:
    """An address of this machine that is not the loopback, if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))  # UDP: nothing is sent
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("127.") else address


def test_jurist_view_serves_the_viewer_on_the_loopback_only(tmp_path: Path):
    port = free_port()
    database = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    env = {**os.environ, "JURIST_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "jurist.cli", "view", "--database", database]
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_S
        answer = None
        # Waiting for the process to listen, not timing it: the loop ends on the first answer.
        while answer is None:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "jurist view did not start"
            try:
                answer = httpx.get(f"{url}/view/static/viewer.css")
            except httpx.TransportError:
                time.sleep(0.1)
        assert answer.status_code == 200
        assert "text/css" in answer.headers["content-type"]
        assert httpx.get(url).headers.get("location") == "/view"
        assert httpx.get(f"{url}/", follow_redirects=True).status_code == 200
        elsewhere = other_address()
        if elsewhere is not None:
            with socket.socket() as sock:
                sock.settimeout(2)
                assert sock.connect_ex((elsewhere, port)) != 0
        assert (tmp_path / "runs.sqlite3").exists()  # the store it was given, migrated
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/view" in out
