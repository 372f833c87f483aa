"""LangChain's results judged: a chat model's `AIMessage`, a runnable's output (text, a
message, a structured output, or a dict with "answer" and "context"), and a retriever's
`Document`s as the sources.

    from jurist.bridges import langchain as bridge

    judgment = bridge.evaluate_sync(
        "When can I get a refund?",
        lambda: chain.invoke({"input": "When can I get a refund?"}),
        {"type": "faithfulness"},  # or a Judge, a Jury, "criterion:TEXT", ...
    )

Documents become the Context's `context` (their text) and `langchain.sources` (their ids,
scores and where they came from). An AIMessage's finish reason (`finish_reason`,
`stop_reason`, `done_reason` or `stopReason` in its response_metadata, whichever provider
wrote it) becomes the status by `FINISH`; an AIMessage without one is UNKNOWN. An output
that cannot carry a finish reason (text, a structured output) is SUCCESS: the runnable
returned it, which is all there is to know.
"""

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from jurist.bridges._common import (
    CUT_SHORT,
    DONE,
    REFUSED,
    Bridge,
    Call,
    Finish,
    build_context,
    evaluate_call,
    finish_of,
    missing_extra,
    usage_of,
)
from jurist.core import Context, Judgment, run_sync, to_json_safe
from jurist.llm import Model
from jurist.specs import JudgeOrSpec

try:
    from langchain_core.documents import Document
    from langchain_core.messages import BaseMessage
    from pydantic import BaseModel
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise missing_extra("jurist.bridges.langchain", "langchain-core", "langchain") from exc

MODEL = "langchain.model"
RESPONSE_ID = "langchain.response_id"
# The provider's finish reason, as its integration wrote it in response_metadata.
FINISH_REASON = "langchain.finish_reason"
# {"input_tokens", "output_tokens", "total_tokens"}, from usage_metadata.
USAGE = "langchain.usage"
# [{"id", "name", "arguments"}], from the message's tool_calls.
TOOL_CALLS = "langchain.tool_calls"
# The refusal's text, when the provider's integration recorded one.
REFUSAL = "langchain.refusal"
# [{"id", "score", "source"}], one per document in `context`, in order.
SOURCES = "langchain.sources"
KEYS = (MODEL, RESPONSE_ID, FINISH_REASON, USAGE, TOOL_CALLS, REFUSAL, SOURCES)

# Where LangChain's provider integrations put the finish reason, in the order looked at.
REASON_KEYS = ("finish_reason", "stop_reason", "done_reason", "stopReason")

# Lower-case: the integrations pass each provider's own spelling on (Gemini's "STOP").
FINISH: Mapping[str, Finish] = {
    # OpenAI, Mistral, Groq, Ollama, Gemini
    "stop": DONE,
    "tool_calls": DONE,
    "function_call": DONE,
    # Anthropic, Bedrock
    "end_turn": DONE,
    "tool_use": DONE,
    "stop_sequence": DONE,
    "length": CUT_SHORT,
    "max_tokens": CUT_SHORT,
    "model_context_window_exceeded": CUT_SHORT,
    "content_filter": REFUSED,
    "content_filtered": REFUSED,
    "guardrail_intervened": REFUSED,
    "refusal": REFUSED,
    "safety": REFUSED,
    "prohibited_content": REFUSED,
    "blocklist": REFUSED,
    "spii": REFUSED,
}

# The metadata keys retrievers and vector stores put a document's score under.
_SCORE_KEYS = ("score", "relevance_score", "similarity_score", "_score")


