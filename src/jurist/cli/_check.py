"""`jurist check`: deterministic judges on an output file."""

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from jurist.cli._exit import exit_code
from jurist.cli._inputs import BadInput, exit_bad_input, read_output
from jurist.cli._render import render_verdict
from jurist.core import Context, Judge
from jurist.judges import ContainsJudge, LengthJudge, RegexJudge, SchemaJudge
from jurist.jury import Consensus, ErrorPolicy, Jury


def _load_schema(path: Path) -> dict[str, object]:
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BadInput(f"--schema: no such file: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"--schema: cannot read {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise BadInput(f"--schema: {path} is not JSON: {exc}") from exc
    if not isinstance(schema, dict | bool):
        raise BadInput(f"--schema: {path} holds a {type(schema).__name__}, not a JSON Schema")
    return schema  # type: ignore[return-value]


def build_judges(
    *,
    schema: Path | None,
    contains: list[str],
    any_keyword: bool,
    case_sensitive: bool,
    regex: list[str],
    max_words: int | None,
    max_chars: int | None,
) -> list[Judge]:
    judges: list[Judge] = []
    try:
        if schema is not None:
            judges.append(SchemaJudge(_load_schema(schema), name="schema"))
        if contains:
            mode = "any" if any_keyword else "all"
            judges.append(
                ContainsJudge(contains, mode=mode, case_sensitive=case_sensitive, name="contains")
            )
        for index, pattern in enumerate(regex):
            judges.append(RegexJudge(pattern, name=f"regex[{index}]"))
        if max_words is not None or max_chars is not None:
            judges.append(LengthJudge(max_words=max_words, max_chars=max_chars, name="length"))
    except (ValueError, TypeError) as exc:
        raise BadInput(str(exc)) from exc
    if not judges:
        raise BadInput("nothing to check: give --schema, --contains, --regex or a length limit")
    return judges


def check(
    output: Annotated[str, typer.Argument(help="File with the output to judge, or - for stdin.")],
    *,
    schema: Annotated[
        Path | None, typer.Option("--schema", "-s", help="JSON Schema (draft 2020-12) file.")
    ] = None,
    contains: Annotated[
        list[str] | None,
        typer.Option("--contains", "-c", help="A keyword the output must contain (repeatable)."),
    ] = None,
    any_keyword: Annotated[
        bool, typer.Option("--any", help="Pass when any keyword is found, not all.")
    ] = False,
    case_sensitive: Annotated[
        bool, typer.Option("--case-sensitive", help="Match keywords case-sensitively.")
    ] = False,
    regex: Annotated[
        list[str] | None,
        typer.Option("--regex", "-r", help="A pattern the output must match (repeatable)."),
    ] = None,
    max_words: Annotated[int | None, typer.Option(help="Most words allowed.")] = None,
    max_chars: Annotated[int | None, typer.Option(help="Most characters allowed.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Run deterministic judges on an output and print the verdict.

    Exit codes: 0 PASS, 1 FAIL, 2 bad input, 3 undecided (a judge errored or abstained).
    """
    try:
        judges = build_judges(
            schema=schema,
            contains=contains or [],
            any_keyword=any_keyword,
            case_sensitive=case_sensitive,
            regex=regex or [],
            max_words=max_words,
            max_chars=max_chars,
        )
        text = read_output(output)
    except BadInput as exc:
        exit_bad_input(exc)
    # Every judge runs (no short-circuit) so the report lists every problem at once.
    jury = Jury(judges, Consensus(errors=ErrorPolicy.PROPAGATE), name="check")
    verdict = jury.vote_sync(Context("check the output", output=text))
    if as_json:
        typer.echo(verdict.to_json(indent=2))
    else:
        render_verdict(Console(), output, verdict)
    raise typer.Exit(exit_code(verdict.status))
