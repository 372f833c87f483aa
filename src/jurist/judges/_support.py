"""Claim verification: is each claim supported, contradicted or not mentioned by a source?

A small model says "supported" to almost anything, but the probability it gives "supported"
against the other verdicts still ranks claims, so the decision is P(supported), read at the
verdict's token and renormalised over the three verdicts, against a threshold. The model
also quotes the sentence it relied on, and jurist checks the quote is really in the source:
with `require_quote` (the default) a claim counts as supported only with a quote that is.
"""

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import JsonValue

from jurist.core import (
    Cause,
    Judgment,
    Steps,
    Threshold,
    Usage,
    gather_ordered,
    report,
    threshold_of,
)
from jurist.judges._ask import CallPolicy, Failure, ModelRef, ask
from jurist.judges._common import ReportRow, omitted_when_none
from jurist.judges._evidence import QuoteMatch, match_quote, nearest_sentence
from jurist.judges._exact import Check, Finding, evidence_findings, source_findings
from jurist.judges._reading import Unreadable, json_object, read_numbered
from jurist.llm import Model, ModelError, Response, field_probabilities
from jurist.prompts import Prompt, answer_schema

# A verdict and a quoted sentence: ~110 tokens at most for one claim.
ONE_CLAIM_TOKENS = 130
VERDICTS_KEY = "verdicts"


class Support(StrEnum):
    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_MENTIONED = "not_mentioned"


LABELS = tuple(member.value for member in Support)

# How a verdict was read: P(supported) at its token, the word stated, or none (it failed).
# How a claim's verdict was reached: read from the model's token probabilities or its stated
# verdict, decided by an exact check ("exact"), or not at all ("none").
CheckMethod = Literal["logprobs", "stated", "exact", "none"]
# How the claims were asked: one call each, or all in one call.
VerifyMode = Literal["per_claim", "together"]


class ExactFinding(ReportRow):
    """A mismatch an exact check found between a claim and its source (`check`: number,
    month, name, negation or role), with the two values."""

    check: Check
    claimed: str
    found: str
    reason: str


class ClaimRow(ReportRow):
    """A claim's check as a report lists it (`claims`); `cause` and `error` only when the
    check failed."""

    claim: str
    verdict: Support | None
    p_supported: float | None
    supported: bool
    quote: str
    quote_found: bool
    quote_match: QuoteMatch
    evidence: str
    method: CheckMethod
    exact: tuple[ExactFinding, ...] | None = omitted_when_none()
    cause: Cause | None = omitted_when_none()
    error: str | None = omitted_when_none()


