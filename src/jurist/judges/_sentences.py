"""Fluency and coherence from many small yes/no questions, one per sentence.

Asked "rate the coherence from 1 to 5", the 1.5B embedded model answers 4 for nearly every
SummEval summary (Spearman ~0.1 with the human ratings). The premise here, measured by
`jurist calibrate --method sentences`, is that a narrow question about one sentence, read as
P(yes) at the answer token rather than as the word said, ranks outputs where the holistic
question cannot. So each dimension is a set of checks, and its score is 1 + 4 x their mean
P(yes), on the 1-5 scale human raters use:

- fluency: one check per sentence, "is it grammatical, well-formed English?"
- coherence: "does it make sense as an opening?" for the first sentence, then "does it
  follow sensibly from what comes before?" for every later one.

No source is needed. Every check of one output shares the output as its prompt prefix, so a
local runtime's prompt cache evaluates the output once and each further check costs its
last lines and a handful of generated tokens.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal

from jurist.core import (
    BaseJudge,
    Cause,
    Check,
    Context,
    Count,
    JudgeKind,
    Judgment,
    Name,
    NumericScore,
    Report,
    RubricScore,
    Usage,
    gather_ordered,
)
from jurist.judges._ask import CallPolicy, Failure, ModelRef, ask
from jurist.judges._claims import split_sentences
from jurist.judges._common import ReportRow, omitted_when_none
from jurist.judges._reading import Unreadable, json_object
from jurist.llm import Model, ModelError, Response, field_probabilities
from jurist.prompts import Prompt

FLUENCY = "fluency"
COHERENCE = "coherence"
DIMENSIONS = (FLUENCY, COHERENCE)
YES_NO = ("yes", "no")
# `{"answer": "yes"}` is under ten tokens however a tokenizer splits it: a little slack,
# and no room for anything else.
ANSWER_TOKENS = 16
# An output longer than this is judged on its first sentences (the judgment says so): the
# checks grow with the sentences, two calls each.
MAX_SENTENCES = 24
TEXT_LENGTH = 200


class Question(StrEnum):
    """What a check asks about its sentence."""

    FLUENT = "fluent"  # grammatical, well-formed English
    OPENING = "opening"  # makes sense as the first sentence
    FOLLOWS = "follows"  # follows sensibly from what comes before


# How an answer was read: P(yes) at its token, the word stated, or none (the check failed);
# a dimension whose checks were read both ways is "mixed".
AnswerMethod = Literal["logprobs", "stated", "none"]


class SentenceCheckRow(ReportRow):
    """One sentence check as the report lists it; `cause` and `error` only when it failed."""

    dimension: str
    question: Question
    sentence: int
    text: str
    p_yes: float | None
    answer: Literal["yes", "no"] | None
    method: AnswerMethod
    cause: Cause | None = omitted_when_none()
    error: str | None = omitted_when_none()


class SentenceDimensionRow(ReportRow):
    """A dimension's checks aggregated (see SentenceDimension)."""

    score: float
    p_mean: float
    p_min: float
    checks: int
    weakest_sentence: int
    method: Literal["logprobs", "stated", "mixed"]


class SentencesReport(Report, kind="sentences"):
    """The per-sentence checks of an output: the `dimensions` asked, how many `sentences`
    the output has and how many were checked, every check, and, once every check was
    answered, each dimension's aggregate under its name with the `threshold` it had to
    reach. An output with no text reports only the dimensions."""

    dimensions: tuple[str, ...]
    sentences: int | None = omitted_when_none()
    checked_sentences: int | None = omitted_when_none()
    fluency: SentenceDimensionRow | None = omitted_when_none()
    coherence: SentenceDimensionRow | None = omitted_when_none()
    threshold: float | None = omitted_when_none()
    checks: tuple[SentenceCheckRow, ...] | None = omitted_when_none()

    def dimension(self, name: str) -> SentenceDimensionRow | None:
        """The aggregate of the dimension `name`; None when it was not asked or not every
        check of it was answered."""
        found = {FLUENCY: self.fluency, COHERENCE: self.coherence}.get(name)
        return found if name in self.dimensions else None


@dataclass(frozen=True)
class _Asked:
    dimension: str
    question: Question
    sentence: int
    text: str
    previous: str  # the sentence before, for a "follows" question; else ""


@dataclass(frozen=True)
class SentenceCheck:
    """One question about one sentence (1-based) and its answer.

    `p_yes` is P(yes) renormalised over yes/no at the answer token ("logprobs"), or 1/0 from
    the stated answer when the model gave no probabilities there ("stated"). `cause` is set
    when the check failed (then `p_yes` is None).
    """

    dimension: str
    question: Question
    sentence: int
    text: str
    p_yes: float | None
    answer: Literal["yes", "no"] | None = None
    method: AnswerMethod = "logprobs"
    cause: Cause | None = None
    error: str = ""

    def row(self) -> SentenceCheckRow:
        return SentenceCheckRow(
            dimension=self.dimension,
            question=self.question,
            sentence=self.sentence,
            text=self.text,
            p_yes=self.p_yes,
            answer=self.answer,
            method=self.method,
            cause=self.cause,
            error=self.error if self.cause is not None else None,
        )


