"""`jurist cycles`: list stored improvement cycles, replay one event by event, and approve
or reject the change a paused one waits on."""

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from jurist.cli._exit import exit_interrupted
from jurist.cli._improve import (
    exit_model_failed,
    exit_store_failed,
    finish,
    open_store,
    render_outcome,
    say,
    score_text,
)
from jurist.cli._inputs import (
    BadInput,
    exit_bad_input,
)
from jurist.cli._kb import DatabaseOption
from jurist.cli._render import output_console
from jurist.core import counted, run_sync
from jurist.llm import ModelError
from jurist.store import StoreError

if TYPE_CHECKING:
    from jurist.autonomy import CycleOutcome, StoredCycle, StoredCycleEvent


# The autonomy modules pull in the judges, and the tournament jurist.calibration (scipy,
# scikit-learn): they are imported inside the commands, so other commands do not pay.

_GIST_WIDTH = 100

cycles_app = typer.Typer(
    help="Stored improvement cycles: list them, replay one, approve a paused one.",
    no_args_is_help=True,
)

CycleArgument = Annotated[str, typer.Argument(help="The cycle's id or name.")]


# --- jurist cycles ------------------------------------------------------------------------


def _cycle_row(stored: "StoredCycle") -> dict[str, Any]:
    from jurist.autonomy import outcome_of

    outcome = outcome_of(stored)
    return {
        "id": stored.id,
        "name": stored.name,
        "status": stored.status.value,
        "created_at": stored.created_at.isoformat(),
        "updated_at": stored.updated_at.isoformat(),
        "iterations": outcome.iterations,
        "baseline_score": outcome.baseline_score,
        "score": outcome.score,
        "reason": outcome.reason,
    }


@cycles_app.command("list")
def list_cycles(
    limit: Annotated[int, typer.Option("--limit", "-n", help="Cycles to show.", min=1)] = 50,
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the cycles as JSON.")] = False,
) -> None:
    """The newest cycles first: status, iterations and held-out score before and after."""

    async def read() -> "list[StoredCycle]":
        async with await open_store(database) as store:
            return await store.list_cycles(limit)

    try:
        found = run_sync(read)
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    rows = [_cycle_row(stored) for stored in found]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo(
            "no cycles yet: start one with `jurist improve --prompt FILE --cases FILE "
            "--criterion TEXT`"
        )
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("cycle", "status", "started (UTC)", "iterations", "held-out score", "reason"):
        table.add_column(column, no_wrap=column != "reason")
    for row in rows:
        table.add_row(
            row["name"] or row["id"],
            row["status"],
            row["created_at"][:16].replace("T", " "),
            str(row["iterations"]),
            f"{score_text(row['baseline_score'])} -> {score_text(row['score'])}",
            row["reason"] or "",
        )
    print_wide(table)


def print_wide(table: Table) -> None:
    console = Console()
    if not console.is_terminal:
        # Off a terminal (a pipe, a file) there is no width to fit: never cut an id.
        natural = console.measure(table, options=console.options.update_width(1000)).maximum
        console.width = max(console.width, natural)
    console.print(table)


async def _cycle_and_events(
    database: str | None, cycle: str
) -> "tuple[StoredCycle, list[StoredCycleEvent]]":
    async with await open_store(database) as store:
        stored = await store.get_cycle(cycle)
        if stored is None:
            raise BadInput(f"CYCLE: no cycle with id or name {cycle!r} (see `jurist cycles list`)")
        return stored, await store.cycle_events(stored.id)


