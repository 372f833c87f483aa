"""`jurist improve`: run an improvement cycle on a prompt, every message stored, and
report its outcome (shared by `jurist cycles approve`, which resumes a cycle)."""

import json
import re
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
    ModelOption,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
    read_file,
)
from jurist.cli._kb import DatabaseOption
from jurist.cli._render import output_console
from jurist.core import counted, run_sync
from jurist.data import DatasetError
from jurist.llm import ModelError
from jurist.rubrics import Criterion
from jurist.store import StoreError

if TYPE_CHECKING:
    from jurist.autonomy import AutonomyStore, CycleOutcome, CycleSpec, Limits


# The autonomy modules pull in the judges, and the tournament jurist.calibration (scipy,
# scikit-learn): they are imported inside the commands, so other commands do not pay.

# The exit code of a cycle that waits at a human breakpoint (see `improve`).
PAUSED_EXIT = 4
_CRITERION_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,59})=(.+)", re.DOTALL)
_BREAKPOINTS = ("significant_change", "every", "none")


async def open_store(database: str | None) -> "AutonomyStore":
    from jurist.autonomy import AutonomyStore

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

    from jurist.autonomy import resume_cycle, start_cycle

    async def run() -> "CycleOutcome":
        async with await open_store(database) as store:
            if spec is None:
                assert resume is not None
                await _check_resumable(store, resume)
                return await resume_cycle(store, resume, on_event=say)
            if name is not None and await store.get_cycle(name) is not None:
                raise BadInput(
                    f"--name: a cycle named {name!r} exists already; show it with "
                    f"`jurist cycles show {name}`, or choose another name"
                )
            return await start_cycle(spec, store, name=name, on_event=say)

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
        exit_store_failed(exc)
    except ModelError as exc:
        exit_model_failed(exc, resume or name)
    finish(outcome, out=out, as_json=as_json)


async def _check_resumable(store: "AutonomyStore", cycle: str) -> None:
    """Refuse, naming --resume, a cycle that is unknown or cannot go on."""
    from jurist.autonomy import CycleStatus

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


def say(line: str) -> None:
    typer.echo(line, err=True)


def exit_store_failed(exc: StoreError) -> NoReturn:
    typer.echo(f"error: the store failed during the cycle: {exc}", err=True)
    raise typer.Exit(Exit.UNDECIDED) from exc


def exit_model_failed(exc: ModelError, cycle: str | None) -> NoReturn:
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
    from jurist.autonomy import Limits, LimitsError

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
    from jurist.autonomy import CycleSpec, load_cases

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
    check_model_ready(model)
    try:
        check_model_spec(judge_model)
        if judge_model is not None:
            check_model_ready(judge_model)
    except BadInput as exc:
        raise BadInput(str(exc).replace("--model", "--judge-model", 1)) from exc
    if holdout is not None and not 0.0 < holdout < 1.0:
        raise BadInput(f"--holdout: {holdout} must lie strictly between 0 and 1")
    try:
        found = load_cases(cases)
    except DatasetError as exc:  # it names the file and line
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


def criterion_specs(given: Sequence[str]) -> list[Criterion]:
    """`--criterion` values as named criteria: NAME=TEXT keeps its name; plain text is
    named after its first words."""
    specs: list[Criterion] = []
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
        specs.append(Criterion(name=name, description=text))
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
    from jurist.autonomy import CycleStatus

    if outcome.status is CycleStatus.PAUSED:
        return PAUSED_EXIT
    if outcome.status in (CycleStatus.FAILED, CycleStatus.RUNNING):
        return Exit.UNDECIDED
    if outcome.status is CycleStatus.ACCEPTED or outcome.prompt != outcome.initial_prompt:
        return Exit.PASS
    return Exit.FAIL


def finish(outcome: "CycleOutcome", *, out: Path | None, as_json: bool) -> NoReturn:
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
        console = output_console()
        render_outcome(console, outcome)
        if out is not None:
            console.print(Text(f"final prompt written to {out}", style="dim"))
    raise typer.Exit(exit_code_of(outcome))


def render_outcome(console: Console, outcome: "CycleOutcome") -> None:
    """The cycle's headline and numbers, its final prompt, and what to do when paused."""
    from jurist.autonomy import CycleStatus

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
                f"prompt below, held-out score {score_text(pending.get('old_score'))} -> "
                f"{score_text(pending.get('new_score'))}",
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
            f"{score_text(outcome.baseline_score)} -> {score_text(outcome.score)} "
            "(initial -> final prompt, 0..1)",
        ),
        (
            "tokens",
            f"{usage.input_tokens} in, {usage.output_tokens} out, {counted(usage.calls, 'call')}",
        ),
        ("cost", cost),
        ("time", f"{outcome.seconds:.1f} s"),
    ]


def score_text(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else "-"
