"""`jurist models`: the embedded models, whether they are installed and ready, and preparing
them (assembling and verifying the weights) ahead of the first judgment."""

import json
from typing import Annotated

import typer
from rich.table import Table

from jurist.cli._exit import Exit
from jurist.cli._render import output_console
from jurist.llm import (
    CATALOG,
    KnownModel,
    ModelError,
    WeightsState,
    prepare_weights,
    runtime_installed,
    weights_state,
)
from jurist.settings import get_settings

models_app = typer.Typer(
    help="List the embedded models, or prepare one (assemble and verify its weights).",
    no_args_is_help=False,
    invoke_without_command=True,
)


def _row(model: KnownModel, weights: WeightsState) -> dict[str, object]:
    return {
        "spec": model.spec,
        "title": model.title,
        "use": model.use,
        "extra": model.extra,
        "install": model.install,
        "installed": weights.installed,
        "ready": weights.ready,
        "size_bytes": model.size_bytes,
        "sha256": model.sha256,
        "path": weights.path,
        "license": model.license,
    }


@models_app.callback()
def list_models(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print the models as JSON.")] = False,
) -> None:
    """List the known embedded models with their state, size and sha256."""
    if ctx.invoked_subcommand is not None:
        return
    settings = get_settings()
    rows = [_row(m, weights_state(m, settings.models_dir)) for m in CATALOG.values()]
    if as_json:
        payload = {
            "default": settings.model,
            "runtime_installed": runtime_installed(),
            "models_dir": str(settings.models_dir),
            "response_cache": str(settings.cache_file) if settings.cache else None,
        }
        typer.echo(json.dumps({**payload, "models": rows}, indent=2))
        return
    table = Table(title=f"embedded models (default judge model: {settings.model})")
    table.add_column("spec", no_wrap=True)
    for column in ("use", "installed", "ready", "size"):
        table.add_column(column)
    table.add_column("sha256", no_wrap=True)
    for row in rows:
        installed = "yes" if row["installed"] else f"no: {row['install']}"
        ready = "yes" if row["ready"] else "no" if row["installed"] else "-"
        size = f"{int(str(row['size_bytes'])) / 2**20:,.0f} MiB"
        sha = str(row["sha256"])
        table.add_row(str(row["spec"]), str(row["use"]), installed, ready, size, sha[:12])
    console = output_console()
    console.print(table)
    if not runtime_installed():
        console.print("the embedded runtime is not installed: pip install 'jurist[local]'")


@models_app.command("prepare")
def prepare_model(
    name: Annotated[
        str | None,
        typer.Argument(help="A known model (default: the default judge model's)."),
    ] = None,
) -> None:
    """Assemble a model's weights into JURIST_HOME and verify their sha256."""
    settings = get_settings()
    chosen = name or settings.model.removeprefix("local:")
    model = CATALOG.get(chosen.removeprefix("local:"))
    if model is None:
        known = ", ".join(CATALOG)
        typer.echo(f"NAME: unknown model {chosen!r} (known: {known})", err=True)
        raise typer.Exit(Exit.BAD_INPUT)
    try:
        path = prepare_weights(model, settings.models_dir)
    except ModelError as exc:
        typer.echo(f"{model.spec}: {exc.cause}", err=True)
        raise typer.Exit(Exit.UNDECIDED) from exc
    typer.echo(f"{model.spec}: ready at {path} (sha256 {model.sha256})")
