"""What the pages of improvement cycles show, as values (the JSON twins return them): a
cycle's row in the list, a cycle with a page of its events, each event made readable (who
spoke, what it asked or answered, the scores and decisions), and the change a paused cycle
waits on."""

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from jurist.autonomy import CycleSpec, StoredCycle, StoredCycleEvent, outcome_of

# A field of a message longer than this, or on several lines, is shown as a block.
_BLOCK_CHARS = 90


class CycleRow(BaseModel):
    """Where one cycle stands."""

    id: str
    name: str | None
    status: str
    reason: str | None = Field(description="why it halted, failed, ended or waits")
    iterations: int
    baseline_score: float | None = Field(description="held-out score of the initial prompt")
    score: float | None = Field(description="held-out score of the current prompt")
    calls: int
    tokens: int
    cost_usd: float | None = Field(description="None when some call had no known price")
    created_at: datetime
    updated_at: datetime


class CycleList(BaseModel):
    """A page of the cycles the caller may read, newest first."""

    total: int
    page: int
    per_page: int
    pages: int
    status: str | None = Field(description="the status filter, if any")
    cycles: list[CycleRow]


class Part(BaseModel):
    """One field of a message, as text: `block` when it is long or on several lines."""

    label: str
    text: str
    block: bool


class EventView(BaseModel):
    """One event of a cycle made readable; `message` is the event as stored."""

    seq: int
    stage: str
    kind: str
    who: str = Field(description="who spoke: a role's id, the orchestrator or a person")
    title: str
    tone: str = Field(description="accepted, rejected, paused, failed or plain")
    parts: list[Part]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    at: datetime
    message: dict[str, Any]


class PendingChange(BaseModel):
    """The change a paused cycle waits on: the prompt in effect and the one proposed."""

    iteration: int
    old_prompt: str
    new_prompt: str
    old_score: float
    new_score: float
    why: str


class CycleDetail(CycleRow):
    """A cycle with its prompts, criteria, the change it waits on and a page of events."""

    initial_prompt: str
    prompt: str = Field(description="the prompt in effect now")
    criteria: list[dict[str, Any]]
    seconds: float
    pending: PendingChange | None
    may_decide: bool = Field(description="whether the caller may approve or reject")
    events_total: int
    page: int
    per_page: int
    pages: int
    events: list[EventView]


def cycle_row(stored: StoredCycle) -> CycleRow:
    return CycleRow(**_row_fields(stored))


def _row_fields(stored: StoredCycle) -> dict[str, Any]:
    outcome = outcome_of(stored)
    usage = outcome.usage
    return {
        "id": stored.id,
        "name": stored.name,
        "status": stored.status.value,
        "reason": outcome.reason,
        "iterations": outcome.iterations,
        "baseline_score": outcome.baseline_score,
        "score": outcome.score,
        "calls": usage.calls,
        "tokens": usage.total_tokens,
        "cost_usd": usage.cost_usd,
        "created_at": stored.created_at,
        "updated_at": stored.updated_at,
    }


