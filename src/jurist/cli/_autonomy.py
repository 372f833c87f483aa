"""`jurist improve`, `cycles`, `tournament` and `reputation`: the autonomous judge system
from the command line.

`improve` runs an improvement cycle on a prompt and stores every message of it; `cycles`
lists, replays and approves stored cycles; `tournament` ranks judge variants against
labelled cases and records each variant's reputation; `reputation` shows what is recorded.
"""

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jurist.cli._exit import Exit, exit_interrupted
from jurist.cli._inputs import (
    BadInput,
    JsonOption,
    ModelOption,
    check_model_spec,
    exit_bad_input,
    read_file,
)
from jurist.cli._kb import DatabaseOption
from jurist.core import run_sync
from jurist.llm import ModelError
from jurist.store import StoreError, new_id
from jurist.store._autonomy import AutonomyStore, CycleStatus, StoredCycle, StoredCycleEvent

if TYPE_CHECKING:
    from jurist.autonomy._governance import Limits
    from jurist.autonomy._loop import CycleOutcome, CycleSpec
    from jurist.autonomy._messages import CriterionSpec
    from jurist.autonomy._reputation import Reputation, ReputationMetrics
    from jurist.autonomy._tournament import Standing, TournamentResult

# The autonomy modules pull in the judges, and the tournament jurist.calibration (scipy,
# scikit-learn): they are imported inside the commands, so other commands do not pay.

# The exit code of a cycle that waits at a human breakpoint (see `improve`).
PAUSED_EXIT = 4
_GIST_WIDTH = 100
_CRITERION_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,59})=(.+)", re.DOTALL)
_BREAKPOINTS = ("significant_change", "every", "none")

cycles_app = typer.Typer(
    help="Stored improvement cycles: list them, replay one, approve a paused one.",
    no_args_is_help=True,
)
reputation_app = typer.Typer(
    help="Judges' reputations: their scores, metrics and the history of every change.",
    no_args_is_help=True,
)

CycleArgument = Annotated[str, typer.Argument(help="The cycle's id or name.")]


async def _open(database: str | None) -> AutonomyStore:
    try:
        return await AutonomyStore.open(database)
    except StoreError as exc:
        raise BadInput(f"--database: {exc}") from exc


# --- jurist improve -----------------------------------------------------------------------


