"""The `jurist` command."""

from jurist.cli._app import app, main

__all__ = ["app", "main"]
