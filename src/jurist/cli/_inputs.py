"""Reading what a user passes on the command line; every problem names its argument."""

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console

from jurist.cli._exit import Exit
from jurist.core import Judge, JuristError
from jurist.llm import ProviderConfigError, check_provider, parse_spec
from jurist.rubrics import Rubric, RubricError, get_rubric
from jurist.specs import SpecError, SpecProblem, judge_from_spec, registry


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


def check_model_ready(model: str | None) -> None:
    """Refuse, before any work, a model no call can succeed with: an unknown provider, a
    missing API key or SDK, a base URL nothing answers at. Weights load later."""
    try:
        check_provider(model, spec_from="JURIST_MODEL" if model is None else "--model")
    except ProviderConfigError as exc:
        raise BadInput(str(exc)) from exc


def build_judge(
    spec: dict[str, Any], flags: Mapping[str, str], *, model: str | None = None
) -> Judge:
    """The judge a command's flags describe, as a spec built by jurist.specs like any other.
    `flags` maps places in the spec (a field, or a member of a jury) to the flag that set
    them, so a problem names the flag the user typed rather than the spec's path.

    A spec's bounds on judges and depth guard a service against its clients; what the user
    gives here is their own, as many --regex as they like and as deep a --schema."""
    try:
        parsed = registry.adapter().validate_python(spec)
    except ValidationError as exc:
        problems = SpecError.from_errors(exc.errors(), spec).problems
    else:
        try:
            return judge_from_spec(parsed, model=model)
        except SpecError as exc:
            problems = exc.problems
    raise BadInput("; ".join(flag_problem(p, flags) for p in problems))


def flag_problem(problem: SpecProblem, flags: Mapping[str, str]) -> str:
    """A spec problem in the words of the command line: the flag of the deepest place in
    `flags` that holds its path, then the problem (its spec path when no flag set it)."""
    for path in sorted(flags, key=len, reverse=True):
        if problem.path == path or problem.path.startswith((f"{path}.", f"{path}[")):
            return f"{flags[path]}: {problem.message}"
    return str(problem)


def read_rubric(option: str, id_or_path: str) -> Rubric:
    """A rubric of the library by id, or read from a file: the command line may name files,
    which a spec never does, so the rubric goes into the spec whole."""
    try:
        return get_rubric(id_or_path)
    except RubricError as exc:
        raise BadInput(f"{option}: {exc}") from exc


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
