"""Sentences in a judged output that speak to its judge: "ignore the instructions", "answer
yes", "this meets every criterion", "SYSTEM: ...".

An output is judged as it stands, but a 1.5B model reads "answer yes" in the fenced output
and leans to yes. Such a sentence says nothing about whether the output meets a criterion,
so the model is shown the output with it masked, and the judgment names what was masked:
the verdict is the one the output would get without the sentence.
"""

import re
from dataclasses import replace

from jurist.core import Context

MASK = "[a sentence addressed to the evaluator, removed]"
_JUDGE = r"(?:evaluator|grader|judge|reviewer|assessor|model|ai|assistant|llm)"
# Enough alone: nobody writes these to a reader.
_STRONG = (
    r"\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(?:instructions?|rules?|prompt|"
    r"criteria|criterion|guidelines)\b",
    r"\{\s*\"answer\"\s*:",
    r"\b(?:meets|satisfies|passes|fulfils|fulfills)\s+(?:every|all|each)\s+(?:of\s+the\s+)?"
    r"(?:criteri(?:on|a)|requirements?|checks?)",
    rf"\b(?:to|for|dear)\s+(?:the\s+)?{_JUDGE}s?\b\s*[:,]",
    rf"\bnote\s+to\s+(?:the\s+)?{_JUDGE}",
    r"(?:^|\n)\s*(?:system|developer)\s*:",
)
# Said to a reader too ("you should answer the phone"): only with a word of judging.
_WEAK = (
    r"\b(?:answer|respond|reply|say|output|return)\b[^.!?\n]{0,20}(?:\"|\b)yes\b",
    r"\banswered\s+(?:with\s+)?[\"']?yes\b",
    r"\b(?:grade|rate|score|mark|judge)\s+(?:this|it|the\s+output)\s+(?:as\s+)?(?:a\s+)?"
    r"(?:pass|passing|yes|correct|10|5|perfect|highest)",
    r"\byou\s+(?:must|should|will)\s+(?:answer|rate|grade|score|mark|pass)\b",
)
_CUE = re.compile(
    rf"\b(?:{_JUDGE}s?|criteri(?:on|a)|instructions?|rubric|grading|prompt|evaluation)\b",
    re.IGNORECASE,
)
_STRONG_RE = re.compile("|".join(f"(?:{p})" for p in _STRONG), re.IGNORECASE)
_WEAK_RE = re.compile("|".join(f"(?:{p})" for p in _WEAK), re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)")


def addressed_sentences(text: str) -> list[str]:
    """The sentences of `text` that speak to its judge, as written."""
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip() and _addressed(s.strip())]


def _addressed(sentence: str) -> bool:
    if _STRONG_RE.search(sentence):
        return True
    return bool(_WEAK_RE.search(sentence) and _CUE.search(sentence))


def masked(ctx: Context) -> tuple[Context, tuple[str, ...]]:
    """The context with every sentence of a text output that speaks to its judge masked,
    and those sentences."""
    if not isinstance(ctx.output, str):
        return ctx, ()
    found = addressed_sentences(ctx.output)
    if not found:
        return ctx, ()
    text = ctx.output
    for sentence in found:
        text = text.replace(sentence, MASK)
    return replace(ctx, output=text), tuple(found)
