"""How a validation request becomes the `Context` the judges look at.

The request's `context` is a free JSON object. Its `goal`, `task` or `question` entry (the
first present) is the task the output was written for; everything else is evidence the
output's claims may rest on: a list of strings is a list of passages, a string is one
passage, anything else is one passage of JSON. Entries are labelled with their key so a
model sees where a passage came from.
"""

import json
from collections.abc import Mapping
from typing import Any

from jurist.core import Context

TASK_KEYS = ("goal", "task", "question")
SOURCES_KEY = "trusted_sources"  # the FactChecker's override of its sources


def task_of(context: Mapping[str, Any]) -> str:
    for key in TASK_KEYS:
        value = context.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def passages_of(context: Mapping[str, Any]) -> tuple[str, ...]:
    passages: list[str] = []
    for key, value in context.items():
        if key in TASK_KEYS and isinstance(value, str):
            continue
        if isinstance(value, str):
            if value.strip():
                passages.append(f"{key}: {value.strip()}")
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            passages.extend(f"{key}: {item.strip()}" for item in value if item.strip())
        elif value is not None:
            passages.append(f"{key}: {json.dumps(value, ensure_ascii=False, sort_keys=True)}")
    return tuple(passages)


def context_for(output: Any, context: Mapping[str, Any], trusted_sources: list[str]) -> Context:
    return Context(
        goal=task_of(context),
        output=output,
        context=passages_of(context),
        metadata={SOURCES_KEY: list(trusted_sources)},
    )