def improve_command(
    *,
    prompt: Annotated[
        Path | None,
        typer.Option("--prompt", help="A text file holding the prompt to improve."),
    ] = None,
    cases: Annotated[
        Path | None,
        typer.Option(
            "--cases", help="A .jsonl file of cases: id, input, optional reference (2 or more)."
        ),
    ] = None,
    criterion: Annotated[
        list[str] | None,
        typer.Option(
            "--criterion",
            help="What a good answer does: TEXT, or NAME=TEXT to name it (repeatable).",
        ),
    ] = None,
    model: ModelOption = None,
    judge_model: Annotated[
        str | None,
        typer.Option("--judge-model", help="Model spec of the judges; default: JURIST_MODEL."),
    ] = None,
    max_iterations: Annotated[
        int | None, typer.Option("--max-iterations", help="Iterations at most.", min=1)
    ] = None,
    max_cost_usd: Annotated[
        float | None, typer.Option("--max-cost-usd", help="US dollars at most (> 0).")
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", help="Tokens at most (the bound on a free model).", min=1),
    ] = None,
    breakpoint_: Annotated[
        str | None,
        typer.Option(
            "--breakpoint",
            help="When a person approves a change: significant_change (default), every, none.",
        ),
    ] = None,
    limits: Annotated[
        Path | None,
        typer.Option("--limits", help="A YAML file of limits; the flags above override it."),
    ] = None,
    holdout: Annotated[
        float | None,
        typer.Option("--holdout", help="Share of the cases held back to accept changes on (0..1)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Name the cycle (to show or resume it by).")
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option("--resume", help="Go on with an interrupted cycle (id or name)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the final prompt to this file.")
    ] = None,
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Improve a prompt: the model under test answers the cases with it, judges score the
    answers against the criteria, and an analyst, a rewriter, an adversary and a meta judge
    propose a better prompt, kept only when it scores better on cases held back from the
    rewrite. Limits bound iterations, cost and tokens; a significant change waits for a
    person (`jurist cycles approve`). Every message is stored: `jurist cycles show`.

    Each stage is reported on standard error; the outcome and the final prompt on standard
    output.

    Exit codes: 0 an improvement was kept (accepted, or halted after keeping one), 1 no
    improvement (rejected, halted or done without one), 2 bad input, 3 the cycle failed,
    4 paused: a change waits for approval, 130 interrupted.
    """
    try:
        if out is not None and not out.parent.is_dir():
            raise BadInput(f"--out: no such directory: {out.parent}")
        if resume is not None:
            _refuse_with_resume(
                {
                    "--prompt": prompt,
                    "--cases": cases,
                    "--criterion": criterion,
                    "--model": model,
                    "--judge-model": judge_model,
                    "--max-iterations": max_iterations,
                    "--max-cost-usd": max_cost_usd,
                    "--max-tokens": max_tokens,
                    "--breakpoint": breakpoint_,
                    "--limits": limits,
                    "--holdout": holdout,
                    "--name": name,
                }
            )
            spec = None
        else:
            spec = _spec(
                prompt=prompt,
                cases=cases,
                criteria=criterion or [],
                model=model,
                judge_model=judge_model,
                limits=_limits(
                    limits,
                    {
                        "max_iterations": ("--max-iterations", max_iterations),
                        "max_cost_usd": ("--max-cost-usd", max_cost_usd),
                        "max_tokens": ("--max-tokens", max_tokens),
                        "breakpoint": ("--breakpoint", _breakpoint(breakpoint_)),
                    },
                ),
                holdout=holdout,
            )
    except BadInput as exc:
        exit_bad_input(exc)

    from jurist.autonomy._loop import resume_cycle, start_cycle

    async def run() -> "CycleOutcome":
        async with await _open(database) as store:
            if spec is None:
                assert resume is not None
                await _check_resumable(store, resume)
                return await resume_cycle(store, resume, on_event=_say)
            if name is not None and await store.get_cycle(name) is not None:
                raise BadInput(
                    f"--name: a cycle named {name!r} exists already; show it with "
                    f"`jurist cycles show {name}`, or choose another name"
                )
            return await start_cycle(spec, store, name=name, on_event=_say)

    try:
        outcome = run_sync(run)
    except KeyboardInterrupt:
        again = resume or name or "CYCLE (see `jurist cycles list`)"
        exit_interrupted(
            f"interrupted; the cycle is stored as far as it got: go on with "
            f"`jurist improve --resume {again}`"
        )
    except BadInput as exc:
        exit_bad_input(exc)
    except StoreError as exc:
        _exit_store_failed(exc)
    except ModelError as exc:
        _exit_model_failed(exc, resume or name)
    _finish(outcome, out=out, as_json=as_json)


async def _check_resumable(store: AutonomyStore, cycle: str) -> None:
    """Refuse, naming --resume, a cycle that is unknown or cannot go on."""
    stored = await store.get_cycle(cycle)
    if stored is None:
        raise BadInput(f"--resume: no cycle with id or name {cycle!r} (see `jurist cycles list`)")
    if stored.status is CycleStatus.PAUSED:
        raise BadInput(
            f"--resume: cycle {cycle!r} waits for approval: decide with `jurist cycles approve "
            f"{cycle}` (or --reject), which goes on with it"
        )
    if stored.status is not CycleStatus.RUNNING:
        raise BadInput(
            f"--resume: cycle {cycle!r} has ended ({stored.status.value}); nothing to resume"
        )


def _say(line: str) -> None:
    typer.echo(line, err=True)


def _exit_store_failed(exc: StoreError) -> NoReturn:
    typer.echo(f"error: the store failed during the cycle: {exc}", err=True)
    raise typer.Exit(Exit.UNDECIDED) from exc


def _exit_model_failed(exc: ModelError, cycle: str | None) -> NoReturn:
    # A model that cannot be had (no weights, no key) fails before the cycle's first call;
    # the cycle stays stored as running, so it can go on once the model is there.
    again = cycle or "CYCLE (see `jurist cycles list`)"
    typer.echo(
        f"error: {exc}; the cycle is stored: go on with `jurist improve --resume {again}`",
        err=True,
    )
    raise typer.Exit(Exit.UNDECIDED) from exc


def _refuse_with_resume(given: Mapping[str, object]) -> None:
    for flag, value in given.items():
        if value is not None and value != []:
            raise BadInput(
                f"{flag}: a resumed cycle keeps the spec it was started with; give "
                "--resume CYCLE alone"
            )


def _breakpoint(value: str | None) -> str | None:
    if value is not None and value not in _BREAKPOINTS:
        raise BadInput(f"--breakpoint: {value!r} is not one of: {', '.join(_BREAKPOINTS)}")
    return value


def _limits(path: Path | None, overrides: Mapping[str, tuple[str, object]]) -> "Limits":
    """The limits of the --limits file (else the defaults), with the flags given on top."""
    from jurist.autonomy._governance import Limits, LimitsError

    try:
        base = Limits() if path is None else Limits.from_yaml(path)
    except LimitsError as exc:
        raise BadInput(f"--limits: {exc}") from exc
    data = base.model_dump()
    for field, (_, value) in overrides.items():
        if value is not None:
            data[field] = value
    try:
        return Limits.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else ""
        flag = overrides[field][0] if field in overrides else f"--limits: {field}"
        raise BadInput(f"{flag}: {error['msg']}") from exc


def _spec(
    *,
    prompt: Path | None,
    cases: Path | None,
    criteria: Sequence[str],
    model: str | None,
    judge_model: str | None,
    limits: "Limits",
    holdout: float | None,
) -> "CycleSpec":
    from jurist.autonomy._cases import CasesError, load_cases
    from jurist.autonomy._loop import CycleSpec

    if prompt is None:
        raise BadInput("--prompt: give the file holding the prompt to improve")
    if cases is None:
        raise BadInput("--cases: give a .jsonl file of cases to improve the prompt on")
    if not criteria:
        raise BadInput("--criterion: give at least one criterion a good answer meets")
    text = read_file("--prompt", prompt).strip()
    if not text:
        raise BadInput(f"--prompt: {prompt} is empty")
    check_model_spec(model)
    try:
        check_model_spec(judge_model)
    except BadInput as exc:
        raise BadInput(str(exc).replace("--model", "--judge-model", 1)) from exc
    if holdout is not None and not 0.0 < holdout < 1.0:
        raise BadInput(f"--holdout: {holdout} must lie strictly between 0 and 1")
    try:
        found = load_cases(cases)
    except CasesError as exc:  # it names the file and line
        raise BadInput(f"--cases: {exc}") from exc
    values: dict[str, Any] = {
        "prompt": text,
        "criteria": criterion_specs(criteria),
        "cases": found,
        "model": model,
        "judge_model": judge_model,
        "limits": limits,
    }
    if holdout is not None:
        values["holdout"] = holdout
    try:
        return CycleSpec(**values)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "spec"
        flags = {"criteria": "--criterion", "judge_model": "--judge-model"}
        raise BadInput(f"{flags.get(field, f'--{field}')}: {error['msg']}") from exc


def criterion_specs(given: Sequence[str]) -> "list[CriterionSpec]":
    """`--criterion` values as named criteria: NAME=TEXT keeps its name; plain text is
    named after its first words."""
    from jurist.autonomy._messages import CriterionSpec

    specs: list[CriterionSpec] = []
    taken: set[str] = set()
    for index, value in enumerate(given):
        named = _CRITERION_NAME.fullmatch(value.strip())
        if named:
            name, text = named.group(1), named.group(2).strip()
            if name in taken:
                raise BadInput(f"--criterion: the name {name!r} is given twice")
        else:
            name, text = _unused(_slug(value) or f"criterion_{index + 1}", taken), value.strip()
        if not text:
            raise BadInput(f"--criterion: {value!r} has no text: say what a good answer does")
        taken.add(name)
        specs.append(CriterionSpec(name=name, description=text))
    return specs


def _slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())[:4]
    return "_".join(words)[:40].strip("_")


def _unused(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}_{number}", number + 1
    return candidate


def exit_code_of(outcome: "CycleOutcome") -> int:
    """The exit code for a cycle's outcome (see `improve`)."""
    if outcome.status is CycleStatus.PAUSED:
        return PAUSED_EXIT
    if outcome.status in (CycleStatus.FAILED, CycleStatus.RUNNING):
        return Exit.UNDECIDED
    if outcome.status is CycleStatus.ACCEPTED or outcome.prompt != outcome.initial_prompt:
        return Exit.PASS
    return Exit.FAIL


def _finish(outcome: "CycleOutcome", *, out: Path | None, as_json: bool) -> NoReturn:
    """Write the final prompt, print the outcome, and exit with its code."""
    if out is not None:
        try:
            out.write_text(outcome.prompt + "\n", encoding="utf-8")
        except OSError as exc:
            exit_bad_input(BadInput(f"--out: cannot write {out}: {exc.strerror or exc}"))
    if as_json:
        payload = {**outcome.model_dump(mode="json"), "out": None if out is None else str(out)}
        typer.echo(json.dumps(payload, indent=2))
    else:
        console = Console()
        render_outcome(console, outcome)
        if out is not None:
            console.print(Text(f"final prompt written to {out}", style="dim"))
    raise typer.Exit(exit_code_of(outcome))


def render_outcome(console: Console, outcome: "CycleOutcome") -> None:
    """The cycle's headline and numbers, its final prompt, and what to do when paused."""
    who = f"{outcome.name} ({outcome.cycle_id})" if outcome.name else outcome.cycle_id
    console.print(Text.assemble(("cycle ", "bold"), (who, "bold"), f"  {outcome.status.value}"))
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column("", style="dim", no_wrap=True)
    table.add_column("", overflow="fold")
    for label, value in outcome_rows(outcome):
        table.add_row(label, value)
    console.print(table)
    ongoing = outcome.status in (CycleStatus.PAUSED, CycleStatus.RUNNING)
    heading = "current prompt" if ongoing else "final prompt"
    if outcome.prompt == outcome.initial_prompt:
        heading += " (unchanged)"
    console.print(Text(heading + ":", style="bold"))
    console.print(Text(outcome.prompt))
    pending = outcome.pending
    if outcome.status is CycleStatus.PAUSED and pending is not None:
        key = outcome.name or outcome.cycle_id
        console.print(
            Text(
                f"waiting for approval: iteration {pending.get('iteration')} proposes the "
                f"prompt below, held-out score {_score(pending.get('old_score'))} -> "
                f"{_score(pending.get('new_score'))}",
                style="bold yellow",
            )
        )
        console.print(Text(f"why a person decides: {pending.get('why')}", style="yellow"))
        console.print(Text(str(pending.get("prompt", ""))))
        console.print(
            Text(
                f"approve it with `jurist cycles approve {key}`, or reject it with "
                f"`jurist cycles approve {key} --reject`; either goes on with the cycle",
                style="yellow",
            )
        )


def outcome_rows(outcome: "CycleOutcome") -> list[tuple[str, str]]:
    usage = outcome.usage
    cost = "unknown (some calls had no price)"
    if usage.cost_usd is not None:
        cost = f"${usage.cost_usd:.4f}"
    return [
        ("reason", outcome.reason or "-"),
        ("iterations", str(outcome.iterations)),
        (
            "held-out score",
            f"{_score(outcome.baseline_score)} -> {_score(outcome.score)} (initial -> final "
            "prompt, 0..1)",
        ),
        (
            "tokens",
            f"{usage.input_tokens} in, {usage.output_tokens} out, {usage.calls} calls",
        ),
        ("cost", cost),
        ("time", f"{outcome.seconds:.1f} s"),
    ]


def _score(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else "-"


# --- jurist cycles ------------------------------------------------------------------------


def _cycle_row(stored: StoredCycle) -> dict[str, Any]:
    from jurist.autonomy._loop import outcome_of

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
    as_json: JsonOption = False,
) -> None:
    """The newest cycles first: status, iterations and held-out score before and after."""

    async def read() -> list[StoredCycle]:
        async with await _open(database) as store:
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
            f"{_score(row['baseline_score'])} -> {_score(row['score'])}",
            row["reason"] or "",
        )
    _print_wide(table)