@dataclass(frozen=True)
class ClaimCheck:
    """One claim checked against the source.

    `verdict` is what the model answered and `p_supported` its probability of "supported"
    (None without token probabilities); `supported` is jurist's decision. `quote_match`
    says whether the model's quote occurs in the source (exact), nearly does (close: a word
    or two changed, no number or name) or not (none); `quote_found` is exact or close.
    `evidence` is the quote when found, else the source sentence nearest the claim. `cause`
    is set when the check failed (then `verdict` is None).
    """

    claim: str
    verdict: Support | None
    p_supported: float | None
    supported: bool
    quote: str = ""
    quote_match: QuoteMatch = QuoteMatch.NONE
    evidence: str = ""
    method: CheckMethod = "logprobs"
    cause: Cause | None = None
    error: str = ""
    exact: tuple[Finding, ...] = ()

    @property
    def checked(self) -> bool:
        return self.cause is None

    @property
    def quote_found(self) -> bool:
        return self.quote_match is not QuoteMatch.NONE

    @property
    def invented_quote(self) -> bool:
        """A quote was given but the source does not hold it."""
        return bool(self.quote.strip()) and not self.quote_found

    def row(self) -> ClaimRow:
        failed = self.cause is not None
        return ClaimRow(
            claim=self.claim,
            verdict=self.verdict,
            p_supported=self.p_supported,
            supported=self.supported,
            quote=self.quote,
            quote_found=self.quote_found,
            quote_match=self.quote_match,
            evidence=self.evidence,
            method=self.method,
            exact=tuple(ExactFinding(**f.as_dict()) for f in self.exact) or None,
            cause=self.cause,
            error=self.error if failed else None,
        )

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON."""
        return self.row().model_dump(mode="json")


@dataclass(frozen=True)
class SupportReport:
    """The checks of every claim, what they cost, how they were asked, and what is known of
    the (first) call that checked them. `reasked` says why claims of a one-call answer were
    asked again alone (a verdict missing, out of range or given twice)."""

    checks: tuple[ClaimCheck, ...]
    usage: Usage | None
    mode: VerifyMode = "per_claim"
    call: dict[str, Any] = field(default_factory=dict)
    reasked: tuple[str, ...] = ()


@dataclass(frozen=True)
class SupportOptions:
    """How claims are verified.

    `together` asks about every claim in one call instead of one call per claim; None
    chooses from the model: one call for a hosted provider, one call per claim for a model
    that runs in this process (`Capabilities.local`, the embedded model);
    `quote_first` asks for the quote before the verdict; `threshold` is the P(supported)
    a claim needs; `require_quote` withholds support from a claim whose quote is not in
    the source; `quote=False` asks for the verdict alone (a few tokens instead of a copied
    sentence, for checks whose evidence nobody reads, such as a key fact against a
    summary), so no quote is required and none is held against the claim; `exact` runs
    the exact checks (numbers, months, names before the model, negation and roles
    against its quote after), whose mismatch contradicts a claim whatever the model says.
    """

    threshold: Threshold = 0.5
    together: bool | None = False
    quote_first: bool = False
    require_quote: bool = True
    exact: bool = True
    quote: bool = True

    def __post_init__(self) -> None:
        threshold_of(self.threshold)

    @property
    def needs_quote(self) -> bool:
        return self.quote and self.require_quote

    def together_for(self, model: Model) -> bool:
        """Whether `model` is asked about every claim in one call."""
        if self.together is not None:
            return self.together
        return not model.capabilities.local


def _verdict_properties(
    shape: Mapping[str, Any], quote_first: bool, quote: bool = True
) -> dict[str, Any]:
    """The verdict's properties of the schema file, in the order the model writes them."""
    if not quote:
        return {"verdict": shape["verdict"]}
    first, second = ("quote", "verdict") if quote_first else ("verdict", "quote")
    return {first: shape[first], second: shape[second]}


def support_schema(*, quote_first: bool, quote: bool = True) -> dict[str, JsonValue]:
    """The answer about one claim (claim_support.schema.json): `{"verdict", "quote"}`, or
    `{"verdict"}` alone without a quote."""
    schema: dict[str, Any] = answer_schema("claim_support")
    schema["properties"] = _verdict_properties(schema["properties"], quote_first, quote)
    schema["required"] = list(schema["properties"])
    return schema


def supports_schema(count: int, *, quote_first: bool, quote: bool = True) -> dict[str, JsonValue]:
    """The answer about `count` claims at once (claims_support.schema.json):
    `{"verdicts": [...]}` with exactly one verdict per claim, each naming its claim's
    number (1-based)."""
    schema: dict[str, Any] = answer_schema("claims_support")
    verdicts = schema["properties"][VERDICTS_KEY]
    item = verdicts["items"]
    shape = item["properties"]
    item["properties"] = {
        "claim": {**shape["claim"], "maximum": count},
        **_verdict_properties(shape, quote_first, quote),
    }
    item["required"] = list(item["properties"])
    verdicts["minItems"] = verdicts["maxItems"] = count
    return schema


def read_check(
    claim: str,
    item: Mapping[str, Any],
    probabilities: Mapping[str, float] | None,
    source: str,
    options: SupportOptions,
    *,
    where: str = "",
) -> ClaimCheck:
    """A claim's check from its answer object and, when read, the verdict's probabilities."""
    said = item.get("verdict")
    if not isinstance(said, str) or said.strip().lower() not in LABELS:
        raise Unreadable(f'{where}"verdict" is {said!r}, not one of {", ".join(LABELS)}')
    verdict = Support(said.strip().lower())
    quote = item.get("quote")
    quote_text = " ".join(quote.split()) if isinstance(quote, str) else ""
    matched = match_quote(quote_text, source) if quote_text else QuoteMatch.NONE
    found = matched is not QuoteMatch.NONE
    p_supported = float(probabilities[Support.SUPPORTED]) if probabilities is not None else None
    method: CheckMethod = "stated" if p_supported is None else "logprobs"
    if p_supported is None:
        believed = verdict is Support.SUPPORTED
    else:
        believed = p_supported >= options.threshold
    return ClaimCheck(
        claim,
        verdict,
        p_supported,
        believed and (found or not options.needs_quote),
        quote_text,
        matched,
        quote_text if found else nearest_sentence(claim, source),
        method,
    )


