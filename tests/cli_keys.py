"""`jurist keys ...` run in process, for the CLI's tests and the service's."""

import re

from click.testing import Result
from typer.testing import CliRunner

from jurist.cli import app

runner = CliRunner()


def keys_command(database: str, *args: str) -> Result:
    return runner.invoke(app, ["keys", *args, "--database", database])


def secret_of(output: str) -> str:
    """The secret a `keys new` or `keys rotate` printed."""
    found = re.search(r"key:\s+(\S+)", output)
    assert found is not None, output
    return found[1]
