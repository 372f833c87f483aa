"""Bridges from the frameworks people already call to jurist: a framework's result becomes a
`jurist.core.Context`, and `evaluate` runs a call and judges what it returns.

One module per framework, each importing its framework only when it is imported itself
(its extra: `pip install 'jurist[NAME]'`):

| module | takes | extra |
| --- | --- | --- |
| `jurist.bridges.openai` | `ChatCompletion`, Responses API `Response` | `openai` |
| `jurist.bridges.anthropic` | `Message` | `anthropic` |
| `jurist.bridges.langchain` | `AIMessage`, a runnable's output, `Document`s | `langchain` |
| `jurist.bridges.llamaindex` | `Response` and its source nodes, `ChatResponse` | `llamaindex` |

Every bridge offers the same functions:

- `from_*(result, goal, **metadata)`: the Context of a result you already have; `metadata`
  is merged over what the bridge found;
- `evaluate(goal, call, judge, *, model=None, **metadata)` (async) and `evaluate_sync`
  (the same from sync code, through `jurist.core.run_sync`): run `call` (no arguments,
  returning the framework's result or an awaitable of it), build the Context and judge it
  with `judge`: a Judge or Jury object, a spec dict, or a short form ("criterion:TEXT",
  "rubric:ID", a spec file's path) whose model-backed judges ask `model`.

What a result tells goes to metadata under keys named `<bridge>.<what>` (the module's
constants and `KEYS`), and its finish reason becomes the Context's `status` through the
module's `FINISH` table: a normal finish or one to call tools is SUCCESS; a finish cut by
the token limit is SUCCESS with `truncated: True` in metadata (a judge may abstain on an
incomplete answer); a content filter or a refusal is REFUSED; a reason the table does not
hold, or none, is UNKNOWN.

A call that raises is never judged (there is no output, and a verdict on nothing would read
as a finding about an answer): `evaluate` returns an ERROR judgment with cause `timeout`
(for a timeout: `TimeoutError` or the framework's own) or `error`, the execution status
(`timeout` or `failed`) under `execution_status`, the exception under `error` and
`call_error`, and the caller's metadata. Cancellation propagates.
"""

import importlib
from types import ModuleType

from jurist.bridges._common import CALL_ERROR, TRUNCATED, Call, Finish
from jurist.specs import JudgeOrSpec

__all__ = ["CALL_ERROR", "TRUNCATED", "Call", "Finish", "JudgeOrSpec"]

_BRIDGES = frozenset({"openai", "anthropic", "langchain", "llamaindex"})


def __getattr__(name: str) -> ModuleType:
    # `jurist.bridges.openai` as an attribute imports the bridge (and its framework) only
    # when it is asked for.
    if name in _BRIDGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
