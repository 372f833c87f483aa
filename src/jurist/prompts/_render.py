"""Rendering a prompt template against a context, in a sandbox, with a missing-variable policy."""

import functools
import hashlib
import re
from collections.abc import Mapping
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from jurist.core import Context, JuristError, record, to_json_text

_PACKAGE_TEMPLATES = "jurist.prompts"
_BACKTICKS = re.compile(r"`{3,}")


class Missing(StrEnum):
    """What a template does with a variable it was not given."""

    STRICT = "strict"  # an error that names the variable
    EMPTY = "empty"  # renders as ""
    KEEP = "keep"  # renders as the placeholder itself, "{{ name }}"


class PromptError(JuristError, ValueError):
    """A template that cannot be loaded or rendered: names the template and the problem."""


class _KeepUndefined(jinja2.Undefined):
    __slots__ = ()

    def __str__(self) -> str:
        return "{{ " + (self._undefined_name or "?") + " }}"


_UNDEFINED: dict[Missing, type[jinja2.Undefined]] = {
    Missing.STRICT: jinja2.StrictUndefined,
    Missing.EMPTY: jinja2.ChainableUndefined,
    Missing.KEEP: _KeepUndefined,
}


def fence(text: str, label: str = "data") -> str:
    """`text` in a fenced block that nothing inside it can close, under a label.

    The fence is one backtick longer than the longest run of backticks in the text, so an
    output cannot end the block early and smuggle instructions after it.
    """
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=2)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{label}\n{text}\n{ticks}"


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return to_json_text(value)


@functools.cache
def _environment(missing: Missing) -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        undefined=_UNDEFINED[missing],
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["data"] = lambda value, label="data": fence(_as_text(value), label)
    env.filters["text"] = _as_text
    return env


@record
class RenderedPrompt:
    """A rendered prompt: the text and its hash (recorded with every model judgment)."""

    text: str
    template: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def context_variables(ctx: Context) -> dict[str, Any]:
    """The variables every template sees from a context.

    `output`, `reference` and each passage of `context` are text (JSON for structured
    values); `passages` keeps the list; `metadata` is the context's metadata mapping.
    """
    return {
        "goal": ctx.goal,
        "output": ctx.output_text(),
        "context": "\n\n".join(ctx.context),
        "passages": list(ctx.context),
        "reference": _as_text(ctx.reference),
        "workspace": str(ctx.workspace) if ctx.workspace is not None else "",
        "status": ctx.status.value,
        "metadata": dict(ctx.metadata),
    }


class PromptTemplate:
    """A Jinja2 template rendered in an immutable sandbox.

    Built from a package template by name (`PromptTemplate.named("criterion")` reads
    `jurist/prompts/templates/criterion.j2`), from a file (`PromptTemplate.file(path)`), or
    from text. Variables a template uses but is not given follow `missing`: STRICT (the
    default) is an error naming the variable.
    """

    def __init__(self, source: str, *, name: str = "<text>", missing: Missing = Missing.STRICT):
        self.source = source
        self.name = name
        self.missing = Missing(missing)
        try:
            self._template = _environment(self.missing).from_string(source)
        except jinja2.TemplateSyntaxError as exc:
            raise PromptError(f"prompt template {name}: line {exc.lineno}: {exc.message}") from exc

    @classmethod
    def named(cls, name: str, *, missing: Missing = Missing.STRICT) -> "PromptTemplate":
        return _package_template(name, Missing(missing))

    @classmethod
    def file(cls, path: str | Path, *, missing: Missing = Missing.STRICT) -> "PromptTemplate":
        path = Path(path)
        try:
            source = path.read_text("utf-8")
        except OSError as exc:
            raise PromptError(f"prompt template {path}: cannot be read: {exc}") from exc
        return cls(source, name=str(path), missing=missing)

    @classmethod
    def of(
        cls, template: "PromptTemplate | str | Path", *, missing: Missing = Missing.STRICT
    ) -> "PromptTemplate":
        """A template as given: a PromptTemplate, a Path to a file, or a package name."""
        if isinstance(template, PromptTemplate):
            return template
        if isinstance(template, Path):
            return cls.file(template, missing=missing)
        return cls.named(template, missing=missing)

    def render(self, ctx: Context | None = None, /, **variables: Any) -> RenderedPrompt:
        """The prompt for `ctx`; keyword variables add to (and override) the context's."""
        values = context_variables(ctx) if ctx is not None else {}
        values.update(variables)
        try:
            text = self._template.render(values)
        except jinja2.UndefinedError as exc:
            raise PromptError(
                f"prompt template {self.name}: {exc.message}; pass it as a variable or "
                "render with missing='empty' or 'keep'"
            ) from exc
        except jinja2.TemplateError as exc:
            # SecurityError (unsafe attribute access) is a TemplateError too.
            raise PromptError(f"prompt template {self.name}: {exc}") from exc
        except OverflowError as exc:
            # The sandbox refuses huge ranges with an OverflowError, not a SecurityError.
            raise PromptError(f"prompt template {self.name}: {exc}") from exc
        return RenderedPrompt(text.strip() + "\n", self.name)

    def __repr__(self) -> str:
        return f"PromptTemplate({self.name!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # A compiled Jinja template does not pickle: a judge sent to another process (a
        # cluster's worker) carries the source, compiled again there.
        return (_compiled, (self.source, self.name, self.missing))


def _compiled(source: str, name: str, missing: Missing) -> PromptTemplate:
    return PromptTemplate(source, name=name, missing=missing)


@functools.cache
def _package_template(name: str, missing: Missing) -> PromptTemplate:
    if not re.fullmatch(r"[a-z0-9_][a-z0-9_.-]*", name):
        raise PromptError(f"prompt template name {name!r} is not a template name")
    resource = resources.files(_PACKAGE_TEMPLATES).joinpath(f"templates/{name}.j2")
    try:
        source = resource.read_text("utf-8")
    except (FileNotFoundError, IsADirectoryError) as exc:
        known = sorted(
            entry.name.removesuffix(".j2")
            for entry in resources.files(_PACKAGE_TEMPLATES).joinpath("templates").iterdir()
            if entry.name.endswith(".j2")
        )
        raise PromptError(
            f"no prompt template named {name!r}; the package has: {', '.join(known)}"
        ) from exc
    return PromptTemplate(source, name=name, missing=missing)


def merged(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    result = dict(base)
    result.update(extra)
    return result