@dataclass(frozen=True)
class SentenceDimension:
    """A dimension's checks aggregated: score = 1 + 4 x p_mean on the 1-5 scale."""

    name: str
    p_mean: float
    p_min: float
    checks: int
    weakest: int  # the sentence with the lowest P(yes)
    method: Literal["logprobs", "stated", "mixed"]

    @property
    def score(self) -> float:
        return 1.0 + 4.0 * self.p_mean

    def row(self) -> SentenceDimensionRow:
        return SentenceDimensionRow(
            score=self.score,
            p_mean=self.p_mean,
            p_min=self.p_min,
            checks=self.checks,
            weakest_sentence=self.weakest,
            method=self.method,
        )


def _dimensions(chosen: Sequence[str]) -> tuple[str, ...]:
    if isinstance(chosen, str):
        raise ValueError(f"dimensions must be a sequence of names, not the string {chosen!r}")
    if not chosen:
        raise ValueError(f"dimensions is empty: name at least one of {list(DIMENSIONS)}")
    for name in chosen:
        if name not in DIMENSIONS:
            raise ValueError(f"dimensions: {name!r} is not one of {list(DIMENSIONS)}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"dimensions: {list(chosen)} names a dimension twice")
    return tuple(chosen)


def aggregate(name: str, checks: Sequence[SentenceCheck]) -> SentenceDimension:
    """A dimension's mean and lowest P(yes) over its checks (which must all have one)."""
    probabilities = [check.p_yes for check in checks if check.p_yes is not None]
    if not probabilities or len(probabilities) != len(checks):
        raise ValueError(f"{name}: every check needs a P(yes) to be aggregated")
    weakest = min(checks, key=lambda check: check.p_yes if check.p_yes is not None else 1.0)
    methods = {check.method for check in checks}
    method = methods.pop() if len(methods) == 1 else "mixed"
    if method == "none":
        raise ValueError(f"{name}: a failed check cannot be aggregated")
    return SentenceDimension(
        name,
        sum(probabilities) / len(probabilities),
        min(probabilities),
        len(checks),
        weakest.sentence,
        method,
    )


class SentenceChecksJudge(BaseJudge):
    """Fluency and coherence of an output from per-sentence yes/no checks.

    Each dimension's score is 1 + 4 x the mean P(yes) of its checks; the judgment's score is
    the lower of the dimensions' (1-5), and it PASSes when every dimension reaches
    `threshold`. Metadata holds every check's P(yes) and, under each dimension's name, its
    `score`, `p_mean`, `p_min` and number of `checks`. ABSTAIN for an output with no text;
    ERROR, with the cause, when any check's call failed or its answer could not be read.
    """

    kind = JudgeKind.MODEL
    # The dimensions it can score, by name (the rubric's criterion names).
    DIMENSIONS: ClassVar[tuple[str, ...]] = DIMENSIONS

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        dimensions: Sequence[str] = DIMENSIONS,
        threshold: RubricScore = 3.0,
        max_sentences: Count = MAX_SENTENCES,
        name: Name | None = None,
        description: str = "",
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name or "sentences", description)
        self.dimensions = _dimensions(dimensions)
        if not 1.0 <= threshold <= 5.0:
            raise ValueError(f"threshold must lie on the 1-5 scale, not {threshold}")
        if max_sentences < 1:
            raise ValueError(f"max_sentences must be at least 1, not {max_sentences}")
        self.model = ModelRef(model)
        self.threshold = threshold
        self.max_sentences = max_sentences
        self.policy = (policy or CallPolicy.from_settings()).but(max_tokens=ANSWER_TOKENS)
        # One prompt per dimension, each with its answer schema beside its template.
        self.prompts = {name: Prompt.named(f"sentence_{name}") for name in self.dimensions}

    async def judge(self, ctx: Context) -> Judgment:
        output = ctx.output_text()
        every = split_sentences(output)
        if not every:
            report = SentencesReport(dimensions=self.dimensions)
            return Judgment.abstain(
                "the output has no text to judge",
                metadata={"judge": self.name, **report.to_metadata()},
            )
        sentences = every[: self.max_sentences]
        counted = SentencesReport(
            dimensions=self.dimensions, sentences=len(every), checked_sentences=len(sentences)
        )
        asked = self._questions(sentences)
        try:
            model = self.model.get()
        except ModelError as exc:
            failed = [_failed(q, Cause(exc.kind.value), str(exc.cause)) for q in asked]
            return self._errored(failed, None, counted, {})
        # Created in order, so the calls reach a one-at-a-time runtime in order: the checks
        # of one dimension follow each other and share their prompt up to the last line.
        results = await gather_ordered(self._ask(model, output, q) for q in asked)
        checks = [check for check, _, _ in results]
        usage = Usage.total(used for _, used, _ in results)
        first_call = next((meta for _, _, meta in results if meta), {})
        if any(check.cause is not None for check in checks):
            return self._errored(checks, usage, counted, first_call)
        return self._decided(checks, usage, counted, first_call)

    def _questions(self, sentences: Sequence[str]) -> list[_Asked]:
        asked: list[_Asked] = []
        if FLUENCY in self.dimensions:
            asked += [
                _Asked(FLUENCY, Question.FLUENT, n, text, "") for n, text in enumerate(sentences, 1)
            ]
        if COHERENCE in self.dimensions:
            asked.append(_Asked(COHERENCE, Question.OPENING, 1, sentences[0], ""))
            asked += [
                _Asked(COHERENCE, Question.FOLLOWS, n, sentences[n - 1], sentences[n - 2])
                for n in range(2, len(sentences) + 1)
            ]
        return asked

    async def _ask(
        self, model: Model, output: str, asked: _Asked
    ) -> tuple[SentenceCheck, Usage | None, dict[str, Any]]:
        got = await ask(
            model,
            self.prompts[asked.dimension].reading(
                lambda response: _read(asked, response), logprobs=True
            ),
            policy=self.policy,
            judge=self.name,
            variables={"output": output, "sentence": asked.text, "previous": asked.previous},
        )
        if isinstance(got, Judgment):
            failure = Failure.of(got)
            return _failed(asked, failure.cause, failure.error), got.usage, failure.call
        return got.value, got.usage, got.call

    def _errored(
        self,
        checks: Sequence[SentenceCheck],
        usage: Usage | None,
        counted: SentencesReport,
        call: Mapping[str, Any],
    ) -> Judgment:
        failed = [check for check in checks if check.cause is not None]
        causes = sorted({check.cause for check in failed if check.cause is not None})
        first = failed[0]
        report = counted.model_copy(update={"checks": tuple(check.row() for check in checks)})
        return Judgment.error(
            f"{len(failed)} of {len(checks)} sentence checks failed ({', '.join(causes)}); "
            f"{first.dimension} of sentence {first.sentence}: {first.error}",
            usage=usage,
            metadata={
                "judge": self.name,
                **call,
                **report.to_metadata(),
                "cause": causes[0] if len(causes) == 1 else Cause.MIXED,
            },
        )

    def _decided(
        self,
        checks: Sequence[SentenceCheck],
        usage: Usage | None,
        counted: SentencesReport,
        call: Mapping[str, Any],
    ) -> Judgment:
        results = [
            aggregate(name, [check for check in checks if check.dimension == name])
            for name in self.dimensions
        ]
        summary = [
            Check(
                result.name,
                result.score >= self.threshold,
                f"{result.name} {result.score:.2f}: mean P(yes) {result.p_mean:.2f} over "
                f"{result.checks} checks, lowest {result.p_min:.2f} (sentence {result.weakest})",
            )
            for result in results
        ]
        lowest = min(result.score for result in results)
        reasoning = "; ".join(check.message for check in summary)
        if counted.checked_sentences != counted.sentences:
            reasoning += (
                f" (the first {counted.checked_sentences} of {counted.sentences} sentences)"
            )
        report = counted.model_copy(
            update={
                **{result.name: result.row() for result in results},
                "threshold": self.threshold,
                "checks": tuple(check.row() for check in checks),
            }
        )
        decide = Judgment.ok if all(check.passed for check in summary) else Judgment.fail
        return decide(
            reasoning,
            score=NumericScore(lowest, 1.0, 5.0),
            checks=summary,
            usage=usage,
            metadata={"judge": self.name, **call, **report.to_metadata()},
        )


