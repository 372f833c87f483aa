"""The system Chromium the browser tests drive through Playwright, and how it is started:
no sandbox (containers), no GPU, none of the background requests a fresh profile makes."""

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL = "127.0.0.1"
