"""The command line a user ran, rebuilt from what was parsed: to tell them how to run it
again (resume an interrupted run, say), shell-quoted so that it pastes as it prints."""

import shlex
from collections.abc import Collection, Sequence
from enum import Enum
from typing import Any

import typer


def command_line(ctx: typer.Context, *, drop: Collection[str] = (), add: Sequence[str] = ()) -> str:
    """`jurist`, the options given before the command, the command and what was given to
    it on the command line (defaults and settings left out), without the parameters named
    in `drop`, then `add`."""
    chain: list[Any] = []
    at: Any = ctx
    while at is not None:
        chain.append(at)
        at = at.parent
    words: list[str] = []
    for index, level in enumerate(reversed(chain)):
        words.append("jurist" if index == 0 else level.info_name or level.command.name or "")
        for param in level.command.params:
            name = param.name
            if name is None or name in drop:
                continue
            source = level.get_parameter_source(name)
            if source is None or source.name != "COMMANDLINE":
                continue
            words.extend(_words(param, level.params.get(name)))
    return shlex.join([*words, *add])


def _words(param: Any, value: object) -> list[str]:
    if param.param_type_name == "argument":
        values = value if isinstance(value, list | tuple) else [value]
        return [_text(v) for v in values]
    flag = max(param.opts, key=len)
    if getattr(param, "is_flag", False):
        if value:
            return [flag]
        return [max(param.secondary_opts, key=len)] if param.secondary_opts else []
    values = value if param.multiple and isinstance(value, list | tuple) else [value]
    return [word for v in values for word in (flag, _text(v))]


def _text(value: object) -> str:
    return str(value.value) if isinstance(value, Enum) else str(value)
