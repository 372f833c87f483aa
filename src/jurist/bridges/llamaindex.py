"""LlamaIndex's results judged: a query engine's `Response` (or a structured
`PydanticResponse`, a `StreamingResponse`, a chat engine's `AgentChatResponse`) with its
`source_nodes` as the sources, and an LLM's `ChatResponse` or `CompletionResponse`.

    from jurist.bridges import llamaindex as bridge

    judgment = bridge.evaluate_sync(
        "When can I get a refund?",
        lambda: query_engine.query("When can I get a refund?"),
        {"type": "faithfulness"},  # or a Judge, a Jury, "criterion:TEXT", ...
    )

The source nodes' text becomes the Context's `context`, their ids and scores
`llamaindex.sources`. A query engine's response carries no finish reason: it is SUCCESS
when it holds an answer, UNKNOWN when it holds none. An LLM's response carries its
provider's raw answer, whose finish reason becomes the status by `FINISH` (UNKNOWN when
there is none).
"""

from collections.abc import Iterable, Mapping
from typing import Any

from jurist.bridges._common import (
    CUT_SHORT,
    DONE,
    REFUSED,
    UNKNOWN,
    Bridge,
    Call,
    Finish,
    build_context,
    evaluate_call,
    finish_of,
    missing_extra,
    usage_of,
)
from jurist.core import Context, Judgment, run_sync
from jurist.llm import Model
from jurist.specs import JudgeOrSpec

try:
    from llama_index.core.base.llms.types import ChatResponse, CompletionResponse
    from llama_index.core.base.response.schema import (
        PydanticResponse,
        Response,
        StreamingResponse,
    )
    from llama_index.core.chat_engine.types import AgentChatResponse
    from llama_index.core.schema import NodeWithScore
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise missing_extra("jurist.bridges.llamaindex", "llama-index-core", "llamaindex") from exc

MODEL = "llamaindex.model"
RESPONSE_ID = "llamaindex.response_id"
# An LLM response's finish reason, read from its provider's raw answer.
FINISH_REASON = "llamaindex.finish_reason"
# {"input_tokens", "output_tokens", "total_tokens"}, when the LLM's response tells them.
USAGE = "llamaindex.usage"
# [{"id", "score", "source"}], one per source node in `context`, in order.
SOURCES = "llamaindex.sources"
KEYS = (MODEL, RESPONSE_ID, FINISH_REASON, USAGE, SOURCES)

# An LLM response's finish reason (OpenAI's finish_reason, Anthropic's stop_reason,
# Ollama's done_reason), lower-case.
FINISH: Mapping[str, Finish] = {
    "stop": DONE,
    "tool_calls": DONE,
    "function_call": DONE,
    "end_turn": DONE,
    "tool_use": DONE,
    "stop_sequence": DONE,
    "length": CUT_SHORT,
    "max_tokens": CUT_SHORT,
    "content_filter": REFUSED,
    "refusal": REFUSED,
}

# The node metadata keys that say where a node came from, in the order looked at.
_ORIGIN_KEYS = ("source", "file_path", "file_name", "url")

QueryResult = Response | PydanticResponse | StreamingResponse | AgentChatResponse


def from_response(response: QueryResult, goal: str, **metadata: Any) -> Context:
    """The Context of a query or chat engine's response: its answer (a structured one as
    data) and its source nodes. A StreamingResponse is read to its end first."""
    if isinstance(response, StreamingResponse):
        response = response.get_response()
    answer: Any = response.response
    if isinstance(response, PydanticResponse):
        answer = answer.model_dump(mode="json") if answer is not None else None
    elif isinstance(response, AgentChatResponse) and not answer:
        answer = None  # a chat engine answers "" where a query engine answers None
    passages, entries = from_source_nodes(response.source_nodes)
    finish = DONE if answer is not None else UNKNOWN
    found = {SOURCES: entries or None}
    return build_context(goal, answer, finish, found, metadata, sources=passages)