def _print_wide(table: Table) -> None:
    console = Console()
    if not console.is_terminal:
        # Off a terminal (a pipe, a file) there is no width to fit: never cut an id.
        natural = console.measure(table, options=console.options.update_width(1000)).maximum
        console.width = max(console.width, natural)
    console.print(table)


async def _cycle_and_events(
    database: str | None, cycle: str
) -> tuple[StoredCycle, list[StoredCycleEvent]]:
    async with await _open(database) as store:
        stored = await store.get_cycle(cycle)
        if stored is None:
            raise BadInput(f"CYCLE: no cycle with id or name {cycle!r} (see `jurist cycles list`)")
        return stored, await store.cycle_events(stored.id)


@cycles_app.command("show")
def show_cycle(
    cycle: CycleArgument,
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Replay a cycle: every stored message in order (its stage, kind, gist, tokens and
    cost), then where the cycle stands."""
    from jurist.autonomy._loop import outcome_of

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
        _print_wide(table)
    else:
        typer.echo("no messages stored for this cycle")
    render_outcome(Console(), outcome)


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
    from jurist.autonomy._loop import approve_cycle, resume_cycle

    if out is not None and not out.parent.is_dir():
        exit_bad_input(BadInput(f"--out: no such directory: {out.parent}"))

    async def run() -> "tuple[StoredCycle, CycleOutcome | None]":
        async with await _open(database) as store:
            try:
                decided = await approve_cycle(store, cycle, approve=not reject, note=note)
            except (LookupError, ValueError) as exc:
                raise BadInput(f"CYCLE: {exc}") from exc
            if no_continue:
                return decided, None
            return decided, await resume_cycle(store, decided.id, on_event=_say)

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
        _exit_store_failed(exc)
    except ModelError as exc:
        _exit_model_failed(exc, cycle)
    key = decided.name or decided.id
    _say(f"the change was {decision}" + (f" ({note})" if note else ""))
    if outcome is None:
        if as_json:
            typer.echo(json.dumps({"cycle_id": decided.id, "decision": decision}, indent=2))
        else:
            typer.echo(f"go on with the cycle with `jurist improve --resume {key}`")
        return
    _finish(outcome, out=out, as_json=as_json)


def event_gist(message: Mapping[str, Any]) -> str:
    """One line that says what a stored message holds."""
    if "payload" in message and "request" in message:
        text = _protocol_gist(message)
    else:
        text = _record_gist(message)
    line = " ".join(text.split())
    return line if len(line) <= _GIST_WIDTH else line[: _GIST_WIDTH - 1] + "…"


def _protocol_gist(message: Mapping[str, Any]) -> str:
    from jurist.autonomy import _messages as m

    try:
        parsed = m.parse_message(message)
    except m.MessageError:
        return _compact(message)
    payload = parsed.payload
    sender = parsed.metadata.sender_id
    said: str
    if isinstance(payload, m.EvaluateRequest):
        said = f"judge a response of {len(payload.response)} characters on " + _count(
            len(payload.criteria), "criterion", "criteria"
        )
    elif isinstance(payload, m.Evaluation):
        said = f"score {payload.score:.3f}"
        if payload.failed_criteria:
            said += f"; failed: {', '.join(payload.failed_criteria)}"
    elif isinstance(payload, m.AnalyzeRequest):
        said = f"explain a score of {payload.evaluation.score:.3f} from " + _count(
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
        said = f"challenge a prompt of {len(payload.prompt)} characters on " + _count(
            len(payload.cases), "case", "cases"
        )
    elif isinstance(payload, m.Challenge):
        severities = Counter(finding.severity.value for finding in payload.findings)
        said = _count(len(payload.findings), "finding", "findings")
        if severities:
            said += " (" + ", ".join(f"{n} {s}" for s, n in sorted(severities.items())) + ")"
    elif isinstance(payload, m.ReviewRequest):
        said = (
            f"review iteration {payload.iteration} ("
            + _count(payload.findings, "finding", "findings")
            + ")"
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
        said = _count(len(outputs), "answer", "answers") + f" to the {message.get('prompt')} prompt"
        return said + (f", {failed} failed" if failed else "")
    if "accepted" in message and "new_score" in message:
        verdict = "accepted" if message["accepted"] else "rejected"
        return (
            f"iteration {message.get('iteration')}: held-out {_score(message.get('old_score'))}"
            f" -> {_score(message['new_score'])}: {verdict}"
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
        return f"iteration {message['iteration']} failed: {message['cause']}"
    if set(message) == {"reason"}:
        return str(message["reason"])
    return _compact(message)


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# --- jurist tournament --------------------------------------------------------------------


def tournament_command(
    *,
    ground_truth: Annotated[
        Path,
        typer.Option(
            "--ground-truth",
            help="Labelled cases (.jsonl or .csv): id, context, output, label.",
        ),
    ],
    variants: Annotated[
        Path | None, typer.Option("--variants", "--judges", help="A YAML file of judge variants.")
    ] = None,
    criterion: Annotated[
        str | None,
        typer.Option(
            "--criterion", help="A criterion to make variants of (instead of --variants)."
        ),
    ] = None,
    variants_n: Annotated[
        int,
        typer.Option(
            "--variants-n",
            help="Variants made of --criterion: 5 techniques, then model rewordings.",
            min=1,
        ),
    ] = 5,
    samples: Annotated[
        int,
        typer.Option("--samples", help="Sampled runs per case, to measure consistency.", min=0),
    ] = 2,
    temperature: Annotated[
        float, typer.Option("--temperature", help="Temperature of the sampled runs (0..2].")
    ] = 0.7,
    save: Annotated[
        Path | None,
        typer.Option("--save", help="Write the best variants here as judge spec files."),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="How many best variants to save.", min=1)] = 1,
    model: ModelOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-c", help="Model calls at once.", min=1)
    ] = 4,
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Rank judge variants of one criterion: each judges every labelled case once at the
    model's defaults and --samples more times at --temperature, and is scored on agreement
    with the labels, with itself and with its peers. Each variant's reputation (judge
    `variant:<id>`) is recorded: its accuracy, consistency and agreement, and a score seeded
    from them. --save writes the --top best as `<id>.judge.yaml` files.

    Exit codes: 0 ranked, 2 bad input, 3 the store failed.
    """
    try:
        _check_tournament_input(
            variants,
            criterion=criterion,
            model=model,
            samples=samples,
            temperature=temperature,
            save=save,
        )
    except BadInput as exc:
        exit_bad_input(exc)

    from jurist.autonomy._tournament import load_ground_truth, run_tournament, save_winners
    from jurist.autonomy._variants import VariantError, load_variants, seed_variants
    from jurist.calibration import DatasetError
    from jurist.judges._model import ModelRef

    try:
        cases = load_ground_truth(ground_truth)
    except (DatasetError, OSError, ValueError) as exc:
        exit_bad_input(BadInput(f"--ground-truth: {exc}"))
    chosen = None
    if variants is not None:
        try:
            chosen = load_variants(variants)
        except VariantError as exc:  # it names the file, the entry and the field
            exit_bad_input(BadInput(f"--variants: {exc}"))

    async def run() -> "tuple[TournamentResult, list[Reputation]]":
        # The store first: a database that cannot be opened should not cost a tournament.
        async with await _open(database) as store:
            judge_model = ModelRef(model).get()
            entrants = chosen
            if entrants is None:
                assert criterion is not None
                try:
                    entrants = await seed_variants(criterion, variants_n, judge_model)
                except VariantError as exc:
                    raise BadInput(f"--criterion: {exc}") from exc
            result = await run_tournament(
                entrants,
                cases,
                judge_model,
                samples=samples,
                temperature=temperature,
                concurrency=concurrency,
            )
            return result, await record_reputations(store, result)

    try:
        result, recorded = run_sync(run)
    except KeyboardInterrupt:
        exit_interrupted("interrupted; nothing was recorded")
    except VariantError as exc:  # a variant's template that cannot be loaded
        exit_bad_input(BadInput(f"--variants: {exc}"))
    except (BadInput, ValueError) as exc:
        exit_bad_input(exc)
    except ModelError as exc:
        typer.echo(f"error: the model failed: {exc}", err=True)
        raise typer.Exit(Exit.UNDECIDED) from exc
    except StoreError as exc:
        typer.echo(f"error: the reputations could not be recorded: {exc}", err=True)
        raise typer.Exit(Exit.UNDECIDED) from exc
    written = save_winners(result, save, top) if save is not None else []
    _print_tournament(result, recorded, written, as_json=as_json)


def _check_tournament_input(
    variants: Path | None,
    *,
    criterion: str | None,
    model: str | None,
    samples: int,
    temperature: float,
    save: Path | None,
) -> None:
    if (variants is None) == (criterion is None):
        raise BadInput("--variants: give either --variants FILE or --criterion TEXT")
    if criterion is not None and not criterion.strip():
        raise BadInput("--criterion: the criterion is blank")
    check_model_spec(model)
    if samples and not 0.0 < temperature <= 2.0:
        raise BadInput(
            f"--temperature: {temperature} must lie in (0, 2]: sampling at 0 repeats the "
            "default answer and measures nothing"
        )
    if save is not None and save.exists() and not save.is_dir():
        raise BadInput(f"--save: {save} is a file, not a directory")


def _print_tournament(
    result: "TournamentResult",
    recorded: "Sequence[Reputation]",
    written: Sequence[Path],
    *,
    as_json: bool,
) -> None:
    if as_json:
        payload = {
            **result.to_dict(),
            "reputations": [_reputation_row(rep) for rep in recorded],
            "saved": [str(path) for path in written],
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    # Plain text, never wrapped: a Markdown table cut at the terminal's width is no table.
    typer.echo(result.to_markdown())
    console = Console()
    for rep in recorded:
        console.print(
            Text(f"reputation {rep.judge_id}: {rep.score:.3f}", style="dim"), highlight=False
        )
    for path in written:
        console.print(Text(f"saved {path}", style="dim"), highlight=False)


def variant_judge_id(variant_id: str) -> str:
    """The judge id a tournament records a variant's reputation under."""
    return f"variant:{variant_id}"


def standing_metrics(row: "Standing", metrics: "ReputationMetrics") -> "ReputationMetrics":
    """`metrics` with what one tournament showed of a variant folded in: its balanced
    accuracy against the labels (plain accuracy when only that is defined), its
    consistency, its agreement with its peers, and the cases it judged."""
    from jurist.autonomy._reputation import ReputationMetrics

    accuracy = row.balanced_accuracy if row.balanced_accuracy is not None else row.accuracy
    if accuracy is not None:
        metrics = metrics.observe_accuracy(accuracy)
    if row.consistency is not None:
        metrics = metrics.observe_consistency(row.consistency)
    if row.peer_agreement is not None:
        metrics = metrics.observe_agreement(row.peer_agreement)
    return metrics.merge(ReputationMetrics(total_evaluations=row.judged))


async def record_reputations(
    store: AutonomyStore, result: "TournamentResult"
) -> "list[Reputation]":
    """Fold each variant's showing into its stored reputation, seed its score from the
    metrics, and save both with the change that moved the score."""
    from jurist.autonomy._reputation import ReputationBook

    tournament = f"tournament-{new_id()}"
    recorded: list[Reputation] = []
    for row in result.rows:
        judge_id = variant_judge_id(row.variant.id)
        found = await store.get_reputation(judge_id)
        book = ReputationBook([] if found is None else [found])
        metrics = standing_metrics(row, book.get(judge_id).metrics)
        note = (
            f"rank {row.rank} of {len(result.rows)} on {len(result.labels)} cases with "
            f"{result.model}, fitness {row.fitness:.3f}"
        )
        seeded = book.seed(judge_id, metrics, cycle_id=tournament, note=note)
        await store.save_reputation(seeded, book.unsaved(judge_id))
        book.mark_saved(judge_id)
        recorded.append(seeded)
    return recorded


# --- jurist reputation --------------------------------------------------------------------


def _reputation_row(rep: "Reputation") -> dict[str, Any]:
    return {"judge_id": rep.judge_id, "score": rep.score, "metrics": rep.metrics.model_dump()}


@reputation_app.command("list")
def list_reputations(database: DatabaseOption = None, as_json: JsonOption = False) -> None:
    """Every judge with a reputation, best score first."""

    async def read() -> "list[Reputation]":
        async with await _open(database) as store:
            return await store.reputations()

    try:
        found = run_sync(read)
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    if as_json:
        typer.echo(json.dumps([_reputation_row(rep) for rep in found], indent=2))
        return
    if not found:
        typer.echo("no reputations yet: a tournament or an improvement cycle records them")
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("judge", "score", "evaluations", "accuracy", "consistency", "agreement"):
        table.add_column(column, no_wrap=True)
    for rep in found:
        metrics = rep.metrics
        table.add_row(
            rep.judge_id,
            f"{rep.score:.3f}",
            str(metrics.total_evaluations),
            _score(metrics.accuracy_rate),
            _score(metrics.consistency_score),
            _score(metrics.agreement_rate),
        )
    _print_wide(table)


@reputation_app.command("show")
def show_reputation(
    judge: Annotated[str, typer.Argument(help="The judge's id (see `jurist reputation list`).")],
    database: DatabaseOption = None,
    as_json: JsonOption = False,
) -> None:
    """A judge's score, what is known of it, and every change of its score."""

    async def read() -> "Reputation | None":
        async with await _open(database) as store:
            return await store.get_reputation(judge)

    try:
        found = run_sync(read)
        if found is None:
            raise BadInput(f"JUDGE: no reputation for {judge!r} (see `jurist reputation list`)")
    except (BadInput, StoreError, ValueError) as exc:
        exit_bad_input(exc)
    if as_json:
        typer.echo(found.model_dump_json(indent=2))
        return
    console = Console()
    console.print(
        Text.assemble(("judge ", "bold"), (found.judge_id, "bold"), f"  score {found.score:.3f}")
    )
    metrics = Table(show_header=False, box=None, pad_edge=False)
    metrics.add_column("", style="dim", no_wrap=True)
    metrics.add_column("")
    for label, value in found.metrics.model_dump().items():
        if value is not None:
            metrics.add_row(label, f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(metrics)
    if not found.history:
        console.print(Text("no changes of score recorded", style="dim"))
        return
    history = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("at (UTC)", "event", "change", "by", "note"):
        history.add_column(column, no_wrap=column != "note", overflow="fold")
    for change in found.history:
        history.add_row(
            f"{change.at:%Y-%m-%d %H:%M:%S}",
            change.event.value,
            f"{change.before:.3f} -> {change.after:.3f} ({change.delta:+.3f})",
            change.cycle_id or "-",
            change.note,
        )
    _print_wide(history)
