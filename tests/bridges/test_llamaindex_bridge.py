"""The LlamaIndex bridge on real llama-index-core objects: query and chat engines'
responses with their source nodes, LLM responses, and a real query engine over an index
(mock embeddings and LLM, no network)."""

from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
)
from llama_index.core.base.response.schema import (
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.chat_engine.types import AgentChatResponse
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.schema import NodeWithScore, TextNode
from pydantic import BaseModel

from jurist.bridges import TRUNCATED
from jurist.bridges import llamaindex as bridge
from jurist.core import Context, ExecutionStatus, Status, judge
from jurist.testing import FakeModel

NODES = [
    NodeWithScore(
        node=TextNode(text="Refunds within 30 days.", id_="n1", metadata={"file_name": "a.md"}),
        score=0.87,
    ),
    NodeWithScore(node=TextNode(text="Shipping takes 3 days.", id_="n2"), score=None),
]


@judge
def cites_policy(ctx: Context) -> bool:
    return "30 days" in ctx.output_text() and any("30 days" in p for p in ctx.context)


def test_response_and_source_nodes_become_a_context() -> None:
    response = Response(response="Within 30 days.", source_nodes=NODES)
    ctx = bridge.from_response(response, "Refunds?", run="nightly")
    assert ctx.output == "Within 30 days."
    assert ctx.status is ExecutionStatus.SUCCESS
    assert ctx.context == ("Refunds within 30 days.", "Shipping takes 3 days.")
    assert dict(ctx.metadata) == {
        bridge.SOURCES: [{"id": "n1", "score": 0.87, "source": "a.md"}, {"id": "n2"}],
        "run": "nightly",
    }


def test_an_empty_response_is_unknown() -> None:
    ctx = bridge.from_response(Response(response=None, source_nodes=NODES[:1]), "g")
    assert ctx.status is ExecutionStatus.UNKNOWN
    assert ctx.output is None
    chat = bridge.from_result(AgentChatResponse(response="", source_nodes=[]), "g")
    assert chat.status is ExecutionStatus.UNKNOWN


def test_structured_streaming_and_chat_engine_responses() -> None:
    class Refund(BaseModel):
        days: int

    structured = bridge.from_result(PydanticResponse(response=Refund(days=30)), "g")
    assert structured.output == {"days": 30}
    streamed = StreamingResponse(response_gen=iter(["Within ", "30 days."]), source_nodes=NODES)
    ctx = bridge.from_result(streamed, "g")
    assert ctx.output == "Within 30 days."
    assert len(ctx.context) == 2
    chat = bridge.from_result(AgentChatResponse(response="30 days.", source_nodes=NODES), "g")
    assert chat.output == "30 days."
    assert chat.status is ExecutionStatus.SUCCESS


def test_chat_response_reads_the_providers_raw_answer() -> None:
    raw = {
        "id": "chatcmpl-9",
        "model": "gpt-4o-mini",
        "choices": [{"finish_reason": "length"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }
    response = ChatResponse(message=ChatMessage(role="assistant", content="Within"), raw=raw)
    ctx = bridge.from_result(response, "Refunds?")
    assert ctx.output == "Within"
    assert ctx.status is ExecutionStatus.SUCCESS
    assert dict(ctx.metadata) == {
        bridge.MODEL: "gpt-4o-mini",
        bridge.RESPONSE_ID: "chatcmpl-9",
        bridge.FINISH_REASON: "length",
        bridge.USAGE: {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25},
        TRUNCATED: True,
    }


def test_a_raw_answer_kept_as_an_sdk_object_is_read_too() -> None:
    openai = pytest.importorskip("openai")
    raw = openai.types.chat.ChatCompletion.model_validate(
        {
            "id": "chatcmpl-3",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-4o",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "content_filter",
                    "message": {"role": "assistant", "content": ""},
                }
            ],
        }
    )
    ctx = bridge.from_result(CompletionResponse(text="", raw=raw), "g")
    assert ctx.status is ExecutionStatus.REFUSED
    assert ctx.metadata[bridge.MODEL] == "gpt-4o"


@pytest.mark.parametrize(
    ("raw", "status", "truncated"),
    [
        ({"choices": [{"finish_reason": "stop"}]}, ExecutionStatus.SUCCESS, False),
        ({"choices": [{"finish_reason": "tool_calls"}]}, ExecutionStatus.SUCCESS, False),
        ({"stop_reason": "end_turn"}, ExecutionStatus.SUCCESS, False),
        ({"stop_reason": "tool_use"}, ExecutionStatus.SUCCESS, False),
        ({"done_reason": "stop"}, ExecutionStatus.SUCCESS, False),
        ({"choices": [{"finish_reason": "length"}]}, ExecutionStatus.SUCCESS, True),
        ({"stop_reason": "max_tokens"}, ExecutionStatus.SUCCESS, True),
        ({"choices": [{"finish_reason": "content_filter"}]}, ExecutionStatus.REFUSED, False),
        ({"stop_reason": "refusal"}, ExecutionStatus.REFUSED, False),
        ({"stop_reason": "pause_turn"}, ExecutionStatus.UNKNOWN, False),
        ({"choices": []}, ExecutionStatus.UNKNOWN, False),
        (None, ExecutionStatus.UNKNOWN, False),
    ],
)
def test_llm_finish_reasons_map_to_a_status(
    raw: dict[str, Any] | None, status: ExecutionStatus, truncated: bool
) -> None:
    ctx = bridge.from_llm_response(CompletionResponse(text="x", raw=raw), "g")
    assert ctx.status is status
    assert ctx.metadata.get(TRUNCATED, False) is truncated


def test_what_the_bridge_cannot_take_is_named() -> None:
    with pytest.raises(TypeError, match=r"takes a Response, .* not str"):
        bridge.from_result("text", "g")
    with pytest.raises(TypeError, match=r"source_nodes\[0\]: a NodeWithScore, not TextNode"):
        bridge.from_source_nodes([TextNode(text="x")])  # type: ignore[list-item]


def _engine(**options: Any) -> Any:
    documents = [
        Document(text="Refunds are accepted within 30 days of delivery."),
        Document(text="Standard shipping takes 3 to 5 days."),
    ]
    index = VectorStoreIndex.from_documents(documents, embed_model=MockEmbedding(embed_dim=8))
    return index.as_query_engine(llm=MockLLM(), similarity_top_k=2, **options)


def test_evaluate_judges_a_real_query_engine() -> None:
    engine = _engine()
    judgment = bridge.evaluate_sync("Refunds?", lambda: engine.query("Refunds?"), cites_policy)
    # MockLLM repeats its prompt, which holds the retrieved text: the answer cites it.
    assert judgment.status is Status.PASS


async def test_evaluate_awaits_an_async_query_and_passes_the_sources_to_a_spec() -> None:
    engine = _engine()
    fake = FakeModel({"answer": "yes", "reason": "It is in the sources."})
    judgment = await bridge.evaluate(
        "Refunds?",
        lambda: engine.aquery("Refunds?"),
        {"type": "criterion", "criterion": "The answer agrees with the sources"},
        model=fake,
        suite="rag",
    )
    assert judgment.status is Status.PASS
    assert "Standard shipping takes 3 to 5 days." in fake.prompts[0]


def test_a_failing_query_is_an_error() -> None:
    def call() -> Response:
        raise ValueError("index not found")

    judgment = bridge.evaluate_sync("g", call, cites_policy)
    assert judgment.status is Status.ERROR
    assert judgment.metadata["execution_status"] == "failed"
    assert judgment.metadata["call_error"]["message"] == "index not found"