def _contradicted(claim: str, source: str) -> ClaimCheck | None:
    """The claim's check when a number, month or name of it disagrees with the source: no
    model needed (P(supported) 0)."""
    nearest = nearest_sentence(claim, source)
    found = source_findings(claim, nearest, source)
    if not found:
        return None
    return ClaimCheck(
        claim,
        Support.CONTRADICTED,
        0.0,
        False,
        evidence=nearest,
        method="exact",
        exact=tuple(found),
    )


def _held_to_quote(check: ClaimCheck, options: SupportOptions) -> ClaimCheck:
    """A model's check, contradicted when its claim negates or swaps the roles of the
    passage it rests on (the quote when the source holds it)."""
    if not options.exact or check.cause is not None or check.verdict is Support.CONTRADICTED:
        return check
    found = evidence_findings(check.claim, check.evidence)
    if not found:
        return check
    return dataclasses.replace(
        check,
        verdict=Support.CONTRADICTED,
        p_supported=0.0,
        supported=False,
        method="exact",
        exact=tuple(found),
    )


def _failed(claim: str, source: str, cause: Cause, error: str) -> ClaimCheck:
    return ClaimCheck(
        claim,
        None,
        None,
        False,
        evidence=nearest_sentence(claim, source),
        method="none",
        cause=cause,
        error=error,
    )


