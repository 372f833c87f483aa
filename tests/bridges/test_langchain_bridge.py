"""The LangChain bridge on real langchain-core objects: AIMessages, runnables' outputs and a
retriever's Documents."""

from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from jurist.bridges import TRUNCATED
from jurist.bridges import langchain as bridge
from jurist.core import Context, ExecutionStatus, Judgment, Status, judge
from jurist.testing import FakeModel

DOCS = [
    Document(
        page_content="Refunds are accepted within 30 days.",
        id="policy-1",
        metadata={"source": "policy.md", "score": 0.92},
    ),
    Document(page_content="Shipping takes 3 days.", metadata={"relevance_score": 0.4}),
]


def ai(content: Any = "Within 30 days.", **fields: Any) -> AIMessage:
    fields.setdefault("response_metadata", {"finish_reason": "stop", "model_name": "gpt-4o"})
    return AIMessage(content=content, id="run-1", **fields)


@judge
def grounded_in_days(ctx: Context) -> bool:
    return "30 days" in ctx.output_text() and any("30 days" in p for p in ctx.context)


def test_ai_message_becomes_a_context() -> None:
    message = ai(
        usage_metadata={"input_tokens": 11, "output_tokens": 4, "total_tokens": 15},
        tool_calls=[{"name": "lookup", "args": {"order": 42}, "id": "call_1"}],
    )
    ctx = bridge.from_message(message, "Refunds?", run="nightly")
    assert ctx.output == "Within 30 days."
    assert ctx.status is ExecutionStatus.SUCCESS
    assert dict(ctx.metadata) == {
        bridge.MODEL: "gpt-4o",
        bridge.RESPONSE_ID: "run-1",
        bridge.FINISH_REASON: "stop",
        bridge.USAGE: {"input_tokens": 11, "output_tokens": 4, "total_tokens": 15},
        bridge.TOOL_CALLS: [{"id": "call_1", "name": "lookup", "arguments": {"order": 42}}],
        "run": "nightly",
    }


@pytest.mark.parametrize(
    ("response_metadata", "status", "truncated"),
    [
        ({"finish_reason": "stop"}, ExecutionStatus.SUCCESS, False),
        ({"finish_reason": "tool_calls"}, ExecutionStatus.SUCCESS, False),
        ({"stop_reason": "end_turn"}, ExecutionStatus.SUCCESS, False),
        ({"stop_reason": "tool_use"}, ExecutionStatus.SUCCESS, False),
        ({"finish_reason": "STOP"}, ExecutionStatus.SUCCESS, False),
        ({"done_reason": "stop"}, ExecutionStatus.SUCCESS, False),
        ({"stopReason": "end_turn"}, ExecutionStatus.SUCCESS, False),
        ({"finish_reason": "length"}, ExecutionStatus.SUCCESS, True),
        ({"stop_reason": "max_tokens"}, ExecutionStatus.SUCCESS, True),
        ({"finish_reason": "MAX_TOKENS"}, ExecutionStatus.SUCCESS, True),
        ({"finish_reason": "content_filter"}, ExecutionStatus.REFUSED, False),
        ({"stop_reason": "refusal"}, ExecutionStatus.REFUSED, False),
        ({"finish_reason": "SAFETY"}, ExecutionStatus.REFUSED, False),
        ({"stopReason": "guardrail_intervened"}, ExecutionStatus.REFUSED, False),
        ({"finish_reason": "something_new"}, ExecutionStatus.UNKNOWN, False),
        ({}, ExecutionStatus.UNKNOWN, False),
    ],
)
def test_finish_reasons_map_to_a_status(
    response_metadata: dict[str, Any], status: ExecutionStatus, truncated: bool
) -> None:
    ctx = bridge.from_message(ai(response_metadata=response_metadata), "g")
    assert ctx.status is status
    assert ctx.metadata.get(TRUNCATED, False) is truncated


def test_a_refusal_the_integration_recorded_is_refused() -> None:
    message = ai("", additional_kwargs={"refusal": "I can't help with that."})
    ctx = bridge.from_message(message, "g")
    assert ctx.status is ExecutionStatus.REFUSED
    assert ctx.output == "I can't help with that."
    assert ctx.metadata[bridge.REFUSAL] == "I can't help with that."


def test_content_blocks_give_their_text() -> None:
    blocks = [
        {"type": "text", "text": "Within "},
        {"type": "tool_use", "id": "t", "name": "x", "input": {}},
        {"type": "text", "text": "30 days."},
    ]
    assert bridge.from_message(ai(blocks), "g").output == "Within 30 days."


