"""`jurist check`: deterministic judges on an output file."""

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from jurist.cli._exit import exit_code
from jurist.cli._inputs import BadInput, build_judge, exit_bad_input, read_output
from jurist.cli._render import output_console, render_verdict
from jurist.core import Context
from jurist.jury import ErrorPolicy, Jury


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


def check_spec(
    *,
    schema: Path | None,
    contains: list[str],
    any_keyword: bool,
    case_sensitive: bool,
    regex: list[str],
    max_words: int | None,
    max_chars: int | None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The jury the flags ask for, as a spec, and the flag that set each place in it. Every
    judge runs (consensus, no short-circuit) so the report lists every problem at once."""
    judges: list[dict[str, Any]] = []
    flags: dict[str, str] = {}

    def add(judge: dict[str, Any], flag: str) -> str:
        at = f"judges[{len(judges)}]"
        judges.append(judge)
        flags[at] = flag
        return at

    if schema is not None:
        add({"type": "schema", "schema": _load_schema(schema), "name": "schema"}, "--schema")
    if contains:
        contains_judge = {
            "type": "contains",
            "keywords": contains,
            "mode": "any" if any_keyword else "all",
            "case_sensitive": case_sensitive,
            "name": "contains",
        }
        add(contains_judge, "--contains")
    for index, pattern in enumerate(regex):
        add({"type": "regex", "pattern": pattern, "name": f"regex[{index}]"}, "--regex")
    if max_words is not None or max_chars is not None:
        length = {"type": "length", "max_words": max_words, "max_chars": max_chars}
        at = add({**length, "name": "length"}, "--max-words/--max-chars")
        flags |= {f"{at}.max_words": "--max-words", f"{at}.max_chars": "--max-chars"}
    if not judges:
        raise BadInput("nothing to check: give --schema, --contains, --regex or a length limit")
    strategy = {"type": "consensus", "errors": ErrorPolicy.PROPAGATE.value}
    return {"type": "jury", "name": "check", "judges": judges, "strategy": strategy}, flags


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
        spec, flags = check_spec(
            schema=schema,
            contains=contains or [],
            any_keyword=any_keyword,
            case_sensitive=case_sensitive,
            regex=regex or [],
            max_words=max_words,
            max_chars=max_chars,
        )
        jury = build_judge(spec, flags)
        text = read_output(output)
    except BadInput as exc:
        exit_bad_input(exc)
    assert isinstance(jury, Jury)
    verdict = jury.vote_sync(Context("check the output", output=text))
    if as_json:
        typer.echo(verdict.to_json(indent=2))
    else:
        render_verdict(output_console(), output, verdict)
    raise typer.Exit(exit_code(verdict.status))
