"""How `jurist --help` reads: conventional metavars for every option and argument.

typer names a parameter's type as it is spelled in Python (`<bool>` on a flag, `<str>`,
`<list[str]>`) and puts a required argument in braces (`{output}`). The help speaks in the
conventions of command lines instead: `TEXT`, `PATH`, `[a|b]`, `OUTPUT`, and nothing at all
after a flag. The command tree is built by typer; `ReadableGroup`, the root group, walks it
once and gives each parameter the readable spelling.
"""

from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

# typer's spelling of a type (inside its `<...>`) -> the command line's.
_TYPE_NAMES = {
    "str": "TEXT",
    "int": "INTEGER",
    "float": "FLOAT",
    "bool": "BOOLEAN",
    "path": "PATH",
    "file": "FILE",
    "dir": "DIRECTORY",
    "datetime": "DATETIME",
    "UUID": "UUID",
    "Path": "PATH",
    "int range": "INTEGER",
    "float range": "FLOAT",
}


def _readable_type(param: TyperOption | TyperArgument, ctx: Any) -> str:
    descriptor = param.type_descriptor
    if descriptor.is_choice:
        # The choices themselves are the metavar: `[isotonic|linear]`.
        return f"[{param.display_type(ctx).strip('<>').removeprefix('list[').rstrip(']')}]"
    spelled = param.display_type(ctx).strip("<>")
    if spelled.startswith("list[") and spelled.endswith("]"):
        spelled = spelled[len("list[") : -1]
    return " ".join(_TYPE_NAMES.get(part, part.upper()) for part in spelled.split(","))


class _ReadableOption(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar
        if self.is_flag:
            return None
        return _readable_type(self, ctx)


class _ReadableArgument(TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return self.metavar or _readable_type(self, ctx)

    def _usage_display_name(self) -> str:
        # The usage line names an argument in capitals; brackets only when it may be left out.
        name = (self.metavar or self.name or "").upper()
        if self.nargs != 1:
            name += "..."
        return name if self.required else f"[{name}]"


def _make_readable(param: Any) -> None:
    # typer builds its own parameter objects; these subclasses only change how they are shown.
    if type(param) is TyperOption:
        param.__class__ = _ReadableOption
    elif type(param) is TyperArgument:
        param.__class__ = _ReadableArgument


class _ReadableCommand(TyperCommand):
    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        _make_readable(option)
        return option


class _ReadableSubgroup(TyperGroup):
    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        _make_readable(option)
        return option


def _walk(command: Any) -> None:
    for param in command.params:
        _make_readable(param)
    if type(command) is TyperCommand:
        command.__class__ = _ReadableCommand
    elif type(command) is TyperGroup:
        command.__class__ = _ReadableSubgroup
    for sub in getattr(command, "commands", {}).values():
        _walk(sub)


class ReadableGroup(TyperGroup):
    """The root group: every command below it shows conventional metavars in its help."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _make_readable(param)
        for sub in self.commands.values():
            _walk(sub)

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        _make_readable(option)
        return option