def from_llm_response(
    response: ChatResponse | CompletionResponse, goal: str, **metadata: Any
) -> Context:
    """The Context of an LLM's `chat` or `complete` answer."""
    text = response.message.content if isinstance(response, ChatResponse) else response.text
    raw = response.raw
    reason = _first(
        _path(raw, "choices", 0, "finish_reason"),
        _path(raw, "stop_reason"),
        _path(raw, "done_reason"),
    )
    extra = response.additional_kwargs or {}
    usage = _path(raw, "usage")
    counts = usage_of(
        _first(
            extra.get("prompt_tokens"), _path(usage, "prompt_tokens"), _path(usage, "input_tokens")
        ),
        _first(
            extra.get("completion_tokens"),
            _path(usage, "completion_tokens"),
            _path(usage, "output_tokens"),
        ),
        _first(extra.get("total_tokens"), _path(usage, "total_tokens")),
    )
    found = {
        MODEL: _path(raw, "model"),
        RESPONSE_ID: _path(raw, "id"),
        FINISH_REASON: reason,
        USAGE: counts or None,
    }
    return build_context(goal, text, finish_of(FINISH, reason), found, metadata)


def from_result(result: Any, goal: str, **metadata: Any) -> Context:
    """The Context of any response this bridge takes; a TypeError for anything else."""
    if isinstance(result, Response | PydanticResponse | StreamingResponse | AgentChatResponse):
        return from_response(result, goal, **metadata)
    if isinstance(result, ChatResponse | CompletionResponse):
        return from_llm_response(result, goal, **metadata)
    raise TypeError(
        "the LlamaIndex bridge takes a Response, PydanticResponse, StreamingResponse, "
        f"AgentChatResponse, ChatResponse or CompletionResponse, not {type(result).__name__}"
    )


def from_source_nodes(
    nodes: Iterable[NodeWithScore],
) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    """Source nodes as the Context's passages and their `llamaindex.sources` entries
    ({"id", "score", "source"}, each left out when the node does not tell it)."""
    passages: list[str] = []
    entries: list[dict[str, Any]] = []
    for position, scored in enumerate(nodes):
        if not isinstance(scored, NodeWithScore):
            raise TypeError(
                f"source_nodes[{position}]: a NodeWithScore, not {type(scored).__name__}"
            )
        node = scored.node
        meta = node.metadata or {}
        entry = {
            "id": node.node_id,
            "score": scored.score,
            "source": next((meta[key] for key in _ORIGIN_KEYS if meta.get(key)), None),
        }
        passages.append(node.get_content())
        entries.append({key: value for key, value in entry.items() if value is not None})
    return tuple(passages), entries


BRIDGE = Bridge("LlamaIndex", from_result)


async def evaluate(
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    model: Model | str | None = None,
    **metadata: Any,
) -> Judgment:
    """Run `call` (no arguments; e.g. `lambda: query_engine.query(q)` or `lambda:
    query_engine.aquery(q)`), judge what it returned with `judge` (a Judge or Jury, a spec
    dict, or a short form; a spec's model-backed judges ask `model`) and return the
    judgment. A call that raises is not judged: it comes back as an ERROR judgment (see
    jurist.bridges)."""
    return await evaluate_call(BRIDGE, goal, call, judge, model=model, metadata=metadata)


def evaluate_sync(
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    model: Model | str | None = None,
    **metadata: Any,
) -> Judgment:
    """`evaluate` from sync code (inside a running loop too, as `jurist.core.run_sync`)."""
    return run_sync(lambda: evaluate(goal, call, judge, model=model, **metadata))


def _path(value: Any, *steps: str | int) -> Any:
    # A provider's raw answer is a dict or an SDK object, as the integration kept it.
    for step in steps:
        if value is None:
            return None
        if isinstance(step, int):
            value = value[step] if isinstance(value, list | tuple) and len(value) > step else None
        elif isinstance(value, Mapping):
            value = value.get(step)
        else:
            value = getattr(value, step, None)
    return value


def _first(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)
