"""The typer application behind the `jurist` command."""

import os
from typing import Annotated

import typer
from pydantic import ValidationError

from jurist import __version__
from jurist.cli._calibrate import align_command, calibrate_command
from jurist.cli._check import check
from jurist.cli._compare import compare
from jurist.cli._criteria import criteria
from jurist.cli._cycles import cycles_app
from jurist.cli._eval import eval_command
from jurist.cli._exit import Exit
from jurist.cli._grounding import facts, grounding
from jurist.cli._help import ReadableGroup
from jurist.cli._improve import improve_command
from jurist.cli._judge import judge
from jurist.cli._kb import kb_app
from jurist.cli._models import models_app
from jurist.cli._reputation import reputation_app
from jurist.cli._rubrics import rubrics_app
from jurist.cli._runs import runs_app
from jurist.cli._serve import keys_app, serve_command
from jurist.cli._store import store_app
from jurist.cli._tournament import tournament_command
from jurist.cli._validate import validate
from jurist.cli._view import view_command
from jurist.core import TracingUnavailable, otlp_tracing, tracing_enabled
from jurist.settings import Settings, explain_invalid, get_settings

app = typer.Typer(
    name="jurist",
    help="Judge the outputs of language models and agents.",
    cls=ReadableGroup,
    # Help text is Markdown: a docstring's paragraphs flow to the terminal's width, while
    # lists and indented examples keep their lines.
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"jurist {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    no_cache: Annotated[
        bool,
        typer.Option("--no-cache", help="Ask the model again instead of reusing cached answers."),
    ] = False,
) -> None:
    """Judge the outputs of language models and agents."""
    if no_cache:
        # Every command reads its settings from the environment: this run's turn the cache off.
        os.environ["JURIST_CACHE"] = "0"
        get_settings.cache_clear()
    try:
        get_settings()
    except ValidationError as exc:
        # Read here, before any command starts, so a bad JURIST_* variable is one line, not a
        # traceback from wherever a setting is first needed.
        typer.echo(f"error: {explain_invalid(exc, Settings)}", err=True)
        raise typer.Exit(Exit.BAD_INPUT) from None
    if ctx.invoked_subcommand != "serve":  # the service traces on its own, in each worker
        _start_tracing(get_settings())


def _start_tracing(settings: Settings) -> None:
    """Spans over OTLP when configured (JURIST_OTEL, OTEL_EXPORTER_OTLP_ENDPOINT); the batch
    left at exit is sent then. A caller tracing already (a test, an embedding) keeps its own."""
    if not settings.tracing or tracing_enabled():
        return
    try:
        otlp_tracing(settings.traces_endpoint, service_name="jurist")
    except TracingUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(Exit.BAD_INPUT) from None


app.command("align")(align_command)
app.command("calibrate")(calibrate_command)
app.command("check")(check)
app.command("compare")(compare)
app.command("criteria")(criteria)
app.command("eval")(eval_command)
app.command("facts")(facts)
app.command("grounding")(grounding)
app.command("improve")(improve_command)
app.command("judge")(judge)
app.command("serve")(serve_command)
app.command("tournament")(tournament_command)
app.command("validate")(validate)
app.command("view")(view_command)
app.add_typer(cycles_app, name="cycles")
app.add_typer(keys_app, name="keys")
app.add_typer(kb_app, name="kb")
app.add_typer(models_app, name="models")
app.add_typer(reputation_app, name="reputation")
app.add_typer(rubrics_app, name="rubrics")
app.add_typer(runs_app, name="runs")
app.add_typer(store_app, name="store")


def main() -> None:
    app()