def cycle_detail(
    stored: StoredCycle,
    events: list[StoredCycleEvent],
    *,
    total: int,
    page: int,
    per_page: int,
    may_decide: bool,
) -> CycleDetail:
    outcome = outcome_of(stored)
    spec = CycleSpec.model_validate(stored.spec)
    waiting = outcome.pending
    pending = (
        None
        if waiting is None
        else PendingChange(
            iteration=waiting["iteration"],
            old_prompt=outcome.prompt,
            new_prompt=waiting["prompt"],
            old_score=waiting["old_score"],
            new_score=waiting["new_score"],
            why=waiting["why"],
        )
    )
    return CycleDetail(
        **_row_fields(stored),
        initial_prompt=outcome.initial_prompt,
        prompt=outcome.prompt,
        criteria=[criterion.model_dump(mode="json") for criterion in spec.criteria],
        seconds=outcome.seconds,
        pending=pending,
        may_decide=may_decide and pending is not None,
        events_total=total,
        page=page,
        per_page=per_page,
        pages=max(1, -(-total // per_page)),
        events=[event_view(event) for event in events],
    )


# --- events -------------------------------------------------------------------------------

_TITLES = {
    "outputs": "answers of the {prompt} prompt",
    "verdict": "verdict of iteration {iteration}",
    "breakpoint": "waiting for approval of iteration {iteration}",
    "breaker": "circuit breaker: {breaker}",
    "halt": "halted",
    "iteration_failed": "iteration {iteration} failed",
    "human": "a person {decision} the change of iteration {iteration}",
}
_ASKED = {
    "evaluate": "score an answer",
    "analyze": "say why the answers fall short",
    "rewrite": "rewrite the prompt",
    "challenge": "challenge the proposal",
    "review": "review the iteration",
}


def event_view(event: StoredCycleEvent) -> EventView:
    message = event.message
    action, _, asked = event.kind.partition(":")
    if action in ("request", "reply") and isinstance(message.get("payload"), dict):
        return _view(event, *_protocol(action, asked, message))
    if action in ("failure", "rejected"):
        role = str(message.get("role", "a role"))
        title = f"{role} failed to {_ASKED.get(asked, asked)}"
        return _view(event, role, title, "failed", _parts(message, skip=("role",)))
    title = _title(event.kind, message)
    # An answers' event names its prompt in the title already.
    shown = _parts(message, skip=("prompt",) if event.kind == "outputs" else ())
    return _view(event, _speaker(event.kind, message), title, _tone(event.kind, message), shown)


def _protocol(action: str, asked: str, message: dict[str, Any]) -> tuple[str, str, str, list[Part]]:
    metadata = message.get("metadata") or {}
    sender = str(metadata.get("sender_id") or metadata.get("sender_role") or "?")
    payload: dict[str, Any] = message["payload"]
    if action == "request":
        title = f"asks to {_ASKED.get(asked, asked)}"
    else:
        title = f"answers: {_ASKED.get(asked, asked)}"
    return sender, title, "plain", _parts(payload, skip=("usage",))


def _view(event: StoredCycleEvent, who: str, title: str, tone: str, parts: list[Part]) -> EventView:
    return EventView(
        seq=event.seq,
        stage=event.stage,
        kind=event.kind,
        who=who,
        title=title,
        tone=tone,
        parts=parts,
        input_tokens=event.input_tokens,
        output_tokens=event.output_tokens,
        cost_usd=event.cost_usd,
        at=event.at,
        message=event.message,
    )


def _title(kind: str, message: dict[str, Any]) -> str:
    template = _TITLES.get(kind)
    if template is None:
        return kind.replace("_", " ")
    try:
        return template.format(**{key: _plain(value) for key, value in message.items()})
    except (KeyError, IndexError):
        return kind.replace("_", " ")


def _speaker(kind: str, message: dict[str, Any]) -> str:
    if kind == "human":
        return str(message.get("by") or "a person")
    if kind == "outputs":
        return "model under test"
    return "orchestrator"


def _tone(kind: str, message: dict[str, Any]) -> str:
    if kind == "verdict":
        return "accepted" if message.get("accepted") else "rejected"
    if kind == "human":
        return "accepted" if message.get("decision") == "approved" else "rejected"
    if kind == "breakpoint":
        return "paused"
    if kind in ("breaker", "halt", "iteration_failed"):
        return "failed"
    return "plain"


def _parts(fields: dict[str, Any], skip: tuple[str, ...] = ()) -> list[Part]:
    parts = []
    for name, value in fields.items():
        if name in skip or value is None or value in ("", [], {}):
            continue
        if name == "outputs" and isinstance(value, list):
            parts += [_output(entry) for entry in value if isinstance(entry, dict)]
            continue
        text = _text(value)
        block = "\n" in text or len(text) > _BLOCK_CHARS
        parts.append(Part(label=name.replace("_", " "), text=text, block=block))
    return parts


def _output(entry: dict[str, Any]) -> Part:
    case = str(entry.get("case", "?"))
    if entry.get("error"):
        return Part(label=f"case {case}", text=f"no answer: {entry['error']}", block=False)
    text = str(entry.get("output") or "")
    return Part(label=f"case {case}", text=text, block="\n" in text or len(text) > _BLOCK_CHARS)


def _text(value: Any) -> str:
    if isinstance(value, list):
        if all(isinstance(entry, dict) and "name" in entry for entry in value):
            return ", ".join(str(entry["name"]) for entry in value)  # criteria
        if all(isinstance(entry, dict) for entry in value):
            return "\n".join(_line(entry) for entry in value)  # findings
        return "\n".join(f"• {_plain(entry)}" for entry in value)
    if isinstance(value, dict):
        return "\n".join(f"{key}: {_plain(entry)}" for key, entry in value.items())
    return _plain(value)


def _line(entry: dict[str, Any]) -> str:
    if {"severity", "description"} <= entry.keys():
        return f"• [{entry['severity']}] {entry.get('kind', '')}: {entry['description']}"
    return "• " + ", ".join(f"{key}: {_plain(value)}" for key, value in entry.items())


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, str):
        return value
    if isinstance(value, int) or value is None:
        return str(value)
    return json.dumps(value, ensure_ascii=False)