def _read(asked: _Asked, response: Response) -> SentenceCheck:
    answer = json_object(response)
    said = answer.get("answer")
    word = said.strip().lower() if isinstance(said, str) else None
    if word not in YES_NO:
        raise Unreadable(f'"answer" is {said!r}, not "yes" or "no"')
    yes = word == "yes"
    found = field_probabilities(response.logprobs, "answer", YES_NO)
    probabilities = found[0] if found else None
    method: AnswerMethod
    if probabilities is None:
        # No probabilities at the answer (a model without them): the stated answer, marked
        # as such, so a share of yeses is never mistaken for a mean probability.
        p_yes, method = (1.0 if yes else 0.0), "stated"
    else:
        p_yes, method = float(probabilities["yes"]), "logprobs"
    return SentenceCheck(
        asked.dimension,
        asked.question,
        asked.sentence,
        _shortened(asked.text),
        p_yes,
        "yes" if yes else "no",
        method,
    )


def _failed(asked: _Asked, cause: Cause, error: str) -> SentenceCheck:
    return SentenceCheck(
        asked.dimension,
        asked.question,
        asked.sentence,
        _shortened(asked.text),
        None,
        method="none",
        cause=cause,
        error=error,
    )


def _shortened(text: str) -> str:
    return text if len(text) <= TEXT_LENGTH else text[: TEXT_LENGTH - 3] + "..."
