"""Claims: the atomic statements of fact an output makes, each checkable on its own.

The model extracts them; when the model fails (down, or an answer that cannot be read) a
deterministic sentence splitter stands in, and the result says which one was used, so a
grounding figure never hides that it was computed on sentences instead of claims.
"""

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import JsonValue

from jurist.core import MAX_CLAIMS, Cause, Count, Judgment, SingleFlight, Usage, report
from jurist.judges._ask import CallPolicy, Failure, ModelRef, ask
from jurist.judges._exact import content_stems
from jurist.judges._reading import Unreadable, json_object
from jurist.llm import Model
from jurist.prompts import Prompt, PromptTemplate, answer_schema

# A claim is a short sentence: ~60 tokens each, and a little for the JSON around them.
CLAIM_TOKENS = 60

# Where a sentence may end: after . ! ? (and closing quotes or brackets), before a space and
# an upper-case letter, a digit or an opening quote; or, in tokenized text such as SummEval's
# lower-cased summaries ("burnley . andros townsend"), at a mark standing alone between
# spaces, whatever follows. Abbreviations and initials are kept.
_BOUNDARY = re.compile(r"""(?<=[.!?])["')\]]*\s+(?=["'(\[]?[A-Z0-9])|(?<=\s[.!?])\s+""")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|etc|e\.g|i\.e|Inc|Ltd|Co|Corp|No|Jan|Feb|Mar|"
    r"Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|U\.S|U\.K)\.|\b[A-Z]\.)$"
)
_MIN_WORDS = 3
_NUMBERS = re.compile(r"\d+(?:[.,]\d+)*")
# Claims this alike (Jaccard over content stems) are one claim said twice.
NEAR_REPEAT = 0.8
# The share of a claim's content words the output must hold for the claim to be its own. At
# 0.6, "Russia was involved in the war" (2 of 3) passed as a claim of "The US suspended talks
# with Russia over the war"; on SummEval summaries 0.75 leaves out the same claims as 0.6.
TRACEABLE_SHARE = 0.75
# The most claims one sentence states ("X, born in 1900 in Y, founded Z in 1950" has four).
CLAIMS_PER_SENTENCE = 4


class Extraction(StrEnum):
    """How the claims were found."""

    MODEL = "model"
    SENTENCES = "sentences"


