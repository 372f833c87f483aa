"""Prompts: sandboxed Jinja2 templates that live in files, with strict variables.

A judge's prompt is a `PromptTemplate` rendered against a `Context`. The output under
judgment is only ever a value handed to the template, never template text, and the `data`
filter fences it as data; so nothing in an output can change a judge's instructions.
"""

from jurist.prompts._contract import Prompt, PromptContract, Schema, answer_schema
from jurist.prompts._render import (
    Missing,
    PromptError,
    PromptTemplate,
    RenderedPrompt,
    context_variables,
    fence,
)

__all__ = [
    "Missing",
    "Prompt",
    "PromptContract",
    "PromptError",
    "PromptTemplate",
    "RenderedPrompt",
    "Schema",
    "answer_schema",
    "context_variables",
    "fence",
]
