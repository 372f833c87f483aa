"""MkDocs hook: the CLI and settings reference pages are written from the code at build time.

`docs/reference/cli.md` and `docs/reference/settings.md` hold the hand-written part and a
marker; the marker is replaced by what the typer application and the settings models
declare, so the pages cannot fall behind a new command, option or variable.
"""

from __future__ import annotations

from typing import Any

import typer.main
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from jurist.cli import app
from jurist.server import ServiceSettings
from jurist.settings import Settings

CLI_MARKER = "<!-- generated: cli -->"
SETTINGS_MARKER = "<!-- generated: settings -->"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _commands(command: Any, path: str) -> list[tuple[str, Any]]:
    found = [(path, command)]
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        found += _commands(sub, f"{path} {name}")
    return found


def _usage(command: Any, path: str) -> str:
    pieces = [path]
    for param in command.params:
        if param.param_type_name == "argument":
            name = (param.name or "").upper()
            pieces.append(name if param.required else f"[{name}]")
    if any(p.param_type_name == "option" for p in command.params):
        pieces.append("[OPTIONS]")
    if getattr(command, "commands", None):
        pieces.append("COMMAND ...")
    return " ".join(pieces)


def _default(param: Any) -> str:
    default = param.default
    if default is None or default is PydanticUndefined or callable(default):
        return ""
    if isinstance(default, bool):
        return "" if not default or getattr(param, "is_flag", False) else str(default)
    if isinstance(default, (list, tuple)):
        return ", ".join(str(d) for d in default)
    return str(getattr(default, "value", default))


def cli_markdown() -> str:
    """One section per `jurist` command: what it does, how it is called, its options."""
    root = typer.main.get_command(app)
    lines: list[str] = []
    for path, command in _commands(root, "jurist"):
        level = "##" if path.count(" ") <= 1 else "###"
        lines += [f"{level} `{path}`", ""]
        if command.help:
            lines += [command.help.strip().replace("\b\n", ""), ""]
        lines += ["```text", _usage(command, path), "```", ""]
        rows = []
        for param in command.params:
            if param.param_type_name == "argument":
                names = (param.name or "").upper()
            else:
                names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
            help_text = _cell(getattr(param, "help", None) or "")
            if param.required and param.param_type_name == "option":
                help_text = f"{help_text} (required)".strip()
            rows.append(f"| {names} | {help_text} | {_cell(_default(param))} |")
        if rows:
            lines += ["| argument or option | what | default |", "| --- | --- | --- |", *rows, ""]
    return "\n".join(lines)


def _names(field: FieldInfo, name: str) -> list[str]:
    alias = field.validation_alias
    choices = getattr(alias, "choices", None)
    if choices:
        return [str(choice) for choice in choices]
    return [str(alias or field.alias or name).upper()]


def _field_default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return "-"
    if field.default is None or field.default is PydanticUndefined:
        return ""
    return str(getattr(field.default, "value", field.default))


# What a variable does, for the fields whose model gives no description.
FALLBACK = {
    "OPENAI_API_KEY": "the key of `openai:MODEL` (the `openai` extra)",
    "OPENAI_BASE_URL": "another base URL for the OpenAI client",
    "ANTHROPIC_API_KEY": "the key of `anthropic:MODEL` (the `anthropic` extra)",
    "ANTHROPIC_BASE_URL": "another base URL for the Anthropic client",
    "JURIST_TIMEOUT_S": "the timeout of one call to a remote provider, in seconds; the "
    "embedded model's limit on one generation starts from it and grows with its measured speed",
    "JURIST_MAX_ATTEMPTS": "attempts per call, with exponential backoff and full jitter on "
    "timeouts, connection errors, 408, 409, 429 (honouring Retry-After) and 5xx",
    "JURIST_REQUESTS_PER_MINUTE": "a client-side rate limit on requests to a remote provider",
    "JURIST_TOKENS_PER_MINUTE": "a client-side rate limit on tokens sent to a remote provider",
    "JURIST_HOST": "the address `jurist serve` listens on; without keys, nothing but "
    "127.0.0.1 is allowed: the service refuses to start and says why",
    "JUDGE_PORT": "the port `jurist serve` listens on (`--port` overrides)",
    "JURIST_API_KEYS": "keys fixed for the process's life: `id:secret` or `id:sha256:HEX` "
    "entries (`id:admin:...` for an admin), comma-separated; kept only as SHA-256 hashes. "
    "Keys in the database (`jurist keys`) need no restart",
    "JURIST_MAX_BODY_BYTES": "the largest request body, by its declared length or as it "
    "streams (413 beyond)",
    "LOG_LEVEL": "JSON log lines on stderr from this level",
    "LOG_VALIDATION_RESULTS": "log each validation by id, verdict and counts, never by content",
}


def settings_markdown() -> str:
    """Every variable jurist reads: the library's settings, then the service's own."""
    lines: list[str] = []
    library = Settings.model_fields
    for title, model, skip in (
        ("Everywhere (`jurist.settings.Settings`)", Settings, set()),
        ("The service (`jurist.server.ServiceSettings`)", ServiceSettings, set(library)),
    ):
        lines += [f"## {title}", "", "| variable | default | what |", "| --- | --- | --- |"]
        for name, field in model.model_fields.items():
            if name in skip:
                continue
            variables = _names(field, name)
            names = " or ".join(f"`{n}`" for n in variables)
            what = field.description or FALLBACK.get(variables[0], "")
            lines.append(f"| {names} | {_cell(_field_default(field))} | {_cell(what)} |")
        lines.append("")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_markdown())
    if SETTINGS_MARKER in markdown:
        markdown = markdown.replace(SETTINGS_MARKER, settings_markdown())
    return markdown
