"""Reading what a user passes on the command line; every problem names its argument."""

import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from jurist.cli._exit import Exit
from jurist.core import JuristError
from jurist.llm import parse_spec


class BadInput(JuristError):
    """Input the user must fix; the message names the argument and the problem."""


def exit_bad_input(exc: Exception) -> NoReturn:
    """Say on standard error what the user must fix, and exit 2."""
    Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False)
    raise typer.Exit(Exit.BAD_INPUT) from exc


def read_output(source: str, argument: str = "OUTPUT") -> str:
    """The text of a file argument, or standard input for "-"."""
    if source == "-":
        try:
            return sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadInput(f"{argument}: standard input is not UTF-8 (byte {exc.start})") from exc
        except AttributeError:  # a text stream with no bytes beneath (a test's, say)
            return sys.stdin.read()
    return read_file(argument, Path(source))


def read_file(option: str, path: Path) -> str:
    """The text of a file given to an argument or an option such as --source."""
    if not path.is_file():
        raise BadInput(f"{option}: no such file: {path}")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{option}: cannot read {path}: {exc}") from exc


def check_model_spec(model: str | None) -> None:
    """Refuse a malformed --model before anything runs (the model itself loads later)."""
    if model is None:
        return
    try:
        parse_spec(model)
    except ValueError as exc:
        raise BadInput(f"--model: {exc}") from exc


# Options the model-backed commands share.
GoalOption = Annotated[
    str, typer.Option("--goal", "-g", help="The task the output was written for.")
]
SourceOption = Annotated[
    list[Path] | None,
    typer.Option("--source", help="A source document the output draws on (repeatable)."),
]
ModelOption = Annotated[
    str | None,
    typer.Option("--model", "-m", help="Model spec; default: JURIST_MODEL (embedded model)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the judgment as JSON.")]
