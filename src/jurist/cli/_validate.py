"""`jurist validate`: run a validation request (the service's POST /validate body) here."""

from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jurist.cli._exit import Exit
from jurist.cli._inputs import (
    BadInput,
    ModelOption,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
    read_output,
)
from jurist.cli._kb import DatabaseOption, open_knowledge
from jurist.cli._progress import showing_progress
from jurist.cli._render import output_console
from jurist.core import StrictJsonError, counted, loads_strict, run_sync
from jurist.settings import get_settings
from jurist.validation import (
    IssueType,
    RequestError,
    Severity,
    ValidationRequest,
    ValidationResult,
    ValidationType,
    Validator,
)

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_VERDICT_STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red", "error": "magenta"}


def read_request(source: str) -> ValidationRequest:
    text = read_output(source, "REQUEST")
    try:
        data = loads_strict(text, max_depth=get_settings().max_json_depth)
    except StrictJsonError as exc:
        if exc.kind == "syntax" and exc.line is not None:
            problem = exc.problem.removeprefix("not valid JSON: ")
            raise BadInput(
                f"REQUEST: not JSON (line {exc.line}, column {exc.column}): {problem}"
            ) from None
        limit = " (JURIST_MAX_JSON_DEPTH)" if exc.kind == "depth" else ""
        raise BadInput(f"REQUEST: {exc}{limit}") from None
    try:
        return ValidationRequest.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"])
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(f"{where}: {message}" if where else message)
        raise BadInput("REQUEST: " + "; ".join(problems)) from exc


def validate(
    request: Annotated[
        str, typer.Argument(help="A JSON validation request (the body of POST /validate), or -.")
    ],
    *,
    model: ModelOption = None,
    database: DatabaseOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the validation result as JSON.")
    ] = False,
) -> None:
    """Validate an output through the layers its request asks for: schema, facts, criteria,
    hallucination, quality. They run concurrently; the verdict lists every issue.

    Exit codes: 0 valid, 1 invalid, 2 bad input, 3 a layer could not complete (and nothing
    else made the output invalid).
    """
    try:
        check_model_spec(model)
        body = read_request(request)
        if set(body.validation_types) - {ValidationType.SCHEMA}:
            check_model_ready(model)
    except BadInput as exc:
        exit_bad_input(exc)

    async def run() -> ValidationResult:
        if ValidationType.FACTS not in body.validation_types:
            return await Validator(model).validate(body)
        async with await open_knowledge(database) as knowledge:
            return await Validator(model, retriever=knowledge).validate(body)

    try:
        with showing_progress("validating", quiet=as_json):
            result = run_sync(run)
    except (RequestError, BadInput) as exc:
        exit_bad_input(exc)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        render_validation(output_console(), result)
    raise typer.Exit(validation_exit(result))


def validation_exit(result: ValidationResult) -> Exit:
    if result.valid:
        return Exit.PASS
    findings = [
        i for i in result.issues if i.severity is Severity.ERROR and i.type != IssueType.LAYER_ERROR
    ]
    return Exit.FAIL if findings else Exit.UNDECIDED


def render_validation(console: Console, result: ValidationResult) -> None:
    metadata = result.metadata
    verdict = (
        Text(" VALID ", style="bold black on green")
        if result.valid
        else Text(" INVALID ", style="bold white on red")
    )
    quality = (
        f"quality {result.quality_score:.2f}"
        if metadata.quality_assessed
        else "quality not assessed"
    )
    console.print(
        Text.assemble(
            verdict,
            f"  confidence {result.confidence:.2f}, {quality}, "
            f"{counted(metadata.error_count, 'error')}, "
            f"{counted(metadata.warning_count, 'warning')}",
        )
    )
    layers = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("layer", "status", "confidence", "issues", "seconds", "tokens"):
        layers.add_column(column, no_wrap=True)
    for name, layer in metadata.layers.items():
        # The layer's verdict under the severity policy: it agrees with VALID / INVALID.
        status = (
            Text(f"error ({layer.cause})", style="magenta")
            if layer.status == "error"
            else Text(layer.verdict, style=_VERDICT_STYLE[layer.verdict])
        )
        layers.add_row(
            name.value,
            status,
            f"{layer.confidence:.2f}",
            str(layer.issues),
            f"{layer.duration_ms / 1000:.1f}",
            f"{layer.usage.input_tokens}+{layer.usage.output_tokens}",
        )
    console.print(layers)
    for criterion in result.passed_criteria:
        console.print(Text.assemble(("  met      ", "green"), criterion))
    for criterion in result.failed_criteria:
        console.print(Text.assemble(("  not met  ", "red"), criterion))
    if result.issues:
        issues = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        issues.add_column("severity", no_wrap=True)
        issues.add_column("type", no_wrap=True)
        issues.add_column("where", no_wrap=True)
        issues.add_column("message", ratio=3, overflow="fold")
        issues.add_column("suggestion", ratio=2, overflow="fold")
        for issue in result.issues:
            issues.add_row(
                Text(issue.severity.value, style=_SEVERITY_STYLE[issue.severity]),
                issue.type,
                issue.location or "",
                issue.message,
                issue.suggestion or "",
            )
        console.print(issues)
