"""`jurist serve` and `jurist keys`: run the validation service, make API keys."""

from typing import Annotated

import typer

from jurist.cli._inputs import exit_bad_input

# jurist.server is imported inside the commands: it needs the `server` extra, which every
# other command does without.

keys_app = typer.Typer(help="API keys for the service.", no_args_is_help=True)


def serve_command(
    *,
    host: Annotated[
        str | None,
        typer.Option("--host", help="Interface to listen on (default: JURIST_HOST, 127.0.0.1)."),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", help="Port (default: JUDGE_PORT, 8005).", min=1, max=65535),
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", help="Worker processes (each loads its own model).", min=1)
    ] = 1,
) -> None:
    """Run the validation service: POST /validate, POST /judge, GET /validations/{id},
    /judgments/{id}, /rubrics, /health, /ready, /metrics (OpenAPI at /docs).

    Configuration comes from the environment (JUDGE_PORT, JUDGE_MODEL, JURIST_DATABASE_URL,
    JURIST_API_KEYS, ...). Without API keys only 127.0.0.1 is allowed.
    """
    from jurist.server import ConfigError, serve

    try:
        serve(host, port, workers)
    except ConfigError as exc:
        exit_bad_input(exc)


@keys_app.command("new")
def new(
    key_id: Annotated[str, typer.Argument(help="A name for the key, e.g. the caller's.")],
) -> None:
    """Make an API key: prints the secret (give it to the caller, once) and the hashed entry
    for JURIST_API_KEYS (keep only that on the server)."""
    from jurist.server import KeyRing, new_key

    secret, digest = new_key()
    entry = f"{key_id}:sha256:{digest}"
    try:
        KeyRing.parse(entry)
    except ValueError as exc:
        exit_bad_input(exc)
    typer.echo(f"key:   {secret}")
    typer.echo(f"entry: {entry}")
