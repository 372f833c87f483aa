"""One item of a run as the viewer shows it: its inputs, and every judgment stored for it as
a tree (the run's verdict with its jury's votes under it, then any other judge's), each with
its checks, its typed report, the calls behind it when the run kept them, and what it cost.

A report is read through its typed class (`Report.of`); a kind this process does not know,
or one that does not validate, is shown as the fields it holds, so no stored judgment ever
breaks the page."""

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from jurist.core import (
    REPORT_KEY,
    Context,
    Judgment,
    Report,
    ReportError,
    normalized_score,
    thawed,
    to_json_text,
)
from jurist.judges import ClaimsReport, rag
from jurist.store import StoredJudgment, StoredRun
from jurist.viewer._item_marks import Located, Passage, locate, marked

# Metadata a judgment view shows in its own places, not among the report's fields.
_SHOWN_ELSEWHERE = frozenset({REPORT_KEY, "judge", "model", "parameters", "prompt_sha256"})
# The dataset was read, but holds no row of this id that became a Context (its row could
# not be read: its judgment says why).
NO_ROW = "the run's dataset holds no readable row with this id"
KEEP_CALLS = (
    "this run did not keep the prompts sent and the raw answers: run it again with "
    "`jurist eval --keep-calls` (evaluate(..., keep_calls=True)) to keep them"
)


class RunRef(BaseModel):
    id: str
    name: str | None
    status: str
    judge: str | None
    dataset: str | None
    dataset_sha256: str | None


class Inputs(BaseModel):
    """What the item's Context holds; `passages` are the source, cut where quotes are."""

    goal: str
    output: str
    passages: list[Passage]
    reference: str | None
    metadata: dict[str, Any]


class CheckView(BaseModel):
    name: str
    passed: bool
    message: str


class ClaimView(BaseModel):
    """One claim of a claims report, with where its quote is in the source (None: not
    found there)."""

    number: int
    claim: str
    verdict: str | None
    p_supported: float | None
    supported: bool
    quote: str
    quote_match: str
    evidence: str
    method: str
    located: Located | None
    error: str | None


class ReportView(BaseModel):
    """A judgment's report: its kind, its fields as JSON, and for claims each claim with
    its quote located; `problem` when it names a kind whose fields do not validate."""

    kind: str
    fields: dict[str, Any]
    claims: list[ClaimView] | None = None
    problem: str | None = None