@dataclass(frozen=True)
class Claims:
    """The claims of one output, how they were found and what finding them cost.

    `fallback_cause` says why the sentence splitter stood in for the model (the model
    error's kind, UNPARSEABLE, or PROMPT); None when the model extracted them.
    """

    claims: tuple[str, ...]
    extraction: Extraction
    usage: Usage | None = None
    fallback_cause: Cause | None = None
    fallback_reason: str = ""
    metadata: dict[str, Any] | None = None
    # What the model listed but the output does not say (see `traceable`), left out.
    untraceable: tuple[str, ...] = ()


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, split at . ! ? before a capital or digit, keeping abbreviations
    ("Dr.", "U.S.") and initials together; line breaks between paragraphs split too. A
    closing quote left alone after a full stop stays with its sentence."""
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*[-*\u2022]|\s*\d+[.)]\s)", text):
        flat = " ".join(block.split())
        if not flat:
            continue
        start = 0
        for match in _BOUNDARY.finditer(flat):
            piece = flat[start : match.start()]
            if _ABBREVIATION.search(piece):
                continue
            sentences.append(piece.strip())
            start = match.end()
        sentences.append(flat[start:].strip())
    joined: list[str] = []
    for piece in filter(None, sentences):
        # A piece with no letter or digit (the closing quote tokenized text leaves standing
        # after its full stop: ". '") is no sentence and belongs to the one before it.
        if joined and not re.search(r"\w", piece):
            joined[-1] = f"{joined[-1]} {piece}"
        else:
            joined.append(piece)
    return joined


def sentence_claims(text: str, limit: int = MAX_CLAIMS) -> list[str]:
    """The fallback claims: the sentences that may state a fact. Questions, list markers and
    fragments under three words are left out."""
    claims = []
    for sentence in split_sentences(text):
        bare = re.sub(r"^\s*(?:[-*\u2022]|\d+[.)])\s*", "", sentence).strip()
        if bare.endswith("?") or len(bare.split()) < _MIN_WORDS:
            continue
        claims.append(bare)
    return claims[:limit]


def claims_schema(limit: int) -> dict[str, JsonValue]:
    """The extracted claims (claims.schema.json): `{"claims": [...]}`, at most `limit`."""
    schema: dict[str, Any] = answer_schema("claims")
    schema["properties"]["claims"]["maxItems"] = limit
    return schema


def read_claims(answer: Mapping[str, Any], limit: int) -> list[str]:
    """The claims of a model answer, stripped and without repeats (near-repeats too: a
    small model's list can degenerate into one claim restated); unreadable when the
    answer holds no list of strings."""
    items = answer.get("claims")
    if not isinstance(items, list):
        raise Unreadable('the answer has no "claims" array')
    claims: list[str] = []
    seen: list[set[str]] = []
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise Unreadable(f"claims[{index}] is a {type(item).__name__}, not text")
        text = " ".join(item.split())
        words = content_stems(text)
        if not text or any(_same(words, other) for other in seen):
            continue
        claims.append(text)
        seen.append(words)
    return claims[:limit]


def _same(a: set[str], b: set[str]) -> bool:
    # A claim that adds or changes a number says something new however alike its words.
    numbers_a = {w for w in a if w[:1].isdigit()}
    numbers_b = {w for w in b if w[:1].isdigit()}
    if numbers_a != numbers_b:
        return False
    return bool(a | b) and len(a & b) / len(a | b) >= NEAR_REPEAT


def traceable(claim: str, output: str) -> bool:
    """Whether the output says what the claim says: every number of the claim is in the
    output, and most of its content words (by stem) are. "Russia is a country", drawn
    from "talks with Russia", is background the output never states."""
    said = content_stems(output)
    wanted = content_stems(claim)
    numbers = set(_NUMBERS.findall(claim))
    if not numbers <= set(_NUMBERS.findall(output)):
        return False
    return not wanted or len(wanted & said) / len(wanted) >= TRACEABLE_SHARE


def claims_limit(output: str, max_claims: int) -> int:
    """How many claims an output can make: a few per sentence, at most `max_claims`. The
    answer's schema closes the list there, so a list degenerating into repeats stops."""
    return min(max_claims, CLAIMS_PER_SENTENCE * max(1, len(split_sentences(output))))


class ClaimExtractor:
    """Extracts the factual claims of an output with a model, falling back to sentences.

    Opinions, advice and instructions are left out by the prompt. An output with no text has
    no claims and costs no call. With `own_words` (the default) only what the output itself
    says is kept (`traceable`; what is left out is reported) and the list is bounded by the
    output's sentences; a selection drawn from a source, such as its key facts, sets it off.
    """

    def __init__(
        self,
        model: Model | str | ModelRef | None = None,
        *,
        max_claims: Count = MAX_CLAIMS,
        template: PromptTemplate | str = "claims",
        policy: CallPolicy | None = None,
        own_words: bool = True,
    ) -> None:
        if max_claims < 1:
            raise ValueError(f"max_claims must be at least 1, not {max_claims}")
        self.model = model if isinstance(model, ModelRef) else ModelRef(model)
        self.max_claims = max_claims
        self.template = PromptTemplate.of(template)
        self.policy = policy or CallPolicy.from_settings()
        self.own_words = own_words

    async def extract(self, output: str, *, goal: str = "") -> Claims:
        if not output.strip():
            return Claims((), Extraction.MODEL)
        limit = claims_limit(output, self.max_claims) if self.own_words else self.max_claims
        prompt = Prompt(self.template, claims_schema(limit))
        report("extracting claims")
        got = await ask(
            self.model,
            prompt.reading(lambda response: read_claims(json_object(response), limit)),
            policy=self.policy.but(max_tokens=CLAIM_TOKENS * limit + 20),
            judge="claims",
            variables={"output": output, "goal": goal, "max_claims": limit},
        )
        if isinstance(got, Judgment):
            return self._failed(output, got)
        kept = tuple(c for c in got.value if not self.own_words or traceable(c, output))
        dropped = tuple(claim for claim in got.value if claim not in kept)
        return Claims(kept, Extraction.MODEL, got.usage, metadata=got.call, untraceable=dropped)

    def _failed(self, output: str, got: Judgment) -> Claims:
        """The sentences stand in, saying why; an unreadable answer keeps its call's cost
        and what is known of the call."""
        failure = Failure.of(got)
        if failure.cause is Cause.PROMPT:
            return self._fallback(output, failure.cause, failure.error)
        if failure.cause is not Cause.UNPARSEABLE:
            return self._fallback(output, failure.cause, got.reasoning)
        fallback = self._fallback(output, failure.cause, f"unreadable claims: {failure.error}")
        return dataclasses.replace(fallback, usage=got.usage, metadata=failure.call)

    def _fallback(self, output: str, cause: Cause, reason: str) -> Claims:
        return Claims(
            tuple(sentence_claims(output, self.max_claims)),
            Extraction.SENTENCES,
            fallback_cause=cause,
            fallback_reason=reason,
        )


class SharedClaimExtractor(ClaimExtractor):
    """A ClaimExtractor that reads each (output, goal) once, however many judges ask, even
    at the same time: the judges of one validation (facts, hallucination) then check the
    same claims, and the model is asked once. The usage is counted with the first asker
    only, so totals over the judges stay true. One per request: it keeps what it read.
    """

    def __init__(
        self,
        model: Model | str | ModelRef | None = None,
        *,
        max_claims: Count = MAX_CLAIMS,
        template: PromptTemplate | str = "claims",
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(model, max_claims=max_claims, template=template, policy=policy)
        self._reads: SingleFlight[tuple[str, str], Claims] = SingleFlight(
            keep="all", shared=lambda claims: dataclasses.replace(claims, usage=None)
        )

    async def extract(self, output: str, *, goal: str = "") -> Claims:
        read = super().extract
        return await self._reads((output, goal), lambda: read(output, goal=goal))