@cycles_app.command("show")
def show_cycle(
    cycle: CycleArgument,
    database: DatabaseOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the cycle and its messages as JSON.")
    ] = False,
) -> None:
    """Replay a cycle: every stored message in order (its stage, kind, gist, tokens and
    cost), then where the cycle stands."""
    from jurist.autonomy import outcome_of

    try:
        stored, events = run_sync(lambda: _cycle_and_events(database, cycle))
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    outcome = outcome_of(stored)
    if as_json:
        payload = {
            **outcome.model_dump(mode="json"),
            "created_at": stored.created_at.isoformat(),
            "updated_at": stored.updated_at.isoformat(),
            "spec": stored.spec,
            "events": [
                {
                    "seq": event.seq,
                    "stage": event.stage,
                    "kind": event.kind,
                    "gist": event_gist(event.message),
                    "input_tokens": event.input_tokens,
                    "output_tokens": event.output_tokens,
                    "cost_usd": event.cost_usd,
                    "at": event.at.isoformat(),
                    "message": event.message,
                }
                for event in events
            ],
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("seq", "stage", "kind", "message", "tokens", "cost"):
        table.add_column(column, no_wrap=column != "message", overflow="fold")
    for event in events:
        table.add_row(
            str(event.seq),
            event.stage,
            event.kind,
            event_gist(event.message),
            str(event.input_tokens + event.output_tokens),
            "-" if event.cost_usd is None else f"${event.cost_usd:.4f}",
        )
    if events:
        print_wide(table)
    else:
        typer.echo("no messages stored for this cycle")
    render_outcome(output_console(), outcome)


@cycles_app.command("approve")
def approve(
    cycle: CycleArgument,
    *,
    reject: Annotated[
        bool, typer.Option("--reject", help="Reject the change instead of approving it.")
    ] = False,
    note: Annotated[str, typer.Option("--note", help="Why, stored with the decision.")] = "",
    no_continue: Annotated[
        bool,
        typer.Option(
            "--no-continue",
            help="Only record the decision; go on later with `jurist improve --resume CYCLE`.",
        ),
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the final prompt to this file.")
    ] = None,
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Approve (or --reject) the change a paused cycle waits on, then go on with the cycle
    and report as `jurist improve` does (with its exit codes). With --no-continue only the
    decision is recorded, and the exit code is 0."""
    from jurist.autonomy import approve_cycle, resume_cycle

    if out is not None and not out.parent.is_dir():
        exit_bad_input(BadInput(f"--out: no such directory: {out.parent}"))

    async def run() -> "tuple[StoredCycle, CycleOutcome | None]":
        async with await open_store(database) as store:
            try:
                decided = await approve_cycle(store, cycle, approve=not reject, note=note)
            except (LookupError, ValueError) as exc:
                raise BadInput(f"CYCLE: {exc}") from exc
            if no_continue:
                return decided, None
            return decided, await resume_cycle(store, decided.id, on_event=say)

    decision = "rejected" if reject else "approved"
    try:
        decided, outcome = run_sync(run)
    except KeyboardInterrupt:
        exit_interrupted(
            f"interrupted; the change was {decision} and the cycle is stored: go on with "
            f"`jurist improve --resume {cycle}`"
        )
    except BadInput as exc:
        exit_bad_input(exc)
    except StoreError as exc:
        exit_store_failed(exc)
    except ModelError as exc:
        exit_model_failed(exc, cycle)
    key = decided.name or decided.id
    say(f"the change was {decision}" + (f" ({note})" if note else ""))
    if outcome is None:
        if as_json:
            typer.echo(json.dumps({"cycle_id": decided.id, "decision": decision}, indent=2))
        else:
            typer.echo(f"go on with the cycle with `jurist improve --resume {key}`")
        return
    finish(outcome, out=out, as_json=as_json)


def event_gist(message: Mapping[str, Any]) -> str:
    """One line that says what a stored message holds."""
    if "payload" in message and "request" in message:
        text = _protocol_gist(message)
    else:
        text = _record_gist(message)
    line = " ".join(text.split())
    return line if len(line) <= _GIST_WIDTH else line[: _GIST_WIDTH - 1] + "…"


def _protocol_gist(message: Mapping[str, Any]) -> str:
    import jurist.autonomy as m

    try:
        parsed = m.parse_message(message)
    except m.MessageError:
        return _compact(message)
    payload = parsed.payload
    sender = parsed.metadata.sender_id
    said: str
    if isinstance(payload, m.EvaluateRequest):
        said = f"judge a response of {len(payload.response)} characters on " + counted(
            len(payload.criteria), "criterion", "criteria"
        )
    elif isinstance(payload, m.Evaluation):
        said = f"score {payload.score:.3f}"
        if payload.failed_criteria:
            said += f"; failed: {', '.join(payload.failed_criteria)}"
    elif isinstance(payload, m.AnalyzeRequest):
        said = f"explain a score of {payload.evaluation.score:.3f} from " + counted(
            len(payload.responses), "response", "responses"
        )
    elif isinstance(payload, m.Analysis):
        said = f"{payload.failure_type}: {payload.root_cause}"
    elif isinstance(payload, m.RewriteRequest):
        said = (
            f"rewrite a prompt of {len(payload.current_prompt)} characters "
            f"({payload.analysis.failure_type})"
        )
    elif isinstance(payload, m.Rewrite):
        said = f"a prompt of {len(payload.improved_prompt)} characters"
        if payload.techniques_used:
            said += f" ({', '.join(payload.techniques_used)})"
    elif isinstance(payload, m.ChallengeRequest):
        said = f"challenge a prompt of {len(payload.prompt)} characters on " + counted(
            len(payload.cases), "case", "cases"
        )
    elif isinstance(payload, m.Challenge):
        severities = Counter(finding.severity.value for finding in payload.findings)
        said = counted(len(payload.findings), "finding")
        if severities:
            said += " (" + ", ".join(f"{n} {s}" for s, n in sorted(severities.items())) + ")"
    elif isinstance(payload, m.ReviewRequest):
        said = (
            f"review iteration {payload.iteration} (" + counted(payload.findings, "finding") + ")"
        )
    else:
        review: m.Review = payload  # the last payload type of the protocol
        said = f"{review.decision.value}: {review.reason}"
    return f"{sender}: {said}"


def _record_gist(message: Mapping[str, Any]) -> str:
    """The loop's own records (answers, verdicts, breakpoints, decisions), by their shape."""
    outputs = message.get("outputs")
    if isinstance(outputs, list):
        failed = sum(1 for o in outputs if isinstance(o, Mapping) and o.get("error"))
        said = counted(len(outputs), "answer") + f" to the {message.get('prompt')} prompt"
        return said + (f", {failed} failed" if failed else "")
    if "accepted" in message and "new_score" in message:
        verdict = "accepted" if message["accepted"] else "rejected"
        return (
            f"iteration {message.get('iteration')}: held-out {score_text(message.get('old_score'))}"
            f" -> {score_text(message['new_score'])}: {verdict}"
        )
    if "why" in message and "prompt" in message:
        return f"waits for approval: {message['why']}"
    if "decision" in message and "note" in message:
        note = f": {message['note']}" if message["note"] else ""
        return f"a person {message['decision']} iteration {message.get('iteration')}'s change{note}"
    if "breaker" in message and "reason" in message:
        return f"{message['breaker']} breaker: {message['reason']}"
    if "role" in message and "cause" in message:
        return f"the {message['role']} failed ({message['cause']}): {message.get('detail', '')}"
    if "role" in message and "field" in message:
        return (
            f"the {message['role']}'s message refused: {message['field']}: {message.get('problem')}"
        )
    if "cause" in message and "iteration" in message:
        # The detail says what failed; events stored before it was kept held it as the cause.
        return f"iteration {message['iteration']} failed: {message.get('detail', message['cause'])}"
    if set(message) == {"reason"}:
        return str(message["reason"])
    return _compact(message)


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