class Cost(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float | None = None

    def plus(self, other: "Cost") -> "Cost":
        return Cost(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=_known_sum(self.cost_usd, other.cost_usd),
            latency_ms=_known_sum(self.latency_ms, other.latency_ms),
        )


class CallView(BaseModel):
    """One model call behind a judgment: the messages sent and the raw answer."""

    messages: list[dict[str, str]]
    answer: str
    model: str | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    latency_ms: float | None
    cached: bool  # answered from the response cache
    judge: str | None  # the judge (or a jury's member) that asked
    error: str | None


class JudgmentView(BaseModel):
    judge: str  # as stored: the run's judge, or JUDGE/MEMBER for a vote
    name: str  # as shown: the member's name under its verdict
    status: str
    score: float | None
    score_detail: dict[str, Any] | None
    confidence: float | None
    reasoning: str
    cause: str | None
    error: dict[str, Any] | None
    model: str | None
    parameters: dict[str, Any] | None
    prompt_sha256: str | None
    cost: Cost
    checks: list[CheckView]
    report: ReportView | None
    calls: list[CallView] | None
    members: list["JudgmentView"] = []


class ItemView(BaseModel):
    run: RunRef
    item_id: str
    inputs: Inputs | None
    inputs_note: str | None
    judgments: list[JudgmentView]
    total: Cost
    calls_kept: bool
    calls_note: str | None


def item_view(
    run: StoredRun,
    item_id: str,
    stored: Sequence[StoredJudgment],
    ctx: Context | None,
    note: str | None,
) -> ItemView:
    judge = run_judge(run)
    passages = _passages(ctx)
    views = {row.judge: _judgment(row, passages) for row in stored}
    roots = _tree(views, judge)
    total = Cost()
    for root in roots:
        # A verdict's usage holds its votes'; a verdict that states none is their sum.
        total = total.plus(_members_cost(root) if root.cost == Cost() else root.cost)
    claims = [
        claim
        for view in _walk(roots)
        if view.report is not None and view.report.claims is not None
        for claim in view.report.claims
    ]
    for number, claim in enumerate(claims, 1):  # one numbering for every mark in the source
        claim.number = number
    quotes = [(claim.located, claim.supported) for claim in claims]
    inputs = None
    if ctx is not None:
        inputs = Inputs(
            goal=ctx.goal,
            output=ctx.output_text(),
            passages=marked(passages, quotes),
            reference=None if ctx.reference is None else _text(ctx.reference),
            metadata=thawed(ctx.metadata),
        )
    # A judgment of a run that kept its calls but made none (a judge that calls no model)
    # holds no calls: the run's spec says they were kept.
    kept = (run.spec or {}).get("keep_calls") is True or any(
        view.calls is not None for view in views.values()
    )
    return ItemView(
        run=run_ref(run),
        item_id=item_id,
        inputs=inputs,
        inputs_note=None if ctx is not None else note or NO_ROW,
        judgments=roots,
        total=total,
        calls_kept=kept,
        calls_note=None if kept else KEEP_CALLS,
    )


def _passages(ctx: Context | None) -> list[str]:
    """The source the grounding judges checked claims against."""
    if ctx is None:
        return []
    try:
        return rag.passages(ctx)
    except ValueError:  # a malformed rag.context: the judges said so; show the passages
        return [passage for passage in ctx.context if passage.strip()]


def run_ref(run: StoredRun) -> RunRef:
    described = (run.spec or {}).get("dataset")
    dataset = described if isinstance(described, Mapping) else {}
    return RunRef(
        id=run.id,
        name=run.name,
        status=run.status,
        judge=run_judge(run),
        dataset=_str(dataset.get("path")),
        dataset_sha256=_str(dataset.get("sha256")),
    )


def run_judge(run: StoredRun) -> str | None:
    """The name the run's verdicts are stored under (its spec's judge), when it says."""
    described = (run.spec or {}).get("judge")
    name = described.get("name") if isinstance(described, Mapping) else None
    return name if isinstance(name, str) else None


def _tree(views: dict[str, JudgmentView], judge: str | None) -> list[JudgmentView]:
    """Votes (JUDGE/MEMBER) under their judge's verdict; the run's judge first."""
    roots: dict[str, JudgmentView] = {}
    for label in sorted(views, key=lambda name: (name != judge, name.count("/"), name)):
        view = views[label]
        parent = next(
            (root for root in roots if label.startswith(root + "/") and len(label) > len(root) + 1),
            None,
        )
        if parent is None:
            roots[label] = view
        else:
            view.name = label[len(parent) + 1 :]
            roots[parent].members.append(view)
    return list(roots.values())


def _walk(views: Sequence[JudgmentView]) -> list[JudgmentView]:
    found: list[JudgmentView] = []
    for view in views:
        found.append(view)
        found.extend(_walk(view.members))
    return found


def _members_cost(view: JudgmentView) -> Cost:
    total = Cost()
    for member in view.members:
        total = total.plus(member.cost)
    return total


def _judgment(row: StoredJudgment, passages: Sequence[str]) -> JudgmentView:
    judgment = row.to_judgment()
    error = judgment.error_info
    cause = judgment.cause
    score = row.judgment.get("score")
    return JudgmentView(
        judge=row.judge,
        name=row.judge,
        status=row.status,
        score=normalized_score(judgment),
        score_detail=dict(score) if isinstance(score, Mapping) else None,
        confidence=judgment.confidence,
        reasoning=judgment.reasoning,
        cause=None if cause is None else cause.value,
        error=None if error is None else dict(error),
        model=row.model,
        parameters=row.parameters,
        prompt_sha256=row.prompt_sha256,
        cost=Cost(
            input_tokens=row.input_tokens,
            output_tokens=row.output_tokens,
            cost_usd=row.cost_usd,
            latency_ms=row.latency_ms,
        ),
        checks=[
            CheckView(name=c.name, passed=c.passed, message=c.message) for c in judgment.checks
        ],
        report=_report(judgment, passages),
        calls=_calls(row.calls),
    )


def _report(judgment: Judgment, passages: Sequence[str]) -> ReportView | None:
    kind = judgment.metadata.get(REPORT_KEY)
    if not isinstance(kind, str):
        return None
    try:
        report = Report.of(judgment)
    except ReportError as exc:
        return ReportView(kind=kind, fields=_plain(judgment.metadata), problem=str(exc))
    if report is None:  # a kind this process does not know: its fields as they are
        return ReportView(kind=kind, fields=_plain(judgment.metadata))
    fields = report.model_dump(mode="json")
    claims = None
    if isinstance(report, ClaimsReport):
        fields.pop("claims", None)
        claims = [
            ClaimView(
                number=number,
                claim=row.claim,
                verdict=None if row.verdict is None else row.verdict.value,
                p_supported=row.p_supported,
                supported=row.supported,
                quote=row.quote,
                quote_match=row.quote_match.value,
                evidence=row.evidence,
                method=row.method,
                located=locate(row.quote, passages),
                error=row.error,
            )
            for number, row in enumerate(report.claims, 1)
        ]
    return ReportView(kind=kind, fields=fields, claims=claims)


def _plain(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {k: thawed(v) for k, v in metadata.items() if k not in _SHOWN_ELSEWHERE}


def _calls(kept: Sequence[Any] | None) -> list[CallView] | None:
    # Read defensively: the column holds JSON as written by whichever version kept it.
    if kept is None:
        return None
    calls: list[CallView] = []
    for call in kept:
        if not isinstance(call, Mapping):
            continue
        messages = call.get("messages")
        calls.append(
            CallView(
                messages=[
                    {"role": str(m.get("role", "")), "content": _text(m.get("content", ""))}
                    for m in (messages if isinstance(messages, list) else [])
                    if isinstance(m, Mapping)
                ],
                answer=_text(call.get("answer") or ""),
                model=_str(call.get("model")),
                input_tokens=_int(call.get("input_tokens")),
                output_tokens=_int(call.get("output_tokens")),
                cost_usd=_float(call.get("cost_usd")),
                latency_ms=_float(call.get("latency_ms")),
                cached=call.get("cached") is True,
                judge=_str(call.get("judge")),
                error=_str(call.get("error")),
            )
        )
    return calls


def _text(value: Any) -> str:
    return value if isinstance(value, str) else to_json_text(value)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _known_sum(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b