class ClaimVerifier:
    """Checks claims against one source text with a model.

    Each claim is its own call, all in flight together (they share the source as their
    prompt prefix, so a local runtime evaluates the source once), or, with
    `options.together`, one call checks them all (chosen from the model when None). A
    claim the one-call answer gives no single readable verdict for is asked again alone.
    """

    def __init__(
        self,
        model: Model | str | ModelRef | None = None,
        options: SupportOptions | None = None,
        *,
        policy: CallPolicy | None = None,
    ) -> None:
        self.model = model if isinstance(model, ModelRef) else ModelRef(model)
        self.options = options or SupportOptions()
        self.policy = policy or CallPolicy.from_settings()
        quote_first = self.options.quote_first
        self.one = Prompt.named("claim_support").with_schema(
            support_schema(quote_first=quote_first, quote=self.options.quote)
        )

    async def verify(self, claims: Sequence[str], source: str) -> SupportReport:
        """Each claim checked: by the exact checks alone when they find a mismatch with the
        source, else by the model, its verdict then held against its quote."""
        if not claims:
            return SupportReport((), None, self._planned_mode())
        settled = {c: _contradicted(c, source) for c in claims} if self.options.exact else {}
        asked = [claim for claim in claims if settled.get(claim) is None]
        report = await self._ask_model(asked, source)
        checked = iter(report.checks)
        checks = tuple(
            settled.get(claim) or _held_to_quote(next(checked), self.options) for claim in claims
        )
        return dataclasses.replace(report, checks=checks)

    async def _ask_model(self, claims: Sequence[str], source: str) -> SupportReport:
        if not claims:
            return SupportReport((), None, self._planned_mode())
        try:
            model = self.model.get()
        except ModelError as exc:
            failed = [_failed(c, source, Cause(exc.kind.value), str(exc.cause)) for c in claims]
            return SupportReport(tuple(failed), None, self._planned_mode())
        if self.options.together_for(model):
            report(f"checking {len(claims)} claims together")
            return await self._together(model, claims, source)
        return await self._each(model, claims, source)

    async def _each(self, model: Model, claims: Sequence[str], source: str) -> SupportReport:
        results = await gather_ordered(
            (self._one(model, claim, source) for claim in claims),
            steps=Steps("claim", len(claims)),
        )
        first = next((meta for _, _, meta in results if meta), {})
        return SupportReport(
            tuple(check for check, _, _ in results),
            Usage.total(usage for _, usage, _ in results),
            "per_claim",
            first,
        )

    def _planned_mode(self) -> VerifyMode:
        """The mode without asking the model anything (no claim to ask about, or no model):
        from the option, or from the model when it can be had."""
        together = self.options.together
        if together is None:
            try:
                together = self.options.together_for(self.model.get())
            except (ModelError, ValueError):  # unavailable, or a spec that does not parse
                together = False
        return "together" if together else "per_claim"

    async def _one(
        self, model: Model, claim: str, source: str
    ) -> tuple[ClaimCheck, Usage | None, dict[str, Any]]:
        def read(response: Response) -> ClaimCheck:
            found = field_probabilities(response.logprobs, "verdict", LABELS)
            answer = json_object(response)
            return read_check(claim, answer, found[0] if found else None, source, self.options)

        got = await ask(
            model,
            self.one.reading(read, logprobs=True),
            policy=self.policy.but(max_tokens=ONE_CLAIM_TOKENS),
            judge="claim_support",
            variables={
                "quote_first": self.options.quote_first,
                "quote": self.options.quote,
                "context": source,
                "claim": claim,
            },
        )
        if isinstance(got, Judgment):
            failure = Failure.of(got)
            return (
                _failed(claim, source, failure.cause, failure.error),
                got.usage,
                failure.call,
            )
        return got.value, got.usage, got.call

    async def _together(self, model: Model, claims: Sequence[str], source: str) -> SupportReport:
        count = len(claims)
        prompt = Prompt.named("claims_support").with_schema(
            supports_schema(count, quote_first=self.options.quote_first, quote=self.options.quote)
        )
        got = await ask(
            model,
            prompt.reading(
                lambda response: read_checks(response, claims, source, self.options),
                logprobs=True,
            ),
            policy=self.policy.but(max_tokens=ONE_CLAIM_TOKENS * count + 40),
            judge="claims_support",
            variables={
                "quote_first": self.options.quote_first,
                "quote": self.options.quote,
                "context": source,
                "claims": list(claims),
            },
        )
        if isinstance(got, Judgment):
            failure = Failure.of(got)
            failed = [_failed(c, source, failure.cause, failure.error) for c in claims]
            return SupportReport(tuple(failed), got.usage, "together", failure.call)
        reading: TogetherReading = got.value
        missing = reading.missing(len(claims))
        if not missing:
            checks = [reading.checks[number] for number in range(1, len(claims) + 1)]
            return SupportReport(tuple(checks), got.usage, "together", got.call)
        # A verdict missing, out of range or given twice is never taken as one: its claim is
        # asked again alone.
        report(f"asking {len(missing)} claims again alone: {'; '.join(reading.problems)}")
        alone = await self._each(model, [claims[number - 1] for number in missing], source)
        again = dict(zip(missing, alone.checks, strict=True))
        checks = [reading.checks.get(n) or again[n] for n in range(1, len(claims) + 1)]
        return SupportReport(
            tuple(checks),
            Usage.total([got.usage, alone.usage]),
            "together",
            got.call,
            reading.problems,
        )


@dataclass(frozen=True)
class TogetherReading:
    """The checks a one-call answer holds, by claim number (1-based), and what was wrong
    with the verdicts it does not hold."""

    checks: Mapping[int, ClaimCheck]
    problems: tuple[str, ...]

    def missing(self, count: int) -> list[int]:
        return [number for number in range(1, count + 1) if number not in self.checks]


def read_checks(
    response: Response, claims: Sequence[str], source: str, options: SupportOptions
) -> TogetherReading:
    """The checks of a one-call answer: one per claim number answered exactly once with a
    readable verdict; P(supported) of the k-th verdict written is read at its k-th
    "verdict" token (the stated verdicts are used when the tokens do not line up). A claim
    number missing, out of range, given twice, or with no readable verdict gets no check,
    and the reading says why."""
    reading = read_numbered(
        response,
        key=VERDICTS_KEY,
        number="claim",
        count=len(claims),
        items_named="claims",
        field="verdict",
        labels=LABELS,
    )
    checks: dict[int, ClaimCheck] = {}
    problems = list(reading.problems)
    for number, a in reading.answers.items():
        try:
            checks[number] = read_check(
                claims[number - 1], a.item, a.probabilities, source, options, where=a.where
            )
        except Unreadable as exc:
            problems.append(str(exc))
    return TogetherReading(checks, tuple(problems))