def test_documents_are_the_sources() -> None:
    ctx = bridge.from_output("Within 30 days.", "Refunds?", sources=DOCS)
    assert ctx.status is ExecutionStatus.SUCCESS
    assert ctx.context == ("Refunds are accepted within 30 days.", "Shipping takes 3 days.")
    assert ctx.metadata[bridge.SOURCES] == [
        {"id": "policy-1", "score": 0.92, "source": "policy.md"},
        {"score": 0.4},
    ]


def test_a_dict_with_answer_and_context_is_a_rag_result() -> None:
    output = {"input": "Refunds?", "context": DOCS[:1], "answer": ai()}
    ctx = bridge.from_output(output, "Refunds?", sources=["An extra passage."])
    assert ctx.output == "Within 30 days."
    assert ctx.metadata[bridge.FINISH_REASON] == "stop"
    assert ctx.context == ("Refunds are accepted within 30 days.", "An extra passage.")
    assert ctx.metadata[bridge.SOURCES] == [
        {"id": "policy-1", "score": 0.92, "source": "policy.md"},
        {},
    ]


def test_structured_outputs_are_kept_as_data() -> None:
    class Refund(BaseModel):
        days: int
        conditions: list[str]

    ctx = bridge.from_output(Refund(days=30, conditions=["unworn"]), "g")
    assert ctx.output == {"days": 30, "conditions": ["unworn"]}
    assert ctx.status is ExecutionStatus.SUCCESS
    assert bridge.from_output({"days": 30}, "g").output == {"days": 30}


def test_what_the_bridge_cannot_take_is_named() -> None:
    with pytest.raises(TypeError, match="takes text, a message, a pydantic model or a dict"):
        bridge.from_output(3.5, "g")
    with pytest.raises(TypeError, match=r"sources\[1\]: a Document or text, not int"):
        bridge.from_output("x", "g", sources=["ok", 7])  # type: ignore[list-item]
    with pytest.raises(TypeError, match='"context": documents, not int'):
        bridge.from_output({"answer": "x", "context": 3}, "g")


def test_evaluate_runs_a_real_chain() -> None:
    model = GenericFakeChatModel(
        messages=iter(
            [AIMessage(content="Within 30 days.", response_metadata={"finish_reason": "length"})]
        )
    )
    prompt = ChatPromptTemplate.from_messages([("user", "{question}")])
    seen: list[Context] = []

    @judge
    def record(ctx: Context) -> Judgment:
        seen.append(ctx)
        return Judgment.ok()

    chain = prompt | model
    bridge.evaluate_sync("Refunds?", lambda: chain.invoke({"question": "Refunds?"}), record)
    (ctx,) = seen
    assert ctx.output == "Within 30 days."
    assert ctx.metadata[TRUNCATED] is True
    assert ctx.duration is not None


async def test_evaluate_judges_a_rag_chain_with_its_retrieved_documents() -> None:
    retriever = RunnableLambda(lambda question: DOCS)
    model = GenericFakeChatModel(messages=iter([AIMessage(content="Within 30 days.")]))
    answer = ChatPromptTemplate.from_messages([("user", "{input}")]) | model | StrOutputParser()

    async def rag(question: str) -> dict[str, Any]:
        documents = await retriever.ainvoke(question)
        return {
            "input": question,
            "context": documents,
            "answer": await answer.ainvoke({"input": question}),
        }

    judgment = await bridge.evaluate("Refunds?", lambda: rag("Refunds?"), grounded_in_days)
    assert judgment.status is Status.PASS


def test_evaluate_with_sources_retrieved_apart_and_a_spec() -> None:
    fake = FakeModel({"answer": "no", "reason": "Not stated in the sources."})
    judgment = bridge.evaluate_sync(
        "Refunds?",
        lambda: "Within 60 days.",
        "criterion:The answer agrees with the sources",
        sources=DOCS,
        model=fake,
    )
    assert judgment.status is Status.FAIL
    assert "Refunds are accepted within 30 days." in fake.prompts[0]


def test_a_failing_chain_is_an_error() -> None:
    def call() -> str:
        raise TimeoutError("the chain took too long")

    judgment = bridge.evaluate_sync("g", call, grounded_in_days, suite="rag")
    assert judgment.status is Status.ERROR
    assert judgment.metadata["execution_status"] == "timeout"
    assert judgment.metadata["suite"] == "rag"
