"""Reading the three parts of a retrieval-augmented answer from a Context.

The metadata keys win when present, so a pipeline can put its question, passages and answer
under `rag.*` while the Context keeps its own goal and output; otherwise the Context's goal,
passages and output stand in. A list of passages joins with newlines.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from jurist.core import Cause, Context, Judgment

QUESTION_KEY = "rag.question"
CONTEXT_KEY = "rag.context"
ANSWER_KEY = "rag.answer"


def _text(value: Any, key: str) -> str:
    if isinstance(value, str):
        return value
    raise ValueError(f"metadata {key!r} must be text, not {type(value).__name__}")


def question(ctx: Context) -> str:
    """`rag.question`, else the goal; "" when neither holds any text."""
    if QUESTION_KEY in ctx.metadata:
        return _text(ctx.metadata[QUESTION_KEY], QUESTION_KEY).strip()
    return ctx.goal.strip()


def passages(ctx: Context) -> list[str]:
    """The retrieved passages: `rag.context` (text or a list of texts), else the Context's
    passages. Blank passages are dropped."""
    if CONTEXT_KEY in ctx.metadata:
        value = ctx.metadata[CONTEXT_KEY]
        if isinstance(value, str):
            found = [value]
        elif isinstance(value, Sequence):
            found = [_text(item, f"{CONTEXT_KEY}[{i}]") for i, item in enumerate(value)]
        else:
            raise ValueError(
                f"metadata {CONTEXT_KEY!r} must be text or a list of texts, "
                f"not {type(value).__name__}"
            )
    else:
        found = list(ctx.context)
    return [passage for passage in found if passage.strip()]


def context(ctx: Context) -> str:
    """The passages joined with newlines; "" when there are none."""
    return "\n".join(passages(ctx))


def answer(ctx: Context) -> str:
    """`rag.answer`, else the output as text."""
    if ANSWER_KEY in ctx.metadata:
        return _text(ctx.metadata[ANSWER_KEY], ANSWER_KEY).strip()
    return ctx.output_text().strip()


Part = Literal["question", "passages", "answer"]
_MISSING = {
    "question": "no question to judge against",
    "passages": "no context to judge against",
    "answer": "no output to judge",
}


@dataclass(frozen=True)
class RagInputs:
    """The three parts, read once."""

    question: str
    passages: list[str]
    answer: str

    @property
    def context(self) -> str:
        return "\n".join(self.passages)


def require(ctx: Context, *needs: Part, judge: str) -> RagInputs | Judgment:
    """The parts of `ctx`, or the judgment a judge returns instead: ERROR (cause bad_input)
    naming a metadata key of the wrong type, or ABSTAIN naming the first part it needs and
    lacks."""
    try:
        inputs = RagInputs(question(ctx), passages(ctx), answer(ctx))
    except ValueError as exc:
        return Judgment.error(str(exc), exc, metadata={"judge": judge, "cause": Cause.BAD_INPUT})
    for need in needs:
        if not getattr(inputs, need):
            return Judgment.abstain(_MISSING[need], metadata={"judge": judge, "missing": need})
    return inputs


__all__ = [
    "ANSWER_KEY",
    "CONTEXT_KEY",
    "QUESTION_KEY",
    "RagInputs",
    "answer",
    "context",
    "passages",
    "question",
    "require",
]