def from_message(
    message: BaseMessage,
    goal: str,
    *,
    sources: Iterable[Document | str] = (),
    **metadata: Any,
) -> Context:
    """The Context of a chat model's message (an AIMessage, or a chunk of one)."""
    response = dict(getattr(message, "response_metadata", None) or {})
    reason = next((response[key] for key in REASON_KEYS if response.get(key)), None)
    refusal = (getattr(message, "additional_kwargs", None) or {}).get("refusal")
    usage = getattr(message, "usage_metadata", None) or {}
    tool_calls = [
        {"id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}
        for call in getattr(message, "tool_calls", None) or ()
    ]
    found = {
        MODEL: response.get("model_name") or response.get("model") or None,
        RESPONSE_ID: message.id,
        FINISH_REASON: reason,
        USAGE: usage_of(
            usage.get("input_tokens"), usage.get("output_tokens"), usage.get("total_tokens")
        )
        or None,
        TOOL_CALLS: tool_calls or None,
        REFUSAL: refusal if isinstance(refusal, str) and refusal else None,
    }
    text = _text_of(message.content)
    finish = REFUSED if found[REFUSAL] else finish_of(FINISH, reason)
    return _with_sources(
        goal, text or found[REFUSAL], finish=finish, found=found, sources=sources, metadata=metadata
    )


def from_output(
    output: Any,
    goal: str,
    *,
    sources: Iterable[Document | str] = (),
    **metadata: Any,
) -> Context:
    """The Context of what a runnable returned: text; a message; a structured output (a
    pydantic model, or a dict without "answer"), kept as data; or a dict whose "answer"
    is the output (text or a message) and whose "context" holds the retrieved documents,
    which come before `sources`."""
    if isinstance(output, Mapping) and "answer" in output:
        found = [*_documents(output.get("context")), *sources]
        return from_output(output["answer"], goal, sources=found, **metadata)
    if isinstance(output, BaseMessage):
        return from_message(output, goal, sources=sources, **metadata)
    if isinstance(output, BaseModel):
        output = output.model_dump(mode="json")
    if not isinstance(output, str | Mapping | Sequence):
        raise TypeError(
            "the LangChain bridge takes text, a message, a pydantic model or a dict, "
            f"not {type(output).__name__}"
        )
    return _with_sources(
        goal,
        to_json_safe(output, "output"),
        finish=DONE,
        found={},
        sources=sources,
        metadata=metadata,
    )


def from_documents(documents: Iterable[Document | str]) -> tuple[tuple[str, ...], list[Any]]:
    """A retriever's documents as the Context's passages and their `langchain.sources`
    entries ({"id", "score", "source"}, each left out when the document does not tell it)."""
    passages: list[str] = []
    entries: list[dict[str, Any]] = []
    for position, document in enumerate(documents):
        if isinstance(document, str):
            passages.append(document)
            entries.append({})
            continue
        if not isinstance(document, Document):
            raise TypeError(
                f"sources[{position}]: a Document or text, not {type(document).__name__}"
            )
        meta = document.metadata or {}
        score = next((meta[key] for key in _SCORE_KEYS if key in meta), None)
        entry = {
            "id": document.id or meta.get("id"),
            "score": score,
            "source": meta.get("source"),
        }
        passages.append(document.page_content)
        entries.append({key: value for key, value in entry.items() if value is not None})
    return tuple(passages), entries


async def evaluate(
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    sources: Iterable[Document | str] = (),
    model: Model | str | None = None,
    **metadata: Any,
) -> Judgment:
    """Run `call` (no arguments; e.g. `lambda: chain.invoke(...)` or `lambda:
    chain.ainvoke(...)`), judge what it returned (see `from_output`) with `judge` (a
    Judge or Jury, a spec dict, or a short form; a spec's model-backed judges ask `model`)
    and return the judgment. `sources` are documents retrieved apart from the call. A call
    that raises is not judged: it comes back as an ERROR judgment (see jurist.bridges)."""
    documents = list(sources)
    bridge = Bridge("LangChain", partial(from_output, sources=documents))
    return await evaluate_call(bridge, goal, call, judge, model=model, metadata=metadata)


def evaluate_sync(
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    sources: Iterable[Document | str] = (),
    model: Model | str | None = None,
    **metadata: Any,
) -> Judgment:
    """`evaluate` from sync code (inside a running loop too, as `jurist.core.run_sync`)."""
    documents = list(sources)
    return run_sync(lambda: evaluate(goal, call, judge, sources=documents, model=model, **metadata))


def _with_sources(
    goal: str,
    output: Any,
    *,
    finish: Finish,
    found: Mapping[str, Any],
    sources: Iterable[Document | str],
    metadata: Mapping[str, Any],
) -> Context:
    passages, entries = from_documents(sources)
    found = {**found, SOURCES: entries or None}
    return build_context(goal, output, finish, found, metadata, sources=passages)


def _documents(value: object) -> list[Document | str]:
    if value is None:
        return []
    if isinstance(value, str | Document):
        return [value]
    if isinstance(value, Iterable):
        return list(value)
    raise TypeError(f'the output\'s "context": documents, not {type(value).__name__}')


def _text_of(content: object) -> str | None:
    # A message's content is text, or a list of blocks (text, images, tool use) whose
    # text blocks make the answer.
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
        ]
        return "".join(parts)
    return None
