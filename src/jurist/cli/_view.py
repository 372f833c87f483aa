"""`jurist view`: the web viewer of what the store holds, on 127.0.0.1."""

from typing import Annotated

import typer

from jurist.cli._inputs import BadInput, exit_bad_input
from jurist.cli._kb import DatabaseOption

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8006


def view_command(
    *,
    database: DatabaseOption = None,
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on.", min=1, max=65535)
    ] = DEFAULT_PORT,
) -> None:
    """Look at runs, their items and every judgment, the service's validations, calibration
    reports with their plots, improvement cycles, tournaments and reputations in a browser:
    http://127.0.0.1:PORT/view. It listens on 127.0.0.1 only (the viewer of `jurist serve`,
    at /view, is the one behind API keys) and loads nothing from the network.
    """
    try:
        import uvicorn

        from jurist.viewer import PREFIX, create_viewer_app
    except ImportError as exc:
        exit_bad_input(
            BadInput(f"the viewer needs its extra: pip install 'jurist[viewer]' ({exc})")
        )
    app = create_viewer_app(database)
    typer.echo(f"jurist viewer at http://{LOOPBACK}:{port}{PREFIX} (Ctrl-C stops it)")
    uvicorn.run(app, host=LOOPBACK, port=port, log_config=None, access_log=False)
