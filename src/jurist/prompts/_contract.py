"""A prompt contract: a template, the JSON schema its answer must meet, and its reader.

A template's answer schema lives beside it, `NAME.schema.json` next to `NAME.j2`, so the
shape a prompt asks for and the words that ask for it are read and changed together. A
schema that depends on the call (an enum of labels, a number of items) keeps its shape in
the file and a small function of the judge fills the parameters in.
"""

import copy
import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import JsonValue

from jurist.core import Context
from jurist.llm import Response
from jurist.prompts._render import (
    _PACKAGE_TEMPLATES,
    Missing,
    PromptError,
    PromptTemplate,
    RenderedPrompt,
)

T = TypeVar("T")
U = TypeVar("U")
Schema = dict[str, JsonValue]


def answer_schema(name: str) -> Schema:
    """A fresh copy of the package's `templates/NAME.schema.json` (the caller may fill it in)."""
    schema = _package_schema(name)
    if schema is None:
        raise PromptError(f"prompt template {name!r} has no answer schema ({name}.schema.json)")
    return copy.deepcopy(schema)


@functools.cache
def _package_schema(name: str) -> Schema | None:
    if not re.fullmatch(r"[a-z0-9_][a-z0-9_.-]*", name):
        raise PromptError(f"prompt template name {name!r} is not a template name")
    resource = resources.files(_PACKAGE_TEMPLATES).joinpath(f"templates/{name}.schema.json")
    try:
        text = resource.read_text("utf-8")
    except (FileNotFoundError, IsADirectoryError):
        return None
    try:
        schema = json.loads(text)
    except ValueError as exc:
        raise PromptError(f"answer schema {name}.schema.json is not JSON: {exc}") from exc
    if not isinstance(schema, dict):
        raise PromptError(f"answer schema {name}.schema.json is not a JSON object")
    return schema


@dataclass(frozen=True)
class Prompt:
    """A template and the JSON schema its answer must meet (None: free text).

    `Prompt.named("criterion")` loads `criterion.j2` with `criterion.schema.json` beside it.
    """

    template: PromptTemplate
    schema: Schema | None = None

    @property
    def name(self) -> str:
        return self.template.name

    @classmethod
    def named(cls, name: str, *, missing: Missing = Missing.STRICT) -> "Prompt":
        schema = _package_schema(name)
        return cls(
            PromptTemplate.named(name, missing=missing),
            copy.deepcopy(schema) if schema is not None else None,
        )

    @classmethod
    def of(
        cls, template: "Prompt | PromptTemplate | str | Path", schema: Schema | None = None
    ) -> "Prompt":
        """A prompt as given; a package name brings its schema unless `schema` is given."""
        if isinstance(template, Prompt):
            return template if schema is None else template.with_schema(schema)
        if isinstance(template, str) and schema is None:
            return cls.named(template)
        return cls(PromptTemplate.of(template), schema)

    def with_schema(self, schema: Schema | None) -> "Prompt":
        """The same template asking for an answer that meets `schema`."""
        return replace(self, schema=schema)

    def render(self, ctx: Context | None = None, /, **variables: Any) -> RenderedPrompt:
        return self.template.render(ctx, **variables)

    def reading(
        self, read: Callable[[Response], T], *, logprobs: bool = False
    ) -> "PromptContract[T]":
        """This prompt with the reader that turns its answer into a value; `logprobs` asks
        for token probabilities when the model has them (the reader can use them)."""
        return PromptContract(self, read, logprobs)


@dataclass(frozen=True)
class PromptContract(Generic[T]):
    """A prompt, the schema its answer meets, and how an answer becomes a value.

    `read` raises when the answer holds no value it can read; whoever asks turns that into
    an unreadable answer, never a decision."""

    prompt: Prompt
    read: Callable[[Response], T]
    logprobs: bool = False

    @property
    def name(self) -> str:
        return self.prompt.name

    @property
    def schema(self) -> Schema | None:
        return self.prompt.schema

    def then(self, after: Callable[[T], U]) -> "PromptContract[U]":
        """The same contract whose value goes through `after` (which may also refuse it)."""
        read = self.read
        return PromptContract(self.prompt, lambda response: after(read(response)), self.logprobs)
